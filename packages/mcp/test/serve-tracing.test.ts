/**
 * `code-runtime serve` continues its client's trace: a `traceparent` the client sends in a
 * `tools/call`'s `_meta` reaches every upstream `tools/call` that run makes, parallel ones too,
 * in the same trace, with nothing exporting spans (the bin registers only the W3C propagators
 * and the context manager). The upstream is a real MCP server the test starts, recording what it
 * receives. A malformed `traceparent` is ignored, not trusted, and the run goes on.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { TRACEPARENT_META_KEY } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { makeTempDirectory, startServe, textOf, type ServeSession } from './serve-harness.js'
import { META_RECORDING_SERVER_PATH, newTraceparent, readTraceparent, recordedCalls } from './trace-support.js'

describe('serve: trace context from the client to the upstream servers', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession
  let recorderLog: string
  before(async () => {
    temp = await makeTempDirectory('code-runtime-serve-tracing-')
    recorderLog = join(temp.path, 'meta.log')
    serve = await startServe(temp.path, {
      mcpServers: {
        rec: { command: process.execPath, args: [META_RECORDING_SERVER_PATH], env: { FIXTURE_LOG: recorderLog } },
      },
    })
  })
  after(async () => {
    await serve.close()
    await temp.remove()
  })

  /** Calls run_code with `meta` as the request's `_meta`. */
  async function runWithMeta(code: string, meta: Record<string, unknown>): Promise<CallToolResult> {
    return (await serve.client.callTool({
      name: 'run_code',
      arguments: { code, description: 'traced program' },
      _meta: meta,
    })) as CallToolResult
  }

  it('carries each client trace to 100 % of the upstream calls its run makes, parallel ones included', async () => {
    const runs = Array.from({ length: 10 }, (_, run) => ({ run, ...newTraceparent() }))
    // Several runs at once: each call must carry its own run's trace, never another's.
    await Promise.all(
      runs.map(async ({ run, traceparent }) => {
        const result = await runWithMeta(
          `return await Promise.all([0, 1, 2].map(i => tools.rec_echo({ text: 'run ${run} call ' + i })))`,
          { [TRACEPARENT_META_KEY]: traceparent, tracestate: 'vendor=kept' },
        )
        assert.equal(result.isError, false, textOf(result))
      }),
    )
    const calls = await recordedCalls(recorderLog)
    assert.equal(calls.length, runs.length * 3)
    for (const call of calls) {
      const run = Number(/^run (\d+) /.exec(call.text)?.[1])
      const sent = readTraceparent(call.meta?.[TRACEPARENT_META_KEY])
      assert.ok(sent !== undefined, `call ${call.text} came with no traceparent: ${JSON.stringify(call.meta)}`)
      assert.equal(sent.traceId, runs[run]?.traceId, `call ${call.text} is in another trace`)
      assert.equal(sent.flags, '01')
      assert.equal(call.meta?.tracestate, 'vendor=kept')
    }
  })

  it('ignores a malformed traceparent and runs the program all the same', async () => {
    const before = (await recordedCalls(recorderLog)).length
    for (const traceparent of ['00-not-a-trace-01', 42, '00-00000000000000000000000000000000-0000000000000000-01']) {
      const result = await runWithMeta("return await tools.rec_echo({ text: 'untraced' })", {
        [TRACEPARENT_META_KEY]: traceparent,
      })
      assert.equal(result.isError, false, textOf(result))
    }
    const calls = (await recordedCalls(recorderLog)).slice(before)
    assert.equal(calls.length, 3)
    for (const call of calls) assert.equal(call.meta?.[TRACEPARENT_META_KEY], undefined)
  })
})
