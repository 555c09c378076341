/**
 * CONTRACT section #stack-privacy, no host paths: every stack the program can read shows only its own frames
 * (and built-ins it called), never a frame of the runtime around it, a host path, `file://` or
 * `node:internal`. The table covers each error the runtime hands the program and each callback
 * the runtime calls, read through every door a program has: `stack`, `String(error)`,
 * `console.log(error)`, `Error.captureStackTrace` and its own `Error.prepareStackTrace` (whose
 * CallSite objects must not name a foreign script either). The run's own failure messages are
 * held to the same rule.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CodeRuntime } from '../code-runtime.js'
import type { CodeBindingNamespace, CodeRunResult } from '../types.js'
import { assertFailure, assertNoHostPaths } from './assertions.js'
import { describeForAssertion, runProgram, useRuntime } from './runtime-fixture.js'
import type { ConformanceTarget } from './target.js'

/** Host functions whose failures the program reads. */
const TOOLS: CodeBindingNamespace = {
  global: 'tools',
  functions: {
    echo: (args: unknown) => Promise.resolve(args as null),
    fail: () => Promise.reject(new Error('refused by the host')),
    // NaN is not lossless JSON: the runtime refuses this resolution.
    notJson: () => Promise.resolve(Number.NaN as unknown as null),
    aborted: () => Promise.reject(AbortSignal.abort().reason),
  },
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
}

/**
 * Helpers every program starts with. `probe` reads the stack of the moment through each door;
 * `read` reads an error the program holds. Every frame V8 captured is asked for
 * (`stackTraceLimit = Infinity`), so a foreign frame cannot hide below the default ten.
 */
const PROBES = `
const texts = []
Error.stackTraceLimit = Infinity
function probe(label) {
  texts.push(label + ' new Error: ' + new Error('probe').stack)
  const holder = {}
  Error.captureStackTrace(holder)
  texts.push(label + ' captureStackTrace: ' + holder.stack)
  const previous = Error.prepareStackTrace
  Error.prepareStackTrace = (error, sites) => sites.map((site) => 'site: ' + [
    site.getFileName(), site.getScriptNameOrSourceURL(), site.getFunctionName(), site.getTypeName(),
    site.getMethodName(), typeof site.getThis(), typeof site.getFunction(), String(site),
  ].join(' | '))
  try {
    texts.push(label + ' prepareStackTrace:\\n' + new Error('sites').stack.join('\\n'))
  } finally {
    Error.prepareStackTrace = previous
  }
}
function read(label, error) {
  texts.push(label + ' stack: ' + String(error?.stack))
  texts.push(label + ' String: ' + String(error))
  console.log(error)
  const previous = Error.prepareStackTrace
  Error.prepareStackTrace = (error, sites) => sites.map((site) => 'site: ' + [site.getFileName(), String(site)].join(' | '))
  try {
    const holder = {}
    Error.captureStackTrace(holder)
    texts.push(label + ' captured sites:\\n' + holder.stack.join('\\n'))
  } finally {
    Error.prepareStackTrace = previous
  }
  probe(label)
}
`

/** [what the program reads, the program's own lines]; each program returns `texts`. */
const READ_CASES: readonly (readonly [string, string])[] = [
  ['a failed call', "try { await tools.fail({}) } catch (error) { read('failed call', error) }"],
  ['a refused argument', "try { await tools.echo({ f: () => 1 }) } catch (error) { read('refused argument', error) }"],
  ['a refused resolution', "try { await tools.notJson({}) } catch (error) { read('refused resolution', error) }"],
  [
    'an abort reason a tool rejects with',
    "try { await tools.aborted({}) } catch (error) { read('abort reason', error) }",
  ],
  ['a structuredClone error', "try { structuredClone(() => 1) } catch (error) { read('structuredClone', error) }"],
  ['a URL error', "try { new URL('not a url') } catch (error) { read('URL', error) }"],
  [
    'a TextDecoder error',
    "try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])) } catch (error) { read('TextDecoder', error) }",
  ],
  ['an error V8 throws in the program', "try { null.x } catch (error) { read('V8 error', error) }"],
  ['a timer callback', "await new Promise((resolve) => setTimeout(() => { probe('timer'); resolve() }, 1))"],
  ['an immediate callback', "await new Promise((resolve) => setImmediate(() => { probe('immediate'); resolve() }))"],
  ['a microtask', "await new Promise((resolve) => queueMicrotask(() => { probe('microtask'); resolve() }))"],
  [
    'a write callback',
    "await new Promise((resolve) => process.stdout.write('x', () => { probe('write callback'); resolve() }))",
  ],
  [
    'a getter the runtime reads in call arguments',
    "await tools.echo({ get a() { probe('argument getter'); return 1 } })",
  ],
  ['the code after a resolved call', "await tools.echo({}); probe('after a call')"],
  [
    'console.log of an object whose Symbol.toStringTag getter throws',
    "console.log({ get [Symbol.toStringTag]() { probe('toStringTag getter'); throw new Error('tag') } })",
  ],
]

