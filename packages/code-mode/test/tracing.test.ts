/**
 * OpenTelemetry spans of Code Mode runs, read back from the SDK's in-memory exporter (registered
 * in this test process, as an application would): the span tree of one run, the check's verdict,
 * failed and declined calls, approval waits, logs as bounded events, and what is recorded only on
 * request. Real worker-thread runs throughout.
 */
import { after, before, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SpanStatusCode, trace } from '@opentelemetry/api'
import { createCodeMode, CodeModeError, type CodeModeTool } from '@code-runtime/code-mode'
import { sleep, startRuntime } from './code-mode-runtime.js'
import { recordedText, registerTestTracing, SpanTree } from './trace-support.js'

const exporter = registerTestTracing()
const testTracer = trace.getTracer('code-mode-tracing-test')

function tools(): CodeModeTool[] {
  return [
    {
      name: 'lookup',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      annotations: { readOnlyHint: true },
      // A tool's own span: it must nest under the call that ran it.
      execute: args =>
        testTracer.startActiveSpan('lookup.inner', async span => {
          await sleep(1)
          span.end()
          return `value of ${(args as { key: string }).key}`
        }),
    },
    {
      name: 'explode',
      inputSchema: { type: 'object', properties: {} },
      execute: () => {
        throw Object.assign(new Error('disk full: SECRET-MESSAGE'), { code: 'E_DISK_FULL' })
      },
    },
    {
      name: 'send',
      inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      needsApproval: true,
      execute: () => Promise.resolve('sent'),
    },
  ]
}

