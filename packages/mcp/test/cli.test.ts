// The `code-runtime` bin as a user runs it: `node dist/src/cli.js <command>`, real upstream
// servers from npm, output and exit codes checked.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  childPidsOf,
  CLI_PATH,
  FLAKY_SERVER_PATH,
  installedBin,
  isAlive,
  makeTempDirectory,
  startServe,
  textOf,
  waitFor,
} from './serve-harness.js'

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url))
const EXAMPLE_CONFIG = join(EXAMPLES, 'servers.json')
const EXAMPLE_PROGRAM = join(EXAMPLES, 'programs', 'notes-digest.ts')

/** True when `specifier` resolves from here (an optional package, built). */
function isInstalled(specifier: string): boolean {
  try {
    import.meta.resolve(specifier)
    return true
  } catch {
    return false
  }
}

interface CliOutcome {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built bin to completion. */
function cli(args: readonly string[], options: { cwd?: string } = {}): Promise<CliOutcome> {
  return new Promise(resolve => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { cwd: options.cwd ?? process.cwd(), env: { PATH: process.env.PATH ?? '' } },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
      },
    )
  })
}

/** A refusal is exactly one `code-runtime: ...` line on stderr, nothing on stdout, exit code 2. */
function assertOneLineRefusal(outcome: CliOutcome, message: RegExp): void {
  assert.equal(outcome.code, 2, outcome.stderr)
  assert.equal(outcome.stdout, '')
  assert.match(outcome.stderr, /^code-runtime: [^\n]+\n$/)
  assert.match(outcome.stderr, message)
}

describe('code-runtime run', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-cli-')
  })
  after(() => temp.remove())

  it('runs the README example against the filesystem and memory servers from npm', async () => {
    const outcome = await cli(['run', EXAMPLE_PROGRAM, '--config', EXAMPLE_CONFIG])
    assert.equal(outcome.stderr, '')
    assert.equal(outcome.code, 0)
    assert.equal(
      outcome.stdout,
      [
        'read 3 notes: 2025-03-03-standup.md, 2025-03-05-design-review.md, 2025-03-07-retro.md',
        'stored 4 people, 3 projects and 5 relations in the memory graph',
        'Digest of 3 notes: 7 entities and 5 relations in the memory graph.',
        'Who works on what:',
        '  Analytical Engine: Ada Lovelace, Charles Babbage',
        '  COBOL: Grace Hopper, Jean Sammet',
        '  Compiler: Grace Hopper',
        'Due in April: COBOL, Compiler',
        'Open questions:',
        '  Who reviews the Bernoulli note before Friday? (Standup, 3 March)',
        '  Do we freeze the COBOL keyword list this month? (Design review, 5 March)',
        '  Can the style guide ship with the April release? (Retro, 7 March)',
        '',
      ].join('\n'),
    )
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(outcome.stdout.trim()), 'the README shows the output as it is')
  })

  it("runs from any directory: relative paths in the config are the config file's", async () => {
    const outcome = await cli(['run', EXAMPLE_PROGRAM, '--config', EXAMPLE_CONFIG], { cwd: temp.path })
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.match(outcome.stdout, /^read 3 notes/)
  })

  it('runs against the built-in example tools without a config, logs first, then the value', async () => {
    const program = join(temp.path, 'weather.ts')
    await writeFile(
      program,
      [
        'const { cities } = await tools.demo_list_cities()',
        'console.log(`${cities.length} cities`)',
        'const all = await Promise.all(cities.map((city: string) => tools.demo_get_weather({ city })))',
        'return all.filter((weather) => weather.sky === "clear").map((weather) => weather.city)',
      ].join('\n'),
    )
    const outcome = await cli(['run', program])
    assert.deepEqual(outcome, { code: 0, stdout: '5 cities\n[\n  "Nairobi",\n  "Rome"\n]\n', stderr: '' })
  })

  it('prints a value nested 100 000 levels deep (it used to crash the CLI)', async () => {
    const program = join(temp.path, 'deep.ts')
    await writeFile(
      program,
      'let value: unknown = 0\nfor (let level = 0; level < 100000; level++) value = [value]\nreturn value',
    )
    const outcome = await cli(['run', program, '--backend', 'worker-thread'])
    assert.equal(outcome.stderr, '')
    assert.equal(outcome.code, 0)
    assert.equal(outcome.stdout.replace(/\s/g, ''), `${'['.repeat(100_000)}0${']'.repeat(100_000)}`)
  })

  it('prints a failure on stderr after the logs and exits with 1', async () => {
    const program = join(temp.path, 'fails.ts')
    await writeFile(program, 'console.log("before")\nawait tools.demo_get_weather({ city: "Atlantis" })')
    const outcome = await cli(['run', program, '--backend', 'worker-thread'])
    assert.equal(outcome.code, 1)
    assert.equal(outcome.stdout, 'before\n')
    assert.match(
      outcome.stderr,
      /^code run failed \(exception\): ToolCallError: No weather for "Atlantis"; known cities: Lima, Nairobi, Oslo, Rome, Tokyo\./,
    )
  })

  it(
    'runs on the process backend when @code-runtime/process is installed',
    { skip: !isInstalled('@code-runtime/process') && 'needs @code-runtime/process' },
    async () => {
      const program = join(temp.path, 'process.ts')
      await writeFile(program, 'const { celsius } = await tools.demo_get_weather({ city: "Oslo" })\nreturn celsius')
      assert.deepEqual(await cli(['run', program, '--backend', 'process']), { code: 0, stdout: '4\n', stderr: '' })
    },
  )

  it('refuses a missing program file on one line', async () => {
    assertOneLineRefusal(
      await cli(['run', join(temp.path, 'nope.ts')]),
      /nope\.ts: no such file; pass the path of a TypeScript program file\./,
    )
  })
})

