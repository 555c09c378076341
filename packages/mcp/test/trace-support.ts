/** Test support for tracing: W3C `traceparent` values made and read, and the fixture that records `_meta`. */
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { readLines } from './serve-harness.js'

/** The small MCP server that logs the `_meta` of each `tools/call` it answers. */
export const META_RECORDING_SERVER_PATH = fileURLToPath(
  new URL('../../test/fixtures/meta-recording-server.mjs', import.meta.url),
)

/** A `traceparent` of a sampled span of a fresh trace, as a client's tracer would send it. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex')
  const spanId = randomBytes(8).toString('hex')
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId }
}

/** A `traceparent` split into its fields, or `undefined` when it is not one. */
export function readTraceparent(value: unknown): { traceId: string; spanId: string; flags: string } | undefined {
  if (typeof value !== 'string') return undefined
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value)
  return match === null
    ? undefined
    : { traceId: match[1] as string, spanId: match[2] as string, flags: match[3] as string }
}

/** What the recording server logged: the text of each call and the `_meta` it came with. */
export async function recordedCalls(
  path: string,
): Promise<{ readonly text: string; readonly meta: Record<string, unknown> | null }[]> {
  return (await readLines(path)).map(line => JSON.parse(line) as { text: string; meta: Record<string, unknown> | null })
}
