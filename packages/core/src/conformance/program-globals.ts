/**
 * CONTRACT section #programs, what the program sees around it: console capture, the minimal `process`
 * shim, an empty environment, the standard authority-free globals, and nothing of the host.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import vm from 'node:vm'
import type { CodeRuntime } from '../code-runtime.js'
import { PROGRAM_GLOBALS, WITHHELD_PROGRAM_GLOBALS } from '../program-globals.js'
import type { CodeRunResult } from '../types.js'
import { assertNoHostPaths, assertValue } from './assertions.js'
import { echoTools, recordCalls } from './host-functions.js'
import { programLines, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

async function runProgramText(runtime: CodeRuntime, program: string): Promise<CodeRunResult> {
  return await runProgram(runtime, { program, bindings: [] })
}

function assertSucceeded(result: CodeRunResult): void {
  assert.equal(result.error, undefined, `the run failed: ${result.error?.message ?? ''}`)
}

function describeConsole(runtime: () => CodeRuntime): void {
  void describe('console [#console]', () => {
    void it('gives one verbatim entry per call of log, info, warn, error and debug', async () => {
      const result = await runProgramText(
        runtime(),
        programLines(
          "console.log('log')",
          "console.info('info')",
          "console.warn('warn')",
          "console.error('error')",
          "console.debug('debug')",
        ),
      )
      assertSucceeded(result)
      assert.deepEqual(result.logs, ['log', 'info', 'warn', 'error', 'debug'])
    })

    void it('keeps strings verbatim: whitespace, newlines, quotes and non-ASCII', async () => {
      const text = '  two  spaces\nsecond line\t"quoted" \\ back \u20ac \u{1F600} \u2028 end\n'
      const result = await runProgramText(runtime(), `console.log(${JSON.stringify(text)})`)
      assertSucceeded(result)
      assert.deepEqual(result.logs, [text])
    })

    void it('formats objects inspect-style', async () => {
      const result = await runProgramText(
        runtime(),
        programLines(
          'console.log({ x: 1 })',
          'class point { x = 1; y = 2 }',
          'console.log(new point())',
          "console.log(new Map([['k', 1]]))",
        ),
      )
      assertSucceeded(result)
      assert.equal(result.logs.length, 3)
      assert.match(result.logs[0] ?? '', /x: 1/)
      assert.match(result.logs[1] ?? '', /point \{ x: 1, y: 2 \}/)
      assert.match(result.logs[2] ?? '', /Map/)
    })

    void it('joins several arguments of one call into one entry', async () => {
      const result = await runProgramText(runtime(), "console.log('total', 3, { unit: 'ms' }, null, undefined)")
      assertSucceeded(result)
      assert.equal(result.logs.length, 1)
      const [entry = ''] = result.logs
      assert.match(entry, /^total 3 /)
      assert.match(entry, /unit: 'ms'/)
      assert.match(entry, /null undefined$/)
    })

    void it('shows only the given columns of console.table(data, columns), in their order, as Node does', async () => {
      const result = await runProgramText(
        runtime(),
        programLines(
          "console.table([{ a: 1, b: 'x' }, { a: 2, c: 3 }], ['c', 'a', 'zz'])",
          "console.table([1, { a: 1 }], ['a'])",
          "console.table({ r1: { a: 1 }, r2: { b: 2 } }, ['b'])",
          "console.table(5, ['a'])",
          'let refused = false',
          "try { console.table([{ a: 1 }], 'a') } catch (error) { refused = error instanceof TypeError }",
          'return refused',
        ),
      )
      assertValue(result, true)
      // Node 20's own console.table prints exactly these tables for the same calls.
      assert.deepEqual(result.logs, [
        [
          '┌─────────┬───┬───┬────┐',
          '│ (index) │ c │ a │ zz │',
          '├─────────┼───┼───┼────┤',
          '│ 0       │   │ 1 │    │',
          '│ 1       │ 3 │ 2 │    │',
          '└─────────┴───┴───┴────┘',
        ].join('\n'),
        [
          '┌─────────┬───┐',
          '│ (index) │ a │',
          '├─────────┼───┤',
          '│ 0       │   │',
          '│ 1       │ 1 │',
          '└─────────┴───┘',
        ].join('\n'),
        [
          '┌─────────┬───┐',
          '│ (index) │ b │',
          '├─────────┼───┤',
          '│ r1      │   │',
          '│ r2      │ 2 │',
          '└─────────┴───┘',
        ].join('\n'),
        '5',
      ])
    })

    void it('produces one entry per call of the other printing console methods', async () => {
      const calls: readonly (readonly [call: string, fragment: RegExp])[] = [
        ["console.trace('traced')", /traced/],
        ['console.dir({ dir: 1 })', /dir: 1/],
        ["console.dirxml('markup')", /markup/],
        ["console.table([{ column: 'cell' }])", /cell/],
        ["console.assert(false, 'assertion text')", /assertion text/],
        ["console.count('counter')", /counter: 1/],
        ["console.group('group label')", /group label/],
        ['console.groupEnd()', /./],
        ["console.groupCollapsed('collapsed label')", /collapsed label/],
        ['console.groupEnd()', /./],
        ["console.time('timer')", /./],
        ["console.timeEnd('timer')", /timer/],
      ]
      const printing = calls.filter(([call]) => !/groupEnd|console\.time\(/.test(call))
      const result = await runProgramText(runtime(), calls.map(([call]) => call).join('\n'))
      assertSucceeded(result)
      assert.equal(result.logs.length, printing.length, `one entry per printing call: ${JSON.stringify(result.logs)}`)
      printing.forEach(([call, fragment], index) => {
        assert.match(result.logs[index] ?? '', fragment, `the entry of ${call}`)
        assertNoHostPaths(result.logs[index] ?? '', `the entry of ${call}`)
      })
    })
  })
}

function describeProcessShim(runtime: () => CodeRuntime): void {
  void describe('process shim [#process-shim]', () => {
    void it('captures each stdout and stderr write as one verbatim entry, returning true', async () => {
      const result = await runProgramText(
        runtime(),
        programLines(
          "const toStdout = process.stdout.write('a\\n')",
          "const toStderr = process.stderr.write('b')",
          "console.log('c')",
          'return [toStdout, toStderr]',
        ),
      )
      assertValue(result, [true, true])
      assert.deepEqual(result.logs, ['a\n', 'b', 'c'])
    })

    void it('calls a write callback asynchronously', async () => {
      const result = await runProgramText(
        runtime(),
        programLines(
          'let called = false',
          "const done = new Promise((resolve) => process.stdout.write('with callback', () => { called = true; resolve(null) }))",
          'const calledSynchronously = called',
          "await new Promise((resolve) => process.stderr.write('on stderr', resolve))",
          'await done',
          'return [calledSynchronously, called]',
        ),
      )
      assertValue(result, [false, true])
      assert.deepEqual(result.logs, ['with callback', 'on stderr'])
    })

    void it('offers an empty process.env', async () => {
      const result = await runProgramText(
        runtime(),
        'return [typeof process.env, Object.keys(process.env).length, process.env.PATH === undefined, process.env.HOME === undefined]',
      )
      assertValue(result, ['object', 0, true, true])
    })

    void it("exposes nothing else of Node's process", async () => {
      const members = [
        'exit',
        'argv',
        'cwd',
        'chdir',
        'binding',
        'dlopen',
        'kill',
        'on',
        'nextTick',
        'versions',
        'memoryUsage',
        'mainModule',
        'execPath',
        'pid',
      ]
      const result = await runProgramText(
        runtime(),
        `return [${members.map(member => `typeof process.${member}`).join(', ')}]`,
      )
      assertValue(
        result,
        members.map(() => 'undefined'),
      )
    })

    void it('lets a namespace named process replace the shim', async () => {
      const result = await runProgram(runtime(), {
        program: 'return [typeof process.stdout, await process.lookup(7)]',
        bindings: [{ global: 'process', functions: { lookup: recordCalls(args => `looked up ${String(args)}`).fn } }],
      })
      assertValue(result, ['undefined', 'looked up 7'])
    })
  })
}

function describeStandardGlobals(runtime: () => CodeRuntime): void {
  void describe('standard globals [#standard-globals]', () => {
    void it('offers setTimeout, clearTimeout, setInterval and clearInterval', async () => {
      const result = await runProgramText(
        runtime(),
        programLines(
          'const waited = await new Promise((resolve) => setTimeout(() => resolve(true), 1))',
          "const cancelled = setTimeout(() => { throw new Error('a cleared timer ran') }, 1)",
          'clearTimeout(cancelled)',
          'let ticks = 0',
          'await new Promise((resolve) => { const interval = setInterval(() => { if (++ticks === 2) { clearInterval(interval); resolve(null) } }, 1) })',
          'await new Promise((resolve) => setTimeout(resolve, 5))',
          'return [waited, ticks]',
        ),
      )
      assertValue(result, [true, 2])
    })

    void it('offers structuredClone', async () => {
      const program =
        'const original = { list: [1, { deep: true }] }\nconst clone = structuredClone(original)\nreturn [clone !== original, clone.list[1] !== original.list[1], clone]'
      assertValue(await runProgramText(runtime(), program), [true, true, { list: [1, { deep: true }] }])
    })

    void it('offers TextEncoder and TextDecoder', async () => {
      const program =
        "const bytes = new TextEncoder().encode('\u20ac')\nreturn [bytes.length, new TextDecoder().decode(bytes)]"
      assertValue(await runProgramText(runtime(), program), [3, '\u20ac'])
    })

    void it('offers URL and URLSearchParams', async () => {
      const program =
        "const url = new URL('https://example.com/path?q=1')\nreturn [url.host, url.searchParams.get('q'), new URLSearchParams('a=2').get('a')]"
      assertValue(await runProgramText(runtime(), program), ['example.com', '1', '2'])
    })

    void it('offers atob and btoa', async () => {
      assertValue(await runProgramText(runtime(), "return [btoa('hi'), atob('aGk=')]"), ['aGk=', 'hi'])
    })

    void it('offers crypto.randomUUID', async () => {
      const program =
        'const uuid = crypto.randomUUID()\nreturn [/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid), uuid !== crypto.randomUUID()]'
      assertValue(await runProgramText(runtime(), program), [true, true])
    })

    void it('gives exactly the ECMAScript intrinsics and PROGRAM_GLOBALS, and nothing of V8 it withholds [#standard-globals]', async () => {
      // The intrinsics of a fresh context of this Node: a remote runner's Node may know a few more
      // or fewer, so only names of neither list, and missing promised ones, are failures.
      const intrinsics = new Set<string>(vm.runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[])
      const result = await runProgramText(runtime(), 'return Object.getOwnPropertyNames(globalThis)')
      assert.equal(result.error, undefined, JSON.stringify(result.error))
      const names = result.value as string[]
      assert.deepEqual(
        names.filter(name => !intrinsics.has(name) && !PROGRAM_GLOBALS.includes(name)),
        [],
        'globals no list promises',
      )
      assert.deepEqual(
        PROGRAM_GLOBALS.filter(name => !names.includes(name)),
        [],
        'promised globals missing',
      )
      assert.deepEqual(
        WITHHELD_PROGRAM_GLOBALS.filter(name => names.includes(name)),
        [],
        'withheld globals present',
      )
    })

    void it('gives the program no object of another realm through bindings, their results or their errors [#no-foreign-realm]', async () => {
      // An object of the host's (or the substrate's own) realm leads to that realm's Function
      // constructor, which evaluates code where Node's real process lives: a sandbox escape.
      // Every value's constructor's constructor must be the program realm's own Function.
      const { namespace } = echoTools()
      const failing = {
        global: 'failing',
        functions: { fail: () => Promise.reject(new Error('no')) },
        errorClass: { name: 'FailError', memberNameProperty: 'member' },
      }
      const probed = [
        'tools.echo',
        'pending',
        'resolved',
        'resolved.a',
        'caught',
        'FailError',
        'process.stdout.write',
        'process.env',
        'console.log',
        'console',
      ]
      const result = await runProgram(runtime(), {
        program: programLines(
          'const programFunction = (() => {}).constructor',
          'const sameRealm = (value) => { try { return value.constructor.constructor === programFunction } catch { return true } }',
          'const pending = tools.echo({ a: [1] })',
          'const resolved = await pending',
          'let caught',
          'try { await failing.fail({}) } catch (error) { caught = error }',
          `return { ${probed.map(expression => `${JSON.stringify(expression)}: sameRealm(${expression})`).join(', ')} }`,
        ),
        bindings: [namespace, failing],
      })
      assertValue(result, Object.fromEntries(probed.map(expression => [expression, true])))
    })
  })
}

/** Registers the checks of CONTRACT section #programs about the program's globals. */
export function describeProgramGlobals(target: ConformanceTarget): void {
  void describe(`${target.name}: console, process and globals [#programs]`, () => {
    const runtime = useRuntime(target)
    describeConsole(runtime)
    describeProcessShim(runtime)
    describeStandardGlobals(runtime)
  })
}