/** [what fails the run, the program]: the failure message is checked. */
const FAILURE_CASES: readonly (readonly [string, string])[] = [
  [
    'a thrown object whose message getter reads a stack',
    "throw { name: 'Custom', get message() { return new Error('inner').stack } }",
  ],
  [
    'a thrown object whose message getter captures a stack',
    "throw { name: 'Custom', get message() { const holder = {}; Error.captureStackTrace(holder); return holder.stack } }",
  ],
  [
    'an exception thrown from a timer callback',
    "setTimeout(() => { throw new Error('late') }, 1)\nawait new Promise(() => {})",
  ],
  ['an uncaught failed call', 'await tools.fail({})'],
  ['an uncaught refused argument', 'await tools.echo({ f: () => 1 })'],
  [
    'an error whose message is the stack a prepareStackTrace hook returns',
    "Error.prepareStackTrace = (error, sites) => sites.map((site) => '    at ' + site).join('\\n')\nconst inner = new Error('inner')\nthrow new Error(inner.stack)",
  ],
]

// A stack line names either a program position or a built-in the program called (console.log
// of an error with own properties opens a brace after its last frame).
const ALLOWED_FRAME = /^\s*at (?:.*\()?(?:program\.ts:\d+:\d+|<anonymous>|index \d+|native)\)?(?: \{)?$/
// A CallSite's file is the program's, or none (a built-in).
const ALLOWED_SITE = /^site: (?:program\.ts|undefined|null|) \|/

/** Asserts `text` shows no frame outside the program and no host path. */
function assertProgramFramesOnly(text: string, label: string): void {
  assertNoHostPaths(text, label)
  for (const line of text.split('\n')) {
    if (/^\s*at /.test(line))
      assert.match(line, ALLOWED_FRAME, `${label} shows a frame outside the program: ${JSON.stringify(line)}`)
    if (line.startsWith('site: '))
      assert.match(line, ALLOWED_SITE, `${label} hands the program a CallSite outside it: ${JSON.stringify(line)}`)
  }
}

/** Everything the run shows: value, logs and failure message. */
function everythingShown(result: CodeRunResult): string {
  const texts = [...result.logs]
  if (result.error !== undefined) texts.push(result.error.message)
  if (Array.isArray(result.value)) for (const item of result.value) texts.push(String(item))
  return texts.join('\n')
}

function describeReads(runtime: () => CodeRuntime): void {
  void describe('errors and callbacks the program reads', () => {
    for (const [name, lines] of READ_CASES) {
      void it(`shows only program frames for ${name}`, async () => {
        const result = await runProgram(runtime(), { program: `${PROBES}\n${lines}\nreturn texts`, bindings: [TOOLS] })
        assert.equal(result.error, undefined, `expected the probes to run, got ${describeForAssertion(result.error)}`)
        assert.ok(Array.isArray(result.value) && result.value.length > 0, 'the probes read nothing')
        assertProgramFramesOnly(everythingShown(result), name)
      })
    }
  })
}

function describeFailures(runtime: () => CodeRuntime): void {
  void describe("the run's own failure messages [#failure-messages]", () => {
    for (const [name, program] of FAILURE_CASES) {
      void it(`names no frame outside the program for ${name}`, async () => {
        const result = await runProgram(runtime(), { program, bindings: [TOOLS] })
        assertProgramFramesOnly(assertFailure(result, 'exception'), name)
      })
    }
  })
}

/** Registers the checks that no stack the program can read shows a frame outside it. */
export function describeStackPrivacy(target: ConformanceTarget): void {
  void describe(`${target.name}: stacks show only the program [#stack-privacy]`, () => {
    const runtime = useRuntime(target)
    describeReads(runtime)
    describeFailures(runtime)
  })
}