describe('tracing: the spans of a run', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })
  beforeEach(() => exporter.reset())

  it('nests run_code under the caller, and check, execute, each call and the tool’s own spans under it', async () => {
    const codeMode = createCodeMode({ tools: tools(), runtime: started.runtime })
    await codeMode.check('') // a warm checker: the check overlaps the run
    exporter.reset()
    const output = await testTracer.startActiveSpan('caller', async span => {
      try {
        return await codeMode.run(
          "const found = await Promise.all([tools.lookup({ key: 'a' }), tools.lookup({ key: 'b' })])\nconsole.log('SECRET-LOG')\nreturn found",
        )
      } finally {
        span.end()
      }
    })
    assert.equal(output.isError, false)
    const tree = new SpanTree(exporter.getFinishedSpans())
    assert.deepEqual(tree.orphans(), [])
    assert.deepEqual(tree.spans.map(span => tree.pathOf(span)).sort(), [
      'acquire < execute < run_code < caller',
      'caller',
      'check < run_code < caller',
      'execute < run_code < caller',
      'execute_tool lookup < execute < run_code < caller',
      'execute_tool lookup < execute < run_code < caller',
      'lookup.inner < execute_tool lookup < execute < run_code < caller',
      'lookup.inner < execute_tool lookup < execute < run_code < caller',
      'run_code < caller',
    ])
    const [run] = tree.named('run_code')
    assert.equal(run?.attributes['code_runtime.backend'], 'worker-thread')
    assert.match(String(run?.attributes['code_runtime.program.sha256']), /^[0-9a-f]{64}$/)
    assert.equal(run?.attributes['code_runtime.calls'], 2)
    assert.equal(run?.attributes['error.type'], undefined)
    assert.equal(typeof run?.attributes['code_runtime.usage.wall_ms'], 'number')
    const [check] = tree.named('check')
    assert.equal(check?.attributes['code_runtime.check.refused'], false)
    const calls = tree.named('execute_tool lookup')
    assert.deepEqual(
      calls.map(call => [call.attributes['gen_ai.operation.name'], call.attributes['gen_ai.tool.name']]),
      [
        ['execute_tool', 'lookup'],
        ['execute_tool', 'lookup'],
      ],
    )
    const ids = calls.map(call => call.attributes['gen_ai.tool.call.id'])
    assert.equal(new Set(ids).size, 2)
    const [execute] = tree.named('execute')
    assert.deepEqual(
      execute?.events.map(event => [event.name, event.attributes]),
      [['log', { 'code_runtime.log.chars': 10 }]],
    )
    // Neither the program, its arguments, its results nor its logs reach a span by default.
    const text = recordedText(tree.spans)
    for (const secret of ['SECRET-LOG', "key: 'a'", 'value of a', 'Promise.all']) assert.ok(!text.includes(secret))
  })

  it('records the check’s verdict, and a refused program as error.type refused with no call', async () => {
    const codeMode = createCodeMode({ tools: tools(), runtime: started.runtime })
    const output = await codeMode.run("return await tools.lookup({ name: 'a' })")
    assert.equal(output.structured.error?.kind, 'refused')
    const tree = new SpanTree(exporter.getFinishedSpans())
    const [check] = tree.named('check')
    assert.equal(check?.attributes['code_runtime.check.refused'], true)
    assert.ok(Number(check?.attributes['code_runtime.check.diagnostics']) >= 1)
    const [run] = tree.named('run_code')
    assert.equal(run?.attributes['error.type'], 'refused')
    assert.equal(run?.status.code, SpanStatusCode.ERROR)
    assert.deepEqual(
      tree.spans.filter(span => span.name.startsWith('execute_tool')),
      [],
    )
  })

  it('gives a failed call its error.type (the tool’s code, invalid_arguments) and a failed run its kind', async () => {
    const codeMode = createCodeMode({ tools: tools(), runtime: started.runtime, typeCheck: 'off' })
    const output = await codeMode.run(
      'try { await tools.explode({}) } catch {}\ntry { await tools.lookup({ key: 5 }) } catch {}\nthrow new Error("SECRET-THROWN")',
    )
    assert.equal(output.structured.error?.kind, 'exception')
    const tree = new SpanTree(exporter.getFinishedSpans())
    const [broken] = tree.named('execute_tool explode')
    assert.equal(broken?.attributes['error.type'], 'E_DISK_FULL')
    assert.equal(broken?.status.code, SpanStatusCode.ERROR)
    const [invalid] = tree.named('execute_tool lookup')
    assert.equal(invalid?.attributes['error.type'], 'invalid_arguments')
    assert.equal(tree.named('execute')[0]?.attributes['error.type'], 'exception')
    assert.equal(tree.named('run_code')[0]?.attributes['error.type'], 'exception')
    // Messages are free text (the program's, a tool's): never recorded by default.
    const text = recordedText(tree.spans)
    assert.ok(!text.includes('SECRET-THROWN') && !text.includes('SECRET-MESSAGE'))
  })

  it('records each approval wait as its own span under the call, with the decision', async () => {
    const codeMode = createCodeMode({
      tools: tools(),
      runtime: started.runtime,
      typeCheck: 'off',
      approve: async request => {
        await sleep(5)
        return (request.args as { to: string }).to === 'ann' ? { action: 'allow' } : { action: 'decline' }
      },
    })
    const output = await codeMode.run(
      "const sent = await tools.send({ to: 'ann' })\ntry { await tools.send({ to: 'bob' }) } catch {}\nreturn sent",
    )
    assert.equal(output.isError, false)
    const tree = new SpanTree(exporter.getFinishedSpans())
    const approvals = tree.named('approval send')
    assert.deepEqual(
      approvals.map(span => [
        tree.pathOf(span),
        span.attributes['code_runtime.approval.decision'],
        span.attributes['error.type'],
      ]),
      [
        ['approval send < execute_tool send < execute < run_code', 'allowed', undefined],
        ['approval send < execute_tool send < execute < run_code', 'declined', 'declined'],
      ],
    )
    assert.deepEqual(
      tree.named('execute_tool send').map(span => span.attributes['error.type']),
      [undefined, 'declined'],
    )
  })

  it('records the cancelled calls of an aborted run as cancelled', async () => {
    let calls = 0
    const slow: CodeModeTool = {
      name: 'wait',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      execute: (_args, { signal }) => {
        calls++
        return sleep(10_000, signal)
      },
    }
    const codeMode = createCodeMode({ tools: [slow], runtime: started.runtime, typeCheck: 'off' })
    const controller = new AbortController()
    const running = codeMode.run('await Promise.all([tools.wait({}), tools.wait({})])', { signal: controller.signal })
    while (calls < 2) await sleep(5)
    controller.abort(new Error('stop'))
    const output = await running
    assert.equal(output.structured.error?.kind, 'abort')
    const tree = new SpanTree(exporter.getFinishedSpans())
    assert.deepEqual(tree.orphans(), [])
    assert.deepEqual(
      tree.named('execute_tool wait').map(call => call.attributes['error.type']),
      ['cancelled', 'cancelled'],
    )
    assert.equal(tree.named('run_code')[0]?.attributes['error.type'], 'abort')
  })

  it('keeps at most 32 logs as events and counts the rest', async () => {
    const codeMode = createCodeMode({ tools: tools(), runtime: started.runtime, typeCheck: 'off' })
    await codeMode.run('for (let i = 0; i < 40; i++) console.log(i)')
    const [execute] = new SpanTree(exporter.getFinishedSpans()).named('execute')
    assert.equal(execute?.events.length, 32)
    assert.equal(execute?.attributes['code_runtime.logs'], 40)
    assert.equal(execute?.attributes['code_runtime.logs.not_recorded'], 8)
  })

  it('names the session a run ran in', async () => {
    const codeMode = createCodeMode({ tools: tools(), runtime: started.runtime, typeCheck: 'off', session: true })
    try {
      await codeMode.run('const kept = 1')
      const [run] = new SpanTree(exporter.getFinishedSpans()).named('run_code')
      assert.equal(run?.attributes['code_runtime.session.id'], codeMode.session?.id)
      assert.equal(typeof run?.attributes['code_runtime.session.id'], 'string')
    } finally {
      await codeMode.dispose()
    }
  })

  it('records how each run got its substrate in an acquire span under execute: ready, recycled, a session’s own', async () => {
    /** The sources of runs, one at a time with a pause between, until one of them is `wanted`. */
    const sourcesUntil = async (runtime: typeof started.runtime, wanted: string): Promise<unknown[]> => {
      const codeMode = createCodeMode({ tools: tools(), runtime, typeCheck: 'off' })
      const sources: unknown[] = []
      for (let attempt = 0; attempt < 8 && !sources.includes(wanted); attempt++) {
        exporter.reset()
        await testTracer.startActiveSpan('caller', async span => {
          await codeMode.run('return 1')
          span.end()
        })
        const tree = new SpanTree(exporter.getFinishedSpans())
        const [acquire, ...more] = tree.named('acquire')
        assert.deepEqual(more, [])
        assert.equal(acquire && tree.pathOf(acquire), 'acquire < execute < run_code < caller')
        assert.equal(acquire?.attributes['code_runtime.substrate.persistent'], false)
        assert.equal(typeof acquire?.attributes['code_runtime.substrate.wait_ms'], 'number')
        sources.push(acquire?.attributes['code_runtime.substrate.source'])
        await sleep(50)
      }
      return sources
    }
    // A worker spawned ahead (or, right after a hand-out, the spawn of its replacement waited for).
    const fresh = await sourcesUntil(started.runtime, 'ready')
    assert.ok(
      fresh.includes('ready') && fresh.every(source => source === 'ready' || source === 'spawned'),
      String(fresh),
    )
    // In reuse mode, once the first run's worker is back, the later runs take that same worker.
    const reusing = await startRuntime({ reuseWorkers: true })
    try {
      const reused = await sourcesUntil(reusing.runtime, 'recycled')
      assert.ok(reused.includes('recycled'), String(reused))
    } finally {
      await reusing.dispose()
    }
    // A session's first run waits for the sandbox spawned for it; its later runs wait for none.
    const codeMode = createCodeMode({ tools: tools(), runtime: started.runtime, typeCheck: 'off', session: true })
    try {
      exporter.reset()
      await codeMode.run('const kept = 1')
      await codeMode.run('return kept')
      const acquires = new SpanTree(exporter.getFinishedSpans()).named('acquire')
      assert.deepEqual(
        acquires.map(span => [
          span.attributes['code_runtime.substrate.source'],
          span.attributes['code_runtime.substrate.persistent'],
        ]),
        [['spawned', true]],
      )
    } finally {
      await codeMode.dispose()
    }
  })

  it('records a run that waits for a spawn as spawned, and makes no acquire span outside any span', async () => {
    const cold = await startRuntime({ spawnAhead: 0 })
    try {
      const codeMode = createCodeMode({ tools: tools(), runtime: cold.runtime, typeCheck: 'off' })
      exporter.reset()
      await codeMode.run('return 1')
      const [acquire] = new SpanTree(exporter.getFinishedSpans()).named('acquire')
      assert.equal(acquire?.attributes['code_runtime.substrate.source'], 'spawned')
      // Straight to the runtime with no span active: the engine's wait alone would be a root.
      exporter.reset()
      await cold.runtime.run({ program: 'return 1', bindings: [] })
      assert.deepEqual(exporter.getFinishedSpans(), [])
    } finally {
      await cold.dispose()
    }
  })

  it('records program text, arguments, results and log text only with recordContent', async () => {
    const codeMode = createCodeMode({
      tools: tools(),
      runtime: started.runtime,
      typeCheck: 'off',
      tracing: { recordContent: true },
    })
    await codeMode.run("console.log('hello')\nreturn await tools.lookup({ key: 'a' })")
    const tree = new SpanTree(exporter.getFinishedSpans())
    assert.match(String(tree.named('run_code')[0]?.attributes['code_runtime.program.text']), /console\.log\('hello'\)/)
    const [call] = tree.named('execute_tool lookup')
    assert.equal(call?.attributes['gen_ai.tool.call.arguments'], '{"key":"a"}')
    assert.equal(call?.attributes['gen_ai.tool.call.result'], 'value of a')
    assert.equal(tree.named('execute')[0]?.events[0]?.attributes?.['code_runtime.log.text'], 'hello')
  })

  it('refuses tracing options it does not know, naming the field', () => {
    assert.throws(
      () =>
        createCodeMode({
          tools: tools(),
          runtime: started.runtime,
          tracing: { recordContnt: true } as unknown as { recordContent: boolean },
        }),
      (error: unknown) =>
        CodeModeError.is(error) && error.code === 'CODE_MODE_INVALID_OPTIONS' && /recordContnt/.test(error.message),
    )
    assert.throws(
      () =>
        createCodeMode({
          tools: tools(),
          runtime: started.runtime,
          tracing: { recordContent: 'yes' as unknown as boolean },
        }),
      (error: unknown) => CodeModeError.is(error) && error.code === 'CODE_MODE_INVALID_OPTIONS',
    )
  })
})