describe('code-runtime check, and the check before run', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let config: string
  let files: string
  // The first two calls write files; the third misspells `path`.
  const misspelled = [
    "await tools.files_write_file({ path: 'first.txt', content: 'one' })",
    "await tools.files_write_file({ path: 'second.txt', content: 'two' })",
    "return await tools.files_read_text_file({ pth: 'first.txt' })",
  ].join('\n')
  const column = (misspelled.split('\n')[2] as string).indexOf('pth') + 1
  before(async () => {
    temp = await makeTempDirectory('code-runtime-check-')
    files = join(temp.path, 'files')
    await mkdir(files)
    config = join(temp.path, 'servers.json')
    // The programs write files, and `run` has no terminal here to approve them: the config allows writes.
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: installedBin('mcp-server-filesystem'), args: ['files'], autoApprove: ['write_file'] },
        },
      }),
    )
  })
  after(() => temp.remove())

  async function programFile(name: string, text: string): Promise<string> {
    const path = join(temp.path, name)
    await writeFile(path, text)
    return path
  }

  it('check prints the misspelled field at file:line:col with its suggestion, and exits with 1', async () => {
    const program = await programFile('bad.ts', misspelled)
    const outcome = await cli(['check', program, '--config', config])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.equal(outcome.stderr, '')
    const lines = outcome.stdout.split('\n')
    assert.match(lines[0] ?? '', new RegExp(`^${program}:3:${column} - error TS\\d+: .*'pth'`))
    assert.ok(
      lines[1]?.startsWith('    ') === true && misspelled.includes(lines[1].trim()),
      `the offending text, indented: ${lines[1]}`,
    )
    assert.match(outcome.stdout, /^ {4}did you mean 'path'\?$/m)
    assert.match(
      outcome.stdout,
      new RegExp(`^${program}: 1 type error; run refuses it \\(--type-check calls\\)\\.$`, 'm'),
    )
  })

  it('check exits with 0 on the program with the field spelled right', async () => {
    const program = await programFile('good.ts', misspelled.replace('pth:', 'path:'))
    assert.deepEqual(await cli(['check', program, '--config', config]), {
      code: 0,
      stdout: `${program}: no type errors.\n`,
      stderr: '',
    })
    assert.equal(existsSync(join(files, 'first.txt')), false, 'check runs nothing')
  })

  it('check shows what calls lets through as a hint, and refuses it with --type-check strict', async () => {
    const program = await programFile('lazy.ts', "const count: number = 'three'\nreturn count")
    const calls = await cli(['check', program])
    assert.equal(calls.code, 0, calls.stdout)
    assert.match(
      calls.stdout,
      new RegExp(`^${program}:1:7 - hint TS2322: Type 'string' is not assignable to type 'number'`),
    )
    assert.match(
      calls.stdout,
      new RegExp(
        `^${program}: nothing that refuses it \\(--type-check calls\\); 1 hint, shown again if a run fails\\.$`,
        'm',
      ),
    )
    const strict = await cli(['check', program, '--type-check', 'strict'])
    assert.equal(strict.code, 1, strict.stdout)
    assert.match(strict.stdout, new RegExp(`^${program}:1:7 - error TS2322: `))
  })

  it('run refuses the misspelled program before its first call: errors on stderr, exit code 1, no file written', async () => {
    const program = await programFile('run-bad.ts', misspelled)
    const outcome = await cli(['run', program, '--config', config, '--backend', 'worker-thread'])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.equal(outcome.stdout, '')
    assert.match(outcome.stderr, new RegExp(`^${program}:3:${column} - error TS\\d+: `))
    assert.match(
      outcome.stderr,
      /^code run refused: 1 type error, so the program did not run and no tool was called \(--type-check off skips the check\)\.$/m,
    )
    assert.deepEqual([existsSync(join(files, 'first.txt')), existsSync(join(files, 'second.txt'))], [false, false])
  })

  it('check says so on one line and exits with 1 when the check cannot finish', async () => {
    const program = await programFile('deep.ts', `return ${'['.repeat(20_000)}${']'.repeat(20_000)}`)
    const outcome = await cli(['check', program])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.equal(outcome.stdout, '')
    assert.match(
      outcome.stderr,
      new RegExp(
        `^code-runtime: ${program}: the type check could not finish \\(.+\\); run would run it unchecked\\.\\n$`,
      ),
    )
  })

  it('run prints the hints of a program that passed the check and then failed, after the failure', async () => {
    const program = await programFile(
      'hinted.ts',
      "const city: number = 'Atlantis'\nawait tools.demo_get_weather({ city: String(city) })",
    )
    const outcome = await cli(['run', program, '--backend', 'worker-thread'])
    assert.equal(outcome.code, 1, outcome.stderr)
    const lines = outcome.stderr.split('\n')
    assert.match(lines[0] ?? '', /^code run failed \(exception\): ToolCallError: No weather for "Atlantis"/)
    assert.equal(lines[1], 'The type check flagged these without refusing the program; one may explain the failure:')
    assert.match(
      lines[2] ?? '',
      new RegExp(`^${program}:1:7 - hint TS2322: Type 'string' is not assignable to type 'number'`),
    )
  })

  it('run --type-check off runs it: both files are written, then the third call fails', async () => {
    const program = await programFile('run-off.ts', misspelled)
    const outcome = await cli(['run', program, '--config', config, '--type-check', 'off', '--backend', 'worker-thread'])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.match(outcome.stderr, /^code run failed \(exception\): ToolCallError: tools\.files_read_text_file: args\./)
    assert.deepEqual(
      [await readFile(join(files, 'first.txt'), 'utf8'), await readFile(join(files, 'second.txt'), 'utf8')],
      ['one', 'two'],
    )
  })
})

