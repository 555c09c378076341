/**
 * `code-runtime serve` exports its spans and metrics with OTLP (http/protobuf) when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set: a local receiver the test runs gets the whole tree of a client's `run_code`, in the
 * client's trace (server span → run_code → check/execute → execute_tool → upstream client span),
 * and the upstream server sees our client span as the parent of its call. Settings it cannot
 * honour are said on stderr and the server runs untraced.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { TRACEPARENT_META_KEY } from '@modelcontextprotocol/client'
import { collectText, isAlive, makeTempDirectory, serveParameters, textOf, waitFor } from './serve-harness.js'
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js'
import { META_RECORDING_SERVER_PATH, newTraceparent, readTraceparent, recordedCalls } from './trace-support.js'

/** Loaded with `node --import`: the SDK's trace package cannot be found, as after `npm install --omit=optional`. */
const WITHOUT_OTEL_SDK_PATH = fileURLToPath(new URL('../../test/fixtures/without-otel-sdk.mjs', import.meta.url))

/** Starts serve over the recording upstream with `env` added, runs `code` with `meta`, and stops it. */
async function serveOnce(
  env: Record<string, string>,
  code: string,
  meta: Record<string, unknown>,
): Promise<{ result: CallToolResult; stderr: string; recorderLog: string; remove(): Promise<void> }> {
  const temp = await makeTempDirectory('code-runtime-serve-otlp-')
  const recorderLog = join(temp.path, 'meta.log')
  const parameters = await serveParameters(temp.path, {
    mcpServers: {
      rec: { command: process.execPath, args: [META_RECORDING_SERVER_PATH], env: { FIXTURE_LOG: recorderLog } },
    },
  })
  const transport = new StdioClientTransport({ ...parameters, env: { ...parameters.env, ...env } })
  const stderr = collectText(transport.stderr)
  const client = new Client({ name: 'code-runtime-tests', version: '1.0.0' })
  await client.connect(transport)
  const pid = transport.pid as number
  try {
    const result = (await client.callTool({
      name: 'run_code',
      arguments: { code, description: 'traced program' },
      _meta: meta,
    })) as CallToolResult
    return { result, stderr: stderr(), recorderLog, remove: () => temp.remove() }
  } finally {
    // The end of stdin shuts serve down, which sends the spans still batched before it exits.
    await client.close()
    await waitFor(() => !isAlive(pid), 'code-runtime serve to exit')
  }
}

function onlyOne(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const named = spans.filter(span => span.name === name)
  assert.equal(named.length, 1, `expected one ${name}, got ${named.length}: ${spans.map(span => span.name).join(', ')}`)
  return named[0] as ReceivedSpan
}

