// `code-runtime repl` through a real pseudo-terminal: util-linux `script` gives the built bin a pty
// (readline in raw mode, Ctrl-C as a keypress), with no native addon. Each step waits for what
// the REPL prints, never for time.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CLI_PATH, installedBin, makeTempDirectory, waitFor } from './serve-harness.js'

/** A REPL on a pty: what it printed so far (escape sequences removed), and keys to send. */
interface PtyRepl {
  output(): string
  /** Types `text` and Enter. */
  line(text: string): void
  /** Sends raw keys (`\u0003` is Ctrl-C). */
  keys(text: string): void
  /** Waits until the output after `from` matches `pattern`; returns that part of the output. */
  expect(pattern: RegExp, from: number, what: string): Promise<string>
  exited: Promise<number | null>
}

function startRepl(environment: NodeJS.ProcessEnv, extraArgs: readonly string[] = []): PtyRepl {
  const command = [process.execPath, CLI_PATH, 'repl', '--backend', 'worker-thread', ...extraArgs]
    .map(part => JSON.stringify(part))
    .join(' ')
  const child: ChildProcessWithoutNullStreams = spawn('script', ['-qfec', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm',
      NO_COLOR: '1',
      ...environment,
    },
  })
  let printed = ''
  child.stdout.on('data', (chunk: Buffer) => {
    // Cursor moves and line clears of readline's redraws are not text.
    printed += chunk
      .toString()
      // eslint-disable-next-line no-control-regex -- the escape character is exactly what is removed
      .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
      .replace(/\r/g, '')
  })
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)))
  return {
    output: () => printed,
    line: text => child.stdin.write(`${text}\r`),
    keys: text => child.stdin.write(text),
    async expect(pattern, from, what) {
      try {
        await waitFor(() => pattern.test(printed.slice(from)), what, 30_000)
      } catch (error) {
        throw new Error(`${(error as Error).message}; the REPL printed: ${JSON.stringify(printed.slice(from))}`)
      }
      return printed.slice(from)
    },
    exited,
  }
}