describe('code-runtime types and list', () => {
  it('types prints the declarations of every configured tool', async () => {
    const outcome = await cli(['types', '--config', EXAMPLE_CONFIG])
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.match(outcome.stdout, /^\/\*\* Thrown by a failed call/)
    assert.match(outcome.stdout, /notes_read_text_file\(args: /)
    assert.match(outcome.stdout, /memory_create_entities\(args: \{ entities: Entity\[\] \}\)/)
  })

  it('check finds no type error in the README example, even with --type-check strict', async () => {
    assert.deepEqual(await cli(['check', EXAMPLE_PROGRAM, '--config', EXAMPLE_CONFIG, '--type-check', 'strict']), {
      code: 0,
      stdout: `${EXAMPLE_PROGRAM}: no type errors.\n`,
      stderr: '',
    })
  })

  it('types prints the built-in example tools without a config', async () => {
    const outcome = await cli(['types'])
    assert.equal(outcome.code, 0)
    assert.match(outcome.stdout, /demo_get_weather\(args: \{/)
  })

  it('list prints servers, members with their upstream names, and the SDK size', async () => {
    const outcome = await cli(['list', '--config', EXAMPLE_CONFIG])
    assert.equal(outcome.code, 0, outcome.stderr)
    assert.match(outcome.stdout, /^notes {2}stdio: mcp-server-filesystem workspace {2}14 tools$/m)
    assert.match(outcome.stdout, /^memory {2}stdio: mcp-server-memory {2}9 tools$/m)
    assert.match(outcome.stdout, /^ {2}tools\.notes_read_text_file +read_text_file, read-only$/m)
    assert.match(
      outcome.stdout,
      /^SDK: [\d,]+ characters \(about [\d,]+ tokens\) for 23 tools; run_code shows it in full/m,
    )
  })
})

describe('code-runtime with a bad config', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-bad-config-')
  })
  after(() => temp.remove())

  async function configFile(name: string, text: string): Promise<string> {
    const path = join(temp.path, name)
    await writeFile(path, text)
    return path
  }

  it('refuses a missing file', async () => {
    assertOneLineRefusal(
      await cli(['types', '--config', join(temp.path, 'missing.json')]),
      /missing\.json: no such file; pass the path of a JSON file with "mcpServers" to --config\./,
    )
  })

  it('refuses invalid JSON, with where', async () => {
    const path = await configFile('broken.json', '{ "mcpServers": { "a": { "command": "x", } } }')
    assertOneLineRefusal(
      await cli(['list', '--config', path]),
      /broken\.json: not valid JSON at line 1, column 42 .*trailing commas are not allowed/,
    )
  })

  it('refuses an unknown field, with a suggestion', async () => {
    const path = await configFile('typo.json', JSON.stringify({ mcpServers: { files: { command: 'x', arg: ['.'] } } }))
    const program = await configFile('p.ts', 'return 1')
    assertOneLineRefusal(
      await cli(['run', program, '--config', path]),
      /typo\.json: mcpServers\.files has an unknown field "arg" \(did you mean "args"\?\)/,
    )
  })

  it('refuses a command that does not exist', async () => {
    const path = await configFile(
      'ghost.json',
      JSON.stringify({ mcpServers: { ghost: { command: 'no-such-mcp-server' } } }),
    )
    assertOneLineRefusal(
      await cli(['types', '--config', path]),
      /server "ghost": command "no-such-mcp-server" was not found on PATH or in node_modules\/\.bin; install it or fix "command"\./,
    )
  })

  it('leaves no process behind when a server misses its connect timeout', async () => {
    const marker = `silent-server-${process.pid}-${Date.now()}`
    const path = await configFile(
      'silent.json',
      JSON.stringify({
        mcpServers: {
          silent: {
            command: process.execPath,
            args: ['-e', 'setInterval(() => {}, 1000)', marker],
            connectTimeoutMs: 300,
          },
        },
      }),
    )
    assertOneLineRefusal(
      await cli(['types', '--config', path]),
      /server "silent" did not finish the MCP handshake within 300 ms \(connectTimeoutMs\)/,
    )
    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    assert.equal(processes.includes(marker), false, 'the silent server was stopped')
  })

  it('stops serve when no configured server can start', async () => {
    const path = await configFile(
      'only-ghost.json',
      JSON.stringify({ mcpServers: { ghost: { command: 'no-such-mcp-server' } } }),
    )
    const outcome = await cli(['serve', '--config', path])
    assert.equal(outcome.code, 2)
    assert.equal(outcome.stdout, '')
    assert.deepEqual(
      outcome.stderr
        .split('\n')
        .filter(Boolean)
        .map(line => line.replace(/:.*/, ':')),
      ['code-runtime:', 'code-runtime:'],
    )
    assert.match(outcome.stderr, /no configured server could be started/)
  })

  it('refuses bad usage', async () => {
    assertOneLineRefusal(
      await cli(['serve', '--config']),
      /^code-runtime: missing value for --config; see code-runtime serve --help\.$/m,
    )
    assertOneLineRefusal(await cli(['run', 'a.ts', '--timeout-ms']), /missing value for --timeout-ms/)
    assertOneLineRefusal(
      await cli(['run', 'a.ts', '--backend', 'vm']),
      /--backend must be one of "worker-thread", "process", "container"/,
    )
  })
})

