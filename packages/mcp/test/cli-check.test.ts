// `code-runtime check`, and the check before `run`: the built bin, real upstream servers from
// npm, diagnostics and exit codes checked.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { installedBin, makeTempDirectory } from './serve-harness.js'
import { cli } from './cli-harness.js'

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
