/**
 * Code Mode registers nothing with OpenTelemetry: after runs that make spans and metrics (tool
 * calls, an approval, a failed call, a session, a check), the application can still register its
 * own tracer provider, context manager, propagator, meter provider and diag logger, as the first
 * registration fixes the API's global version. This file registers no SDK before its runs.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { context, metrics, propagation, trace, ROOT_CONTEXT } from '@opentelemetry/api'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

/** The API's registry of globals (its `diag` logger among them): absent, or holding only its version, when nothing registered. */
function registeredGlobals(): string[] {
  const registry = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[
    Symbol.for('opentelemetry.js.api.1')
  ]
  return Object.keys(registry ?? {}).filter(key => key !== 'version')
}

describe('tracing: nothing registered globally', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime()
  })
  after(async () => {
    await started.dispose()
  })

  it('leaves every OpenTelemetry global for the application to register after runs', async () => {
    const tools: CodeModeTool[] = [
      {
        name: 'lookup',
        inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
        annotations: { readOnlyHint: true },
        execute: args => Promise.resolve((args as { key: string }).key),
      },
      { name: 'send', inputSchema: { type: 'object' }, needsApproval: true, execute: () => Promise.resolve('sent') },
    ]
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      session: true,
      approve: () => ({ action: 'allow' }),
      tracing: { recordContent: true },
    })
    try {
      const output = await codeMode.run(
        "const [a] = await Promise.all([tools.lookup({ key: 'a' }), tools.lookup({ key: 'b' })])\nawait tools.send({})\nconst bad: any = {}\ntry { await tools.lookup(bad) } catch {}\nconsole.log(a)",
      )
      assert.equal(output.isError, false, output.text)
    } finally {
      await codeMode.dispose()
    }
    assert.deepEqual(registeredGlobals(), [])
    // What an application does at its start, still possible: each registration is the first.
    assert.equal(trace.setGlobalTracerProvider({ getTracer: () => trace.getTracer('noop') }), true)
    assert.equal(
      context.setGlobalContextManager({
        active: () => ROOT_CONTEXT,
        with: (_context, work, thisArg, ...args) => work.call(thisArg, ...args),
        bind: (_context, target) => target,
        enable() {
          return this
        },
        disable() {
          return this
        },
      }),
      true,
    )
    assert.equal(propagation.setGlobalPropagator({ inject() {}, extract: ctx => ctx, fields: () => [] }), true)
    assert.equal(metrics.setGlobalMeterProvider(metrics.getMeterProvider()), true)
  })
})
