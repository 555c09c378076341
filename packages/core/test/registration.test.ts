import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Context } from '@deepseek-ai/cordis'
import {
  CODE_RUNTIME_SERVICE_NAME,
  CodeRuntime,
  CodeRuntimeError,
  startCodeRuntime,
  type CodeRunRequest,
} from '@code-runtime/core'
import { DEFAULT_STUB_MAX_OUTPUT_BYTES, StubRuntime, stubResult, type StubRuntimeConfig } from './stub-runtime.js'

const EMPTY_REQUEST: CodeRunRequest = { program: 'return 1', bindings: [] }

/** A second, distinct implementation, to show two cannot share one context. */
class OtherStubRuntime extends StubRuntime {}

async function assertRejectsWithCode(promise: Promise<unknown>, code: string, fragment?: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(CodeRuntimeError.is(error), `expected a CodeRuntimeError, got ${String(error)}`)
    assert.equal(error.code, code)
    if (fragment !== undefined) assert.ok(error.message.includes(fragment), error.message)
    return true
  })
}

void describe('registration as ctx.codeRuntime [#service]', () => {
  void it('registers a backend loaded with ctx.plugin under the service name codeRuntime', async () => {
    const ctx = new Context()
    await ctx.plugin(StubRuntime, {})
    assert.equal(CODE_RUNTIME_SERVICE_NAME, 'codeRuntime')
    assert.ok(ctx.codeRuntime instanceof CodeRuntime)
    assert.ok(ctx.codeRuntime instanceof StubRuntime)
    // Cordis hands out a fresh Proxy on each access, so compare what the proxies lead to.
    assert.equal((ctx.get(CODE_RUNTIME_SERVICE_NAME) as StubRuntime).config, (ctx.codeRuntime as StubRuntime).config)
    assert.deepEqual(await ctx.codeRuntime.run(EMPTY_REQUEST), stubResult())
    await ctx.fiber.dispose()
  })

  void it('exposes readonly descriptors through the service', async () => {
    const ctx = new Context()
    await ctx.plugin(StubRuntime, { maxOutputBytes: 64 })
    assert.equal(ctx.codeRuntime.language, 'typescript')
    assert.equal(ctx.codeRuntime.isolation, 'worker-thread')
    assert.equal((ctx.codeRuntime as StubRuntime).config.maxOutputBytes, 64)
    await ctx.fiber.dispose()
  })

  void it('validates each request and rejects misuse instead of throwing synchronously', async () => {
    const ctx = new Context()
    await ctx.plugin(StubRuntime)
    const runtime = ctx.codeRuntime as StubRuntime
    assert.equal(runtime.config.maxOutputBytes, DEFAULT_STUB_MAX_OUTPUT_BYTES)
    const invalidBindings = runtime.run({ program: '', bindings: [{ global: 'console', functions: {} }] })
    assert.ok(invalidBindings instanceof Promise)
    await assertRejectsWithCode(invalidBindings, 'CODE_RUNTIME_INVALID_BINDINGS', '"console"')
    await assertRejectsWithCode(
      runtime.run({ program: 42 } as unknown as CodeRunRequest),
      'CODE_RUNTIME_INVALID_REQUEST',
    )
    assert.equal(runtime.validatedRunCount, 0)
    await ctx.fiber.dispose()
  })

  void it('removes the service when the plugin fiber is disposed, and rejects later runs', async () => {
    const ctx = new Context()
    const fiber = ctx.plugin(StubRuntime, {})
    await fiber
    const runtime = ctx.codeRuntime
    await fiber.dispose()
    assert.equal(ctx.get(CODE_RUNTIME_SERVICE_NAME), undefined)
    assert.equal(ctx.codeRuntime, undefined)
    await assertRejectsWithCode(runtime.run(EMPTY_REQUEST), 'CODE_RUNTIME_DISPOSED')
    await ctx.fiber.dispose()
  })

  void it('refuses a second implementation in the same context and keeps the first', async () => {
    const ctx = new Context()
    await ctx.plugin(StubRuntime, { maxOutputBytes: 10 })
    await assert.rejects(async () => {
      await ctx.plugin(OtherStubRuntime, { maxOutputBytes: 20 })
    }, /codeRuntime/)
    assert.ok(!(ctx.codeRuntime instanceof OtherStubRuntime))
    assert.equal((ctx.codeRuntime as StubRuntime).config.maxOutputBytes, 10)
    assert.deepEqual(await ctx.codeRuntime.run(EMPTY_REQUEST), stubResult())
    await ctx.fiber.dispose()
  })

  void it('accepts a new implementation once the first was disposed', async () => {
    const ctx = new Context()
    const fiber = ctx.plugin(StubRuntime, {})
    await fiber
    await fiber.dispose()
    await ctx.plugin(OtherStubRuntime, {})
    assert.ok(ctx.codeRuntime instanceof OtherStubRuntime)
    await ctx.fiber.dispose()
  })

  void it('fails the plugin load on invalid config and registers nothing', async () => {
    const ctx = new Context()
    await assertRejectsWithCode(
      Promise.resolve(ctx.plugin(StubRuntime, { maxOutputBytes: 3 })),
      'CODE_RUNTIME_INVALID_CONFIG',
      'maxOutputBytes must be an integer from 4',
    )
    assert.equal(ctx.get(CODE_RUNTIME_SERVICE_NAME), undefined)
    await ctx.fiber.dispose()
  })
})

void describe('startCodeRuntime [#service]', () => {
  void it('returns a ready runtime and a dispose function', async () => {
    const { runtime, dispose } = await startCodeRuntime(StubRuntime, { maxOutputBytes: 100 })
    assert.ok(runtime instanceof StubRuntime)
    assert.equal(runtime.language, 'typescript')
    assert.equal(runtime.isolation, 'worker-thread')
    assert.equal(runtime.config.maxOutputBytes, 100)
    assert.deepEqual(await runtime.run(EMPTY_REQUEST), stubResult())
    assert.equal(runtime.validatedRunCount, 1)
    await dispose()
    await assertRejectsWithCode(runtime.run(EMPTY_REQUEST), 'CODE_RUNTIME_DISPOSED')
  })

  void it('disposes once however often dispose is called', async () => {
    const { dispose } = await startCodeRuntime(StubRuntime, {})
    const first = dispose()
    assert.equal(dispose(), first)
    await first
    await dispose()
  })

  void it('rejects with the backend error when the config is invalid', async () => {
    const invalid: ReadonlyArray<readonly [unknown, string]> = [
      [
        { maxOutputBytes: -5 },
        'Invalid stub config: maxOutputBytes must be an integer from 4 to 9007199254740991, got -5.',
      ],
      [
        { maxOutputByte: 10 },
        'unknown field "maxOutputByte" (did you mean "maxOutputBytes"?); known fields are maxOutputBytes',
      ],
      ['fast', 'expected a plain object'],
      [new Map(), 'expected a plain object'],
    ]
    for (const [config, fragment] of invalid) {
      await assertRejectsWithCode(
        startCodeRuntime(StubRuntime, config as StubRuntimeConfig),
        'CODE_RUNTIME_INVALID_CONFIG',
        fragment,
      )
    }
  })

  void it('rejects a backend that does not register itself as codeRuntime', async () => {
    class NotARuntime {
      constructor(_ctx: Context, _config: unknown) {}
    }
    await assert.rejects(startCodeRuntime(NotARuntime as unknown as typeof StubRuntime, {}), (error: unknown) => {
      assert.ok(error instanceof TypeError)
      assert.ok(error.message.includes('did not register itself as codeRuntime'))
      return true
    })
  })
})