describe('code-runtime explains itself', () => {
  it('prints the overview on stderr with exit code 2 when given no arguments', async () => {
    const outcome = await cli([])
    assert.equal(outcome.code, 2)
    assert.equal(outcome.stdout, '')
    assert.match(outcome.stderr, /^Usage: code-runtime <command> \[options\]\n/)
    for (const command of ['serve', 'run <program.ts>', 'check <program.ts>', 'types', 'list', 'help [command]'])
      assert.ok(outcome.stderr.includes(`\n  ${command} `), command)
    assert.match(outcome.stderr, /code-runtime help <command>/)
  })

  it('prints the overview on stdout for help and --help', async () => {
    const help = await cli(['help'])
    assert.equal(help.code, 0, help.stderr)
    assert.match(help.stdout, /^Usage: code-runtime <command> \[options\]\n/)
    assert.deepEqual(await cli(['--help']), help)
  })

  it('prints the page of one command for help <command> and <command> --help', async () => {
    const page = await cli(['help', 'run'])
    assert.equal(page.code, 0, page.stderr)
    assert.match(page.stdout, /^Usage: code-runtime run <program\.ts>/)
    for (const option of ['--config', '--backend', '--timeout-ms', '--compute-ms'])
      assert.match(page.stdout, new RegExp(`^ {2}(-c, )?${option} `, 'm'))
    assert.doesNotMatch(page.stdout, /--max-sdk-chars/)
    assert.match(page.stdout, /130 interrupted/)
    assert.deepEqual(await cli(['run', '--help']), page)
    assertOneLineRefusal(await cli(['help', 'start']), /unknown command "start"/)
  })

  it('documents --type-check on the pages of the commands that take it', async () => {
    for (const command of ['serve', 'run', 'check']) {
      const page = await cli([command, '--help'])
      assert.match(
        page.stdout,
        /^ {2}--type-check <mode> {4}calls \(default\): refuse a program only for what would certainly fail;\n {25}strict: /m,
        command,
      )
    }
    const check = await cli(['help', 'check'])
    assert.match(
      check.stdout,
      /^Usage: code-runtime check <program\.ts> \[--config servers\.json\] \[--type-check calls\|strict\]$/m,
    )
    assert.doesNotMatch(check.stdout, /--backend|--timeout-ms/)
    assert.doesNotMatch((await cli(['help', 'types'])).stdout, /--type-check/)
  })
})

