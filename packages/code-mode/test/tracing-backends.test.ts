/**
 * Parenting under load, whatever backend runs the program (worker thread, child process,
 * container, NATS with two runners): many runs, several at once, each making parallel calls
 * (`Promise.all`), every call's tool making a span of its own. The backends deliver calls from
 * their message handling (a worker's port, a child's pipe, a NATS subscription), never from the run's async
 * context, so this is where traces break if a parent is read from the wrong place: every call must
 * be an `execute_tool` child of its own run's `execute` span, every tool's span a child of its own
 * call, and no span an orphan.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { trace } from '@opentelemetry/api'
import { startCodeRuntime } from '@code-runtime/core'
import { ContainerCodeRuntime, ProcessCodeRuntime } from '@code-runtime/process'
import { NatsCodeRuntime, startRunner, type Runner } from '@code-runtime/nats'
import { startNatsServer } from '@code-runtime/nats/local-server'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { createCodeMode, type CodeModeRuntime, type CodeModeTool } from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'
import { recordedText, registerTestTracing, SpanTree } from './trace-support.js'

const exporter = registerTestTracing()
const testTracer = trace.getTracer('code-mode-tracing-test')
const CALLS_PER_RUN = 3
const RUNS_AT_ONCE = 4

const lookup: CodeModeTool = {
  name: 'lookup',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  annotations: { readOnlyHint: true },
  // The tool's own span carries the key it was given: it must sit under the call that passed it.
  execute: args =>
    testTracer.startActiveSpan('lookup.inner', async span => {
      const key = (args as { key: string }).key
      span.setAttribute('test.key', key)
      // Calls of one run settle out of order.
      await new Promise(resolve => setTimeout(resolve, key.endsWith('.0') ? 2 : 0))
      span.end()
      return key
    }),
}

/** Runs `count` programs, `RUNS_AT_ONCE` at a time, each under a caller span naming its run. */
async function runMany(runtime: CodeModeRuntime, count: number): Promise<void> {
  const codeMode = createCodeMode({ tools: [lookup], runtime, typeCheck: 'off' })
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < count) {
      const run = next++
      await testTracer.startActiveSpan('caller', async span => {
        span.setAttribute('test.run', run)
        try {
          // The key travels as program data, so the program text stays the same: SECRET-PROGRAM
          // stands for a program's text, which no span may show.
          const output = await codeMode.run(
            `const run = ${run}; const marker = 'SECRET-PROGRAM'\n` +
              `return await Promise.all([0, 1, 2].map(i => tools.lookup({ key: 'SECRET-ARG.' + run + '.' + i })))`,
          )
          assert.equal(output.isError, false, output.text)
        } finally {
          span.end()
        }
      })
    }
  }
  await Promise.all(Array.from({ length: RUNS_AT_ONCE }, lane))
}

/**
 * Every call a child of its own run's `execute`, every tool span under its own call, no orphan;
 * beside the calls, the `acquire` spans: the engine's, and over NATS also the caller's wait for a
 * runner's claim (the runner's engine makes its own under the context the start carried).
 */
function assertParenting(count: number, acquiresPerRun = 1): void {
  const tree = new SpanTree(exporter.getFinishedSpans())
  assert.equal(tree.orphans().length, 0)
  const callers = tree.named('caller')
  assert.equal(callers.length, count)
  let calls = 0
  for (const caller of callers) {
    const run = caller.attributes['test.run']
    const runs = tree.childrenOf(caller)
    assert.deepEqual(
      runs.map(span => span.name),
      ['run_code'],
    )
    const executes = tree.childrenOf(runs[0] as (typeof runs)[number]).filter(span => span.name === 'execute')
    assert.equal(executes.length, 1)
    const children = tree.childrenOf(executes[0] as (typeof executes)[number])
    // Beside the calls, the engine's wait for a substrate, where the engine runs in this process.
    const acquires = children.filter(span => span.name === 'acquire')
    assert.equal(acquires.length, acquiresPerRun)
    if (acquiresPerRun === 2) {
      assert.deepEqual(
        acquires.map(span => span.attributes['code_runtime.substrate.source'] === 'claimed').sort(),
        [false, true],
        'one acquire is the claim by a runner, the other the runner engine’s substrate',
      )
    }
    const toolCalls = children.filter(span => span.name !== 'acquire')
    assert.equal(toolCalls.length, CALLS_PER_RUN)
    const keys: string[] = []
    for (const call of toolCalls) {
      assert.equal(call.name, 'execute_tool lookup')
      assert.equal(call.attributes['gen_ai.operation.name'], 'execute_tool')
      const inner = tree.childrenOf(call)
      assert.equal(inner.length, 1)
      keys.push(String(inner[0]?.attributes['test.key']))
      calls++
    }
    assert.deepEqual(
      keys.sort(),
      [0, 1, 2].map(i => `SECRET-ARG.${run}.${i}`),
    )
  }
  assert.equal(calls, count * CALLS_PER_RUN)
  assert.equal(tree.named('execute_tool lookup').length, calls)
  // Only the test's own span shows a key; Code Mode's spans show no program text and no argument.
  const ours = tree.spans.filter(span => span.instrumentationScope.name === '@code-runtime/code-mode')
  assert.ok(!/SECRET/.test(recordedText(ours)))
}

describe('tracing: parents of parallel calls on every backend', () => {
  it('parents 1 000 runs of 3 parallel calls each on worker threads', async () => {
    exporter.reset()
    const started = await startRuntime({ reuseWorkers: true })
    try {
      await runMany(started.runtime, 1_000)
    } finally {
      await started.dispose()
    }
    assertParenting(1_000)
  })

  it('parents 1 000 runs of 3 parallel calls each in child processes', async () => {
    exporter.reset()
    const started = await startCodeRuntime(ProcessCodeRuntime, {})
    try {
      await runMany(started.runtime, 1_000)
    } finally {
      await started.dispose()
    }
    assertParenting(1_000)
  })

  it('parents 1 000 runs of 3 parallel calls each in bubblewrap containers', async () => {
    exporter.reset()
    const started = await startCodeRuntime(ContainerCodeRuntime, {})
    try {
      await runMany(started.runtime, 1_000)
    } finally {
      await started.dispose()
    }
    assertParenting(1_000)
  })

  it('parents 1 000 runs of 3 parallel calls each sent over NATS to two runners', async () => {
    exporter.reset()
    const auth = { user: 'tracing', pass: 'tracing-secret' }
    const server = await startNatsServer(auth)
    const runners: Runner[] = []
    try {
      for (const id of ['runner-1', 'runner-2'])
        runners.push(
          await startRunner({
            nats: { servers: server.url, ...auth },
            id,
            concurrency: RUNS_AT_ONCE,
            startBackend: budgets => startCodeRuntime(WorkerThreadCodeRuntime, budgets),
          }),
        )
      const started = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, ...auth })
      try {
        await runMany(started.runtime, 1_000)
      } finally {
        await started.dispose()
      }
    } finally {
      await Promise.all(runners.map(runner => runner.drain(1_000)))
      await server.dispose()
    }
    assertParenting(1_000, 2)
  })
})
