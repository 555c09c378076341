// `code-runtime run` as a user runs it: the built bin, real upstream servers from npm, output and
// exit codes checked.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { makeTempDirectory } from './serve-harness.js'
import { assertOneLineRefusal, cli, EXAMPLE_CONFIG, EXAMPLE_PROGRAM, isInstalled } from './cli-harness.js'

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