describe('code-runtime budgets and Ctrl-C', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-budgets-')
  })
  after(() => temp.remove())

  it('names --timeout-ms, not the config field it sets, when a run runs out of wall time', async () => {
    const program = join(temp.path, 'waits.ts')
    await writeFile(program, 'await tools.demo_wait({ ms: 60000 })\nreturn "too late"')
    const outcome = await cli(['run', program, '--timeout-ms', '400', '--backend', 'worker-thread'])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.match(outcome.stderr, /^code run failed \(timeout\): Stopped after 400 ms of wall time \(--timeout-ms\)/)
    assert.doesNotMatch(outcome.stderr, /maxWallMs/)
  })

  it('limits compute with --compute-ms and names it', async () => {
    const program = join(temp.path, 'spins.ts')
    await writeFile(program, 'while (true) {}')
    const outcome = await cli(['run', program, '--compute-ms', '300'])
    assert.equal(outcome.code, 1, outcome.stderr)
    assert.match(outcome.stderr, /^code run failed \(timeout\): Stopped after 300 ms of compute \(--compute-ms\)/)
  })

  it('serve takes --compute-ms, and its run_code results name the option', async () => {
    const serve = await startServe(
      temp.path,
      { mcpServers: { flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH] } } },
      ['--compute-ms', '300'],
    )
    try {
      const result = await serve.runCode('while (true) {}')
      assert.equal(result.isError, true)
      assert.match(textOf(result), /^code run failed \(timeout\): Stopped after 300 ms of compute \(--compute-ms\)/)
    } finally {
      await serve.close()
    }
  })

  it('stops on Ctrl-C: prints "interrupted", exits with 130 and leaves no process behind', async () => {
    const config = join(temp.path, 'flaky.json')
    const fixtureLog = join(temp.path, 'flaky.log')
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: fixtureLog } },
        },
      }),
    )
    const program = join(temp.path, 'hangs.ts')
    await writeFile(program, 'console.log("calling")\nawait tools.flaky_hang()\nreturn "never"')
    const child = spawn(process.execPath, [CLI_PATH, 'run', program, '--config', config], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
    const pid = child.pid ?? assert.fail('no pid')
    try {
      await waitFor(
        async () => (await readFile(fixtureLog, 'utf8').catch(() => '')).includes('hang started'),
        'the program to be waiting on the hanging tool',
        60_000,
      )
      // The upstream server and the runtime's child process, whatever the backend keeps.
      const children = childPidsOf(pid)
      assert.ok(children.length > 0, 'the upstream server runs as a child')
      child.kill('SIGINT')
      const [code, signal] = await exited
      assert.deepEqual({ code, signal }, { code: 130, signal: null }, stderr)
      assert.equal(stdout, 'calling\n')
      assert.match(stderr, /^code-runtime: interrupted\n$/)
      assert.deepEqual(children.filter(isAlive), [], 'every child process was closed')
    } finally {
      child.kill('SIGKILL')
    }
  })
})

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