describe('serve: OTLP export of traces and metrics', () => {
  it('exports the span tree of a run in the client’s trace, and the upstream continues it', async () => {
    const receiver = await startOtlpReceiver()
    const client = newTraceparent()
    const served = await serveOnce(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'serve-under-test' },
      "return await Promise.all([tools.rec_echo({ text: 'a' }), tools.rec_echo({ text: 'b' })])",
      { [TRACEPARENT_META_KEY]: client.traceparent },
    )
    try {
      assert.equal(served.result.isError, false, textOf(served.result))
      assert.ok(
        receiver.requests.every(request => /^POST \/v1\/(traces|metrics) application\/x-protobuf$/.test(request)),
        receiver.requests.join(', '),
      )
      // The metrics of the run, sent at the exit with the last spans.
      for (const name of ['code_runtime.run.duration', 'code_runtime.tool_call.duration', 'code_runtime.sessions.open'])
        assert.ok(receiver.metricNames.includes(name), `${name} not in ${receiver.metricNames.join(', ')}`)
      const spans = receiver.spans
      assert.ok(spans.length > 0, `no spans arrived; serve said: ${served.stderr}`)
      assert.ok(spans.every(span => span.traceId === client.traceId && span.serviceName === 'serve-under-test'))
      const byId = new Map(spans.map(span => [span.spanId, span]))
      const parentName = (span: ReceivedSpan): string | undefined => byId.get(span.parentSpanId)?.name
      const request = onlyOne(spans, 'tools/call run_code')
      assert.equal(request.parentSpanId, client.spanId)
      assert.equal(request.attributes['mcp.method.name'], 'tools/call')
      const run = onlyOne(spans, 'run_code')
      assert.equal(parentName(run), 'tools/call run_code')
      // The backend is named through the CLI's wrapper of the runtime.
      assert.match(run.attributes['code_runtime.backend'] ?? '', /^(container|process|worker-thread)$/)
      assert.equal(parentName(onlyOne(spans, 'execute')), 'run_code')
      assert.equal(parentName(onlyOne(spans, 'check')), 'run_code')
      // The engine's wait for the sandbox (the session's own, on its first run) sits under execute.
      assert.equal(parentName(onlyOne(spans, 'acquire')), 'execute')
      const calls = spans.filter(span => span.name === 'execute_tool rec_echo')
      assert.equal(calls.length, 2)
      for (const call of calls) assert.equal(parentName(call), 'execute')
      const upstreamSpans = spans.filter(span => span.name === 'tools/call echo')
      assert.equal(upstreamSpans.length, 2)
      for (const span of upstreamSpans) assert.equal(parentName(span), 'execute_tool rec_echo')
      // Every span but the request names a parent that arrived: no orphans.
      for (const span of spans) if (span !== request) assert.ok(byId.has(span.parentSpanId), span.name)
      // The upstream's calls name our client spans as their parents, one each.
      const recorded = await recordedCalls(served.recorderLog)
      assert.deepEqual(
        recorded.map(call => readTraceparent(call.meta?.[TRACEPARENT_META_KEY])?.spanId).sort(),
        upstreamSpans.map(span => span.spanId).sort(),
      )
    } finally {
      await served.remove()
      await receiver.close()
    }
  })

  it('says on stderr when the OTLP protocol asked for is not http/protobuf, and exports nothing', async () => {
    const receiver = await startOtlpReceiver()
    const served = await serveOnce(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'return 1',
      {},
    )
    try {
      assert.equal(served.result.isError, false)
      assert.match(
        served.stderr,
        /the OTLP protocol grpc is not supported, only http\/protobuf; no traces are exported/,
      )
      // Said once for both signals.
      assert.doesNotMatch(served.stderr, /no metrics are exported/)
      assert.deepEqual(receiver.requests, [])
    } finally {
      await served.remove()
      await receiver.close()
    }
  })

  it('says on stderr which packages to install when the trace SDK cannot load, and exports no span', async () => {
    const receiver = await startOtlpReceiver()
    const served = await serveOnce(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        NODE_OPTIONS: `--import=${pathToFileURL(WITHOUT_OTEL_SDK_PATH).href}`,
      },
      'return 3',
      {},
    )
    try {
      assert.equal(served.result.isError, false)
      assert.match(
        served.stderr,
        /OTLP export is asked for, but the OpenTelemetry SDK could not be loaded \(Cannot find package '@opentelemetry\/sdk-trace-base'\); no traces are exported\. Install @opentelemetry\/sdk-trace-base@2\.12\.0 /,
      )
      // The metrics SDK is still there: metrics go out all the same, and no span.
      assert.ok(
        receiver.requests.every(request => request.startsWith('POST /v1/metrics')),
        receiver.requests.join(', '),
      )
    } finally {
      await served.remove()
      await receiver.close()
    }
  })

  it('runs and exits when the collector is down', async () => {
    const receiver = await startOtlpReceiver()
    await receiver.close()
    // The exporter's own timeout (the spec's variable) bounds each attempt; the exit waits at most 5 s in all.
    const served = await serveOnce(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '300' },
      'return 2',
      {},
    )
    await served.remove()
    assert.equal(served.result.isError, false)
  })
})
