// Runs the built-ins tests of a local test262 checkout through a sandbox backend and through a
// plain `vm` context, and prints how many pass in each: a test that passes in the plain context
// and fails in the sandbox is a place where the sandbox's guards change the language.
//
//   node scripts/test262.mjs <test262-dir> [--backend worker-thread|process] [--jobs N]
//        [--only Array/prototype/indexOf,...] [--list]
//
// Build first (`npm run build`). No test262 code is part of this repository: give the path of
// your own checkout (git clone https://github.com/tc39/test262).
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import vm from 'node:vm'
/* global AbortController */
import { startCodeRuntime } from '@code-runtime/core'

/** The built-ins the sandbox's guards and context scripts replace or wrap. */
const DEFAULT_DIRECTORIES = [
  'Array',
  'String',
  'Map',
  'Set',
  'JSON',
  'Error',
  'ArrayBuffer',
  'TypedArray',
  'TypedArrayConstructors',
  'RegExp/prototype/Symbol.split',
  'RegExp/prototype/Symbol.match',
  'RegExp/prototype/Symbol.replace',
  'Object/keys',
  'Object/values',
  'Object/entries',
  'Object/getOwnPropertyNames',
  'Object/getOwnPropertyDescriptors',
  'Object/assign',
  'Object/freeze',
  'Object/seal',
  'Reflect/ownKeys',
]

function readOptions(argv) {
  const options = { root: undefined, backend: 'worker-thread', jobs: 2, only: DEFAULT_DIRECTORIES, list: false }
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]
    if (argument === '--backend') options.backend = argv[++index]
    else if (argument === '--jobs') options.jobs = Number(argv[++index])
    else if (argument === '--only') options.only = argv[++index].split(',')
    else if (argument === '--list') options.list = true
    else if (options.root === undefined) options.root = argument
    else throw new Error(`Unknown argument ${argument}`)
  }
  if (options.root === undefined)
    throw new Error(
      'Usage: node scripts/test262.mjs <test262-dir> [--backend worker-thread|process] [--jobs N] [--only dirs] [--list]',
    )
  if (!['worker-thread', 'process'].includes(options.backend))
    throw new Error(`--backend is worker-thread or process, not ${options.backend}`)
  if (!(options.jobs >= 1)) throw new Error('--jobs is a positive number')
  return options
}

function testFiles(directory) {
  const found = []
  for (const name of readdirSync(directory).sort()) {
    const path = join(directory, name)
    if (statSync(path).isDirectory()) found.push(...testFiles(path))
    else if (name.endsWith('.js') && !name.includes('_FIXTURE')) found.push(path)
  }
  return found
}

/** The front matter fields a run needs: includes, flags and the negative expectation. */
function metadataOf(source) {
  const block = /\/\*---([\s\S]*?)---\*\//.exec(source)?.[1] ?? ''
  const listField = name => {
    const inline = new RegExp(`^\\s*${name}:\\s*\\[([^\\]]*)\\]`, 'm').exec(block)
    if (inline)
      return inline[1]
        .split(',')
        .map(item => item.trim())
        .filter(Boolean)
    const multiline = new RegExp(`^\\s*${name}:\\s*\\n((?:\\s+-\\s*.+\\n?)+)`, 'm').exec(block)
    return multiline
      ? multiline[1]
          .split('\n')
          .map(line => line.replace(/^\s*-\s*/, '').trim())
          .filter(Boolean)
      : []
  }
  const negative =
    /^\s*negative:\s*\n\s+phase:\s*(\S+)\s*\n\s+type:\s*(\S+)/m.exec(block) ??
    /^\s*negative:\s*\n\s+type:\s*(\S+)\s*\n\s+phase:\s*(\S+)/m.exec(block)
  const flags = listField('flags')
  return {
    includes: listField('includes'),
    flags,
    negativeType: negative === null ? undefined : /^\s*negative:\s*\n\s+phase/m.test(block) ? negative[2] : negative[1],
  }
}

/** The modes a test runs in, each as the program text of the sandbox's async function body. */
function runsOf(root, file, harness) {
  const source = readFileSync(file, 'utf8')
  const metadata = metadataOf(source)
  if (metadata.flags.includes('module') || metadata.flags.includes('CanBlockIsTrue')) return []
  const prelude = metadata.flags.includes('raw')
    ? ''
    : [
        HOST_PRELUDE,
        harness('assert.js'),
        harness('sta.js'),
        ...(metadata.flags.includes('async') ? [harness('doneprintHandle.js')] : []),
        ...metadata.includes.map(harness),
      ].join('\n')
  const modes =
    metadata.flags.includes('raw') || metadata.flags.includes('noStrict')
      ? ['non-strict']
      : metadata.flags.includes('onlyStrict')
        ? ['strict']
        : ['non-strict', 'strict']
  const name = relative(join(root, 'test', 'built-ins'), file)
  return modes.map(mode => ({
    name: `${name} (${mode})`,
    program: `${mode === 'strict' ? '"use strict";\n' : ''}${prelude}\n${source}`,
    async: metadata.flags.includes('async'),
    negativeType: metadata.negativeType,
  }))
}