describe('code-runtime with a remote server', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  before(async () => {
    temp = await makeTempDirectory('code-runtime-remote-')
  })
  after(() => temp.remove())

  it('calls the tools of a Streamable HTTP server given by url', async () => {
    const port = await freePort()
    const everything = spawn(installedBin('mcp-server-everything'), ['streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let log = ''
    everything.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString()
    })
    try {
      await waitFor(() => log.includes(`listening on port ${port}`), 'the everything server to listen')
      const config = join(temp.path, 'remote.json')
      await writeFile(
        config,
        JSON.stringify({
          mcpServers: {
            remote: { url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Test': 'yes' }, include: ['get-sum'] },
          },
        }),
      )
      const program = join(temp.path, 'sum.ts')
      await writeFile(program, 'return await tools.remote_get_sum({ a: 20, b: 22 })')
      assert.deepEqual(await cli(['run', program, '--config', config, '--backend', 'worker-thread']), {
        code: 0,
        stdout: 'The sum of 20 and 22 is 42.\n',
        stderr: '',
      })
    } finally {
      everything.kill()
      await once(everything, 'exit')
    }
  })

  it('refuses a url nothing answers on, on one line', async () => {
    const port = await freePort()
    const config = join(temp.path, 'unreachable.json')
    await writeFile(config, JSON.stringify({ mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } } }))
    assertOneLineRefusal(
      await cli(['types', '--config', config]),
      new RegExp(
        `server "remote" at http://127\\.0\\.0\\.1:${port}/mcp could not be reached \\(ECONNREFUSED\\); check "url" and "headers"\\.`,
      ),
    )
  })
})
