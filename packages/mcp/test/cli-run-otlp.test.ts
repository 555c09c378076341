/**
 * `code-runtime run` exports its spans with OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and
 * sends them before it exits: a local receiver gets the run's tree (run_code a root, each call
 * an `execute_tool` under `execute`, each upstream `tools/call` a client span under its call), and
 * the upstream the test starts sees those client spans as the parents of its calls.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { TRACEPARENT_META_KEY } from '@modelcontextprotocol/client'
import { cli } from './cli-harness.js'
import { startOtlpReceiver } from './otlp-receiver.js'
import { makeTempDirectory } from './serve-harness.js'
import { META_RECORDING_SERVER_PATH, readTraceparent, recordedCalls } from './trace-support.js'

describe('run: OTLP export of traces', () => {
  it('exports the run’s span tree before it exits, and the upstream continues it', async () => {
    const temp = await makeTempDirectory('code-runtime-run-otlp-')
    const receiver = await startOtlpReceiver()
    try {
      const recorderLog = join(temp.path, 'meta.log')
      await writeFile(
        join(temp.path, 'servers.json'),
        JSON.stringify({
          mcpServers: {
            rec: { command: process.execPath, args: [META_RECORDING_SERVER_PATH], env: { FIXTURE_LOG: recorderLog } },
          },
        }),
      )
      await writeFile(
        join(temp.path, 'program.ts'),
        "return await Promise.all([tools.rec_echo({ text: 'a' }), tools.rec_echo({ text: 'b' })])\n",
      )
      const outcome = await cli(['run', 'program.ts', '--config', 'servers.json', '--type-check', 'off'], {
        cwd: temp.path,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      })
      assert.equal(outcome.code, 0, outcome.stderr)
      const spans = receiver.spans
      const byId = new Map(spans.map(span => [span.spanId, span]))
      const parentName = (span: (typeof spans)[number]): string | undefined => byId.get(span.parentSpanId)?.name
      const roots = spans.filter(span => span.parentSpanId === '')
      assert.deepEqual(
        roots.map(span => span.name),
        ['run_code'],
      )
      assert.equal(new Set(spans.map(span => span.traceId)).size, 1)
      assert.ok(
        spans.every(span => span.parentSpanId === '' || byId.has(span.parentSpanId)),
        'an orphan span',
      )
      const calls = spans.filter(span => span.name === 'execute_tool rec_echo')
      assert.deepEqual(calls.map(parentName), ['execute', 'execute'])
      // The backend's wait for its substrate, beside the calls (the README's picture shows it).
      assert.deepEqual(spans.filter(span => span.name === 'acquire').map(parentName), ['execute'])
      const upstream = spans.filter(span => span.name === 'tools/call echo')
      assert.deepEqual(upstream.map(parentName), ['execute_tool rec_echo', 'execute_tool rec_echo'])
      const recorded = await recordedCalls(recorderLog)
      assert.deepEqual(
        recorded.map(call => readTraceparent(call.meta?.[TRACEPARENT_META_KEY])?.spanId).sort(),
        upstream.map(span => span.spanId).sort(),
      )
    } finally {
      await receiver.close()
      await temp.remove()
    }
  })
})