// What test262 asks of its host, the same in both realms: print, and $262.
const HOST_PRELUDE = `
var print = function (message) { console.log(String(message)) };
var $262 = {
  global: globalThis,
  // A program cannot detach a buffer in the sandbox (its structuredClone copies): the tests that
  // need it fail in both realms alike and so count in neither comparison.
  detachArrayBuffer: function () { throw new Test262Error('this host cannot detach an ArrayBuffer') },
};`

/** Whether an outcome is what the test expects. */
function judged(run, outcome) {
  if (run.negativeType !== undefined) {
    return outcome.error !== undefined && new RegExp(`^${run.negativeType}\\b`).test(outcome.error) ? 'pass' : 'fail'
  }
  if (outcome.error !== undefined) return 'fail'
  if (run.async) return outcome.logs.some(line => line === 'Test262:AsyncTestComplete') ? 'pass' : 'fail'
  return 'pass'
}

const WRAPPER_HEAD = '(async function () {\n'
const WRAPPER_TAIL = '\n})()'

/** A plain context, made as the sandbox makes one (no code generation from strings). */
async function runPlain(run) {
  const logs = []
  const context = vm.createContext({}, { codeGeneration: { strings: false, wasm: false } })
  context.console = { log: message => logs.push(String(message)) }
  // The realm's own Error.prototype.toString: what the sandbox reports.
  const describe = vm.runInContext(
    '(error) => { try { return error instanceof Error ? error.name + ": " + error.message : String(error) } catch { return "unprintable" } }',
    context,
  )
  try {
    const script = new vm.Script(`${WRAPPER_HEAD}${run.program}${WRAPPER_TAIL}`, { filename: 'program.ts' })
    const giveUp = new AbortController()
    try {
      await Promise.race([
        script.runInContext(context, { timeout: 10_000 }),
        delay(10_000, undefined, { signal: giveUp.signal }).catch(() => {}),
      ])
    } finally {
      giveUp.abort()
    }
    // An async test reports from a later turn.
    await delay(0)
    return { logs }
  } catch (error) {
    return { logs, error: describe(error) }
  }
}

async function startBackend(backend) {
  if (backend === 'worker-thread') {
    const { WorkerThreadCodeRuntime } = await import('@code-runtime/worker-thread')
    return startCodeRuntime(WorkerThreadCodeRuntime, { reuseWorkers: true, computeMs: 10_000, maxWallMs: 20_000 })
  }
  const { ProcessCodeRuntime } = await import('@code-runtime/process')
  return startCodeRuntime(ProcessCodeRuntime, { computeMs: 10_000, maxWallMs: 20_000, spawnAhead: 2 })
}

async function runSandboxed(runtime, run) {
  const result = await runtime.run({ program: run.program, bindings: [] })
  return { logs: result.logs, error: result.error === undefined ? undefined : result.error.message }
}

async function inParallel(items, jobs, work) {
  let next = 0
  const workers = Array.from({ length: Math.min(jobs, items.length) }, async () => {
    while (next < items.length) {
      const index = next++
      await work(items[index], index)
    }
  })
  await Promise.all(workers)
}

const options = readOptions(process.argv.slice(2))
const harnessCache = new Map()
const harness = name => {
  if (!harnessCache.has(name)) harnessCache.set(name, readFileSync(join(options.root, 'harness', name), 'utf8'))
  return harnessCache.get(name)
}
const runs = []
let files = 0
for (const directory of options.only) {
  for (const file of testFiles(join(options.root, 'test', 'built-ins', directory))) {
    files++
    runs.push(...runsOf(options.root, file, harness))
  }
}
const started = await startBackend(options.backend)
const counts = { plainPass: 0, sandboxPass: 0, onlySandboxFails: 0, onlyPlainFails: 0, transformFails: 0 }
/** The type stripper refuses what TypeScript does not parse (a `with` statement): not a guard's doing. */
const isTransformFailure = error => error !== undefined && /^Line \d+, col \d+: SyntaxError/.test(error)
const differences = []
try {
  await inParallel(runs, options.jobs, async run => {
    const plain = judged(run, await runPlain(run))
    const sandboxOutcome = await runSandboxed(started.runtime, run)
    const sandbox = judged(run, sandboxOutcome)
    if (plain === 'pass') counts.plainPass++
    if (sandbox === 'pass') counts.sandboxPass++
    if (plain === 'pass' && sandbox === 'fail' && isTransformFailure(sandboxOutcome.error)) counts.transformFails++
    else if (plain === 'pass' && sandbox === 'fail') {
      counts.onlySandboxFails++
      differences.push(`${run.name}: ${(sandboxOutcome.error ?? 'no completion').split('\n')[0].slice(0, 200)}`)
    }
    if (plain === 'fail' && sandbox === 'pass') counts.onlyPlainFails++
  })
} finally {
  await started.dispose()
}
if (options.list) for (const line of differences.sort()) console.log(line)
console.log(
  `${files} files, ${runs.length} runs on ${options.backend}: ${counts.plainPass} pass in a plain vm context, ${counts.sandboxPass} in the sandbox; ` +
    `${counts.onlySandboxFails} fail only in the sandbox (and ${counts.transformFails} more that the type stripper refuses), ${counts.onlyPlainFails} only in the plain context.`,
)
