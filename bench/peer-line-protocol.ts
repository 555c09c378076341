/**
 * The line protocol between the bench and a peer run in a child process of another Node binary
 * (the reference needs a newer Node than the bench may run on): one JSON object per line on the
 * child's stdin and stdout. The host starts the peer, sends runs (a program and an optional
 * `reuseKey`; the child supplies the bench's own bindings) and aborts, and the child answers with
 * each run's result. Ending the child's stdin disposes the peer and ends the child.
 */
import type { CodeRunResult } from '@code-runtime/core'
import type { BenchRuntimeConfig } from './backends.js'

/** What the bench sends the child. */
export type HostMessage =
  | { readonly op: 'start'; readonly config: BenchRuntimeConfig }
  | {
      readonly op: 'run'
      readonly id: number
      readonly program: string
      readonly reuseKey?: string
      /** Whether the run gets an abort signal (the host may abort it later). */
      readonly isAbortable: boolean
    }
  | { readonly op: 'abort'; readonly id: number }

/** What the child answers. */
export type ChildMessage =
  | { readonly op: 'ready' }
  | { readonly op: 'failed'; readonly message: string }
  | { readonly op: 'result'; readonly id: number; readonly result: CodeRunResult }

/** A line that is not a message of the protocol. */
export class PeerProtocolError extends Error {
  override readonly name = 'PeerProtocolError'
}

/** The result the bench records for a run the peer never ran to its end (a broken child, a run that threw). */
export function failedRunResult(message: string): CodeRunResult {
  return {
    logs: [],
    error: { kind: 'exception', message },
    usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 0 },
    calls: [],
  }
}

export function encodeMessage(message: HostMessage | ChildMessage): string {
  return `${JSON.stringify(message)}\n`
}

function objectOf(line: string): Record<string, unknown> {
  let decoded: unknown
  try {
    decoded = JSON.parse(line)
  } catch {
    throw new PeerProtocolError(`not JSON: ${line.slice(0, 80)}`)
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded))
    throw new PeerProtocolError(`not an object: ${line.slice(0, 80)}`)
  return decoded as Record<string, unknown>
}

function isRunId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/**
 * Reads one line from the child.
 * @throws {PeerProtocolError} when the line is no message of the protocol.
 */
export function parseChildMessage(line: string): ChildMessage {
  const message = objectOf(line)
  switch (message['op']) {
    case 'ready':
      return { op: 'ready' }
    case 'failed':
      if (typeof message['message'] === 'string') return { op: 'failed', message: message['message'] }
      break
    case 'result': {
      const result = message['result']
      // The child is the bench's own code: a result object is trusted to be a CodeRunResult.
      if (isRunId(message['id']) && typeof result === 'object' && result !== null)
        return { op: 'result', id: message['id'], result: result as CodeRunResult }
      break
    }
  }
  throw new PeerProtocolError(`not a child message: ${line.slice(0, 80)}`)
}

/**
 * Reads one line from the host.
 * @throws {PeerProtocolError} when the line is no message of the protocol.
 */
export function parseHostMessage(line: string): HostMessage {
  const message = objectOf(line)
  const id = message['id']
  switch (message['op']) {
    case 'start': {
      const config = message['config']
      if (typeof config === 'object' && config !== null) return { op: 'start', config: config as BenchRuntimeConfig }
      break
    }
    case 'run': {
      const { program, reuseKey, isAbortable } = message
      if (!isRunId(id) || typeof program !== 'string' || typeof isAbortable !== 'boolean') break
      if (reuseKey !== undefined && typeof reuseKey !== 'string') break
      return reuseKey === undefined
        ? { op: 'run', id, program, isAbortable }
        : { op: 'run', id, program, isAbortable, reuseKey }
    }
    case 'abort':
      if (isRunId(id)) return { op: 'abort', id }
      break
  }
  throw new PeerProtocolError(`not a host message: ${line.slice(0, 80)}`)
}