describe('code-runtime repl (through a pseudo-terminal)', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-repl-')
  })
  after(() => temp.remove())

  it('keeps what one input declares for the next, through an error, an interrupted run and multi-line input, until .exit', async () => {
    const historyPath = join(temp.path, 'history')
    const repl = startRepl({ CODE_RUNTIME_REPL_HISTORY: historyPath })
    let mark = 0
    const step = async (input: string, pattern: RegExp, what: string): Promise<string> => {
      mark = repl.output().length
      repl.line(input)
      return repl.expect(pattern, mark, what)
    }
    try {
      await repl.expect(/variables persist between inputs; \.help for help\.\n> $/, 0, 'the banner and the prompt')
      await step('const cities = (await tools.demo_list_cities()).cities', /\n> $/, 'the declaration to run')
      await step('cities.length', /^cities\.length\n5\n> $/m, 'the kept variable to be used')
      await step(
        'throw new Error("boom")',
        /exception: Error: boom\n {4}at program\.ts:1:7\n> $/,
        'the failure with its kind',
      )
      await step('cities.slice(0, 2)', /\[ 'Lima', 'Nairobi' \]\n> $/, 'the variable to survive the failure')
      // Multi-line: an open bracket continues the input; the closing line runs it.
      await step(
        'const weather = await Promise.all(cities.map((city) => tools.demo_get_weather({',
        /\.\.\. $/,
        'a continuation prompt',
      )
      await step('  city,', /\.\.\. $/, 'a second continuation prompt')
      await step('})))', /\n> $/, 'the multi-line input to run')
      await step('weather.length + cities.length', /\n10\n> $/, 'both variables')
      // Ctrl-C stops a program that waits; the session keeps its variables.
      mark = repl.output().length
      repl.line('console.log("waiting"); await new Promise((resolve) => setTimeout(resolve, 60_000))')
      await repl.expect(/waiting\n/, mark, 'the live log of the running program')
      repl.keys('\u0003')
      await repl.expect(/abort: Interrupted by Ctrl-C\.\n> $/, mark, 'the run to be aborted')
      await step('cities[0]', /'Lima'\n> $/, 'the variables to survive the abort')
      await step('.help', /\.reset {3}forget every variable[\s\S]*\n> $/, 'the help')
      await step('.reset', /every variable forgotten\)\n> $/, 'the reset')
      await step('typeof cities', /'undefined'\n> $/, 'the variable to be gone')
      repl.line('.exit')
      assert.equal(await repl.exited, 0)
      const history = await readFile(historyPath, 'utf8')
      assert.ok(history.startsWith('const cities = (await tools.demo_list_cities()).cities\ncities.length\n'), history)
      assert.ok(history.includes('  city,\n'))
    } finally {
      repl.keys('\u0004')
    }
  })

  it('clears an unfinished input with Ctrl-C, exits on a second Ctrl-C at an empty prompt, and runs without a writable history', async () => {
    const repl = startRepl({ CODE_RUNTIME_REPL_HISTORY: '/proc/no-such-directory/history' })
    try {
      await repl.expect(/\n> $/, 0, 'the prompt')
      let mark = repl.output().length
      repl.line('const unfinished = [1,')
      await repl.expect(/\.\.\. $/, mark, 'a continuation prompt')
      repl.keys('\u0003')
      mark = repl.output().length
      repl.line('1 + 1')
      await repl.expect(/\n2\n> $/, mark, 'a fresh input after the cleared one')
      assert.match(repl.output(), /\(history not saved to \/proc\/no-such-directory\/history: /)
      mark = repl.output().length
      repl.keys('\u0003')
      await repl.expect(/press Ctrl-C again or Ctrl-D, or type \.exit\)\n> $/, mark, 'the hint to press Ctrl-C again')
      repl.keys('\u0003')
      assert.equal(await repl.exited, 0)
    } finally {
      repl.keys('\u0004')
    }
  })

  it('asks at the prompt about a call that needs approval: n declines it, y allows it, Ctrl-C at the question aborts the run', async () => {
    const configPath = join(temp.path, 'servers.json')
    await writeFile(
      configPath,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: installedBin('mcp-server-memory'),
            env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
          },
        },
      }),
    )
    const repl = startRepl({ CODE_RUNTIME_REPL_HISTORY: join(temp.path, 'approval-history') }, ['--config', configPath])
    const question = /Allow it\? \[y\]es, \[n\]o, \[a\]ll of this run: $/
    try {
      await repl.expect(/\n> $/, 0, 'the prompt')
      let mark = repl.output().length
      repl.line("await tools.memory_create_entities({ entities: [{ name: 'x', entityType: 't', observations: [] }] })")
      await repl.expect(/\n> $/, mark, 'the entity to be created without a question')
      mark = repl.output().length
      repl.line("await tools.memory_delete_entities({ entityNames: ['x'] })")
      await repl.expect(question, mark, 'the question')
      assert.match(repl.output().slice(mark), /wants to call memory_delete_entities with:\nentityNames\[0\]: "x"\n/)
      mark = repl.output().length
      repl.line('n')
      await repl.expect(
        /the person declined this call, so it was not made\. Their reason: declined at the terminal[\s\S]*\n> $/,
        mark,
        'the refusal',
      )
      mark = repl.output().length
      repl.line("await tools.memory_delete_entities({ entityNames: ['x'] })")
      await repl.expect(question, mark, 'the question again')
      mark = repl.output().length
      repl.keys('\u0003')
      await repl.expect(/abort: Interrupted by Ctrl-C\.\n> $/, mark, 'the run to be aborted at its question')
      mark = repl.output().length
      repl.line("await tools.memory_delete_entities({ entityNames: ['x'] })")
      await repl.expect(question, mark, 'a third question')
      mark = repl.output().length
      repl.line('y')
      await repl.expect(/\n> $/, mark, 'the allowed call to finish')
      mark = repl.output().length
      repl.line('(await tools.memory_read_graph()).entities.length')
      await repl.expect(/\n0\n> $/, mark, 'the entity to be gone')
      repl.line('.exit')
      assert.equal(await repl.exited, 0)
    } finally {
      repl.keys('\u0004')
    }
  })
})
