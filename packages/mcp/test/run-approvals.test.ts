// `code-runtime run` asking the person at the terminal about calls that need approval, through a
// real pseudo-terminal (util-linux `script`), against a real memory server from npm whose delete
// tools are destructive: `n` declines (the program sees the refusal and goes on), `a` allows the
// rest of the run, `--yes` asks nothing, and without a terminal such calls are declined.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CLI_PATH, installedBin, makeTempDirectory, waitFor } from './serve-harness.js'

const PROGRAM = [
  "await tools.memory_create_entities({ entities: [{ name: 'a', entityType: 't', observations: [] }, { name: 'b', entityType: 't', observations: [] }] })",
  'const outcomes = []',
  "for (const name of ['a', 'b']) {",
  '  try { await tools.memory_delete_entities({ entityNames: [name] }); outcomes.push(`deleted ${name}`) }',
  '  catch (error) { outcomes.push(error.message) }',
  '}',
  'return outcomes.join(" | ")',
].join('\n')

/** `run` on a pty; `answers` are typed, one per question, as each question appears. */
async function runOnTerminal(
  args: readonly string[],
  answers: readonly string[],
): Promise<{ output: string; code: number | null }> {
  const command = [process.execPath, CLI_PATH, 'run', ...args].map(part => JSON.stringify(part)).join(' ')
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm', NO_COLOR: '1' },
  })
  let printed = ''
  child.stdout.on('data', (chunk: Buffer) => {
    printed += chunk
      .toString()
      // eslint-disable-next-line no-control-regex -- escape sequences of readline and the progress line are not text
      .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
      .replace(/\r/g, '')
  })
  // 'close', not 'exit': the last output may still be on its way when the process exits.
  const exited = new Promise<number | null>(resolve => child.on('close', code => resolve(code)))
  for (const [index, answer] of answers.entries()) {
    await waitFor(
      () => (printed.match(/Allow it\? \[y\]es, \[n\]o, \[a\]ll of this run: /g) ?? []).length > index,
      `question ${index + 1}; printed ${JSON.stringify(printed)}`,
      30_000,
    )
    child.stdin.write(`${answer}\r`)
  }
  const code = await exited
  return { output: printed, code }
}

describe('code-runtime run: approvals at the terminal', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let programPath: string
  let configPath: string
  before(async () => {
    temp = await makeTempDirectory('code-runtime-run-approvals-')
    programPath = join(temp.path, 'program.ts')
    configPath = join(temp.path, 'servers.json')
    await writeFile(programPath, PROGRAM)
  })
  after(() => temp.remove())

  async function freshMemory(name: string): Promise<void> {
    await writeFile(
      configPath,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: installedBin('mcp-server-memory'),
            env: { MEMORY_FILE_PATH: join(temp.path, `${name}.jsonl`) },
          },
        },
      }),
    )
  }

  it('asks for each call: n declines it and the program goes on, y allows the next', async () => {
    await freshMemory('ny')
    const { output, code } = await runOnTerminal(
      [programPath, '--config', configPath, '--backend', 'worker-thread'],
      ['n', 'y'],
    )
    assert.equal(code, 0, output)
    assert.match(output, /wants to call memory_delete_entities with:\nentityNames\[0\]: "a"\nAllow it\?/)
    assert.match(
      output,
      /tools\.memory_delete_entities: the person declined this call, so it was not made\. Their reason: declined at the terminal \| deleted b/,
    )
  })

  // Attack: a long first value pushes the dangerous one past a cut question.
  it('shows the argument after a long one in the question', async () => {
    await freshMemory('hiding')
    const hidingPath = join(temp.path, 'hiding.ts')
    await writeFile(
      hidingPath,
      "try { await tools.memory_delete_entities({ entityNames: ['x'.repeat(4100), '/DANGER/everything'] }) } catch (error) { return error.message }",
    )
    const { output, code } = await runOnTerminal(
      [hidingPath, '--config', configPath, '--backend', 'worker-thread'],
      ['n'],
    )
    assert.equal(code, 0, output)
    assert.match(
      output,
      /entityNames\[0\]: "x+ …\[3902 characters left out\]… x+"\nentityNames\[1\]: "\/DANGER\/everything"\nAllow it\?/,
    )
  })

  it('asks once when the answer is a (the rest of the run)', async () => {
    await freshMemory('all')
    const { output, code } = await runOnTerminal(
      [programPath, '--config', configPath, '--backend', 'worker-thread'],
      ['a'],
    )
    assert.equal(code, 0, output)
    assert.equal((output.match(/Allow it\?/g) ?? []).length, 1)
    assert.match(output, /deleted a \| deleted b/)
  })

  it('asks nothing with --yes', async () => {
    await freshMemory('yes')
    const { output, code } = await runOnTerminal(
      [programPath, '--config', configPath, '--backend', 'worker-thread', '--yes'],
      [],
    )
    assert.equal(code, 0, output)
    assert.doesNotMatch(output, /Allow it\?/)
    assert.match(output, /deleted a \| deleted b/)
  })

  it('declines such calls without a terminal, saying how to allow them', async () => {
    await freshMemory('pipe')
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI_PATH, 'run', programPath, '--config', configPath, '--backend', 'worker-thread'],
      { env: { PATH: process.env.PATH ?? '' } },
    )
    assert.match(
      stdout,
      /declined without asking anyone: there is no terminal to ask at \(run with --yes to allow such calls\)\. The call was not made\. \| .*no terminal/,
    )
  })
})
