// `code-runtime types`, `list`, a bad config and `help`: the built bin as a user runs it, output
// and exit codes checked.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { makeTempDirectory } from './serve-harness.js'
import { assertOneLineRefusal, cli, EXAMPLE_CONFIG, EXAMPLE_PROGRAM } from './cli-harness.js'

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
