/**
 * Entry of the child process that runs a peer on another Node binary (`BENCH_PEER_NODE`): starts
 * the reference in-process on the config the host sends, runs each program it sends with the
 * bench's bindings, and writes each result back (peer-line-protocol.ts). Started by the bench's
 * remote peer; not meant to be run by hand.
 */
import { createInterface } from 'node:readline'
import type { BenchRuntime } from './backends.js'
import type { CodeRunRequest } from '@code-runtime/core'
import {
  encodeMessage,
  failedRunResult,
  parseHostMessage,
  type ChildMessage,
  type HostMessage,
} from './peer-line-protocol.js'
import { startReferenceInProcess } from './peer-reference.js'
import { benchBindings } from './workloads.js'

function send(message: ChildMessage): void {
  process.stdout.write(encodeMessage(message))
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

let runtime: BenchRuntime | undefined
const aborts = new Map<number, AbortController>()
const running = new Set<Promise<void>>()

async function run(message: Extract<HostMessage, { op: 'run' }>): Promise<void> {
  if (runtime === undefined) throw new Error('run before start')
  const { id, program, reuseKey } = message
  const controller = new AbortController()
  aborts.set(id, controller)
  try {
    const plain: CodeRunRequest = { program, bindings: benchBindings() }
    const request = message.isAbortable ? { ...plain, signal: controller.signal } : plain
    const result = await runtime.run(reuseKey === undefined ? request : { ...request, reuseKey })
    send({ op: 'result', id, result })
  } finally {
    aborts.delete(id)
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = parseHostMessage(line)
  switch (message.op) {
    case 'start':
      try {
        runtime = await (await startReferenceInProcess()).start(message.config)
        send({ op: 'ready' })
      } catch (error) {
        send({ op: 'failed', message: describe(error) })
      }
      break
    case 'run': {
      // A run that throws (the reference resolves even failed runs, so this is a bug) still answers its id, so the bench never waits on it.
      const pending = run(message).catch((error: unknown) =>
        send({ op: 'result', id: message.id, result: failedRunResult(describe(error)) }),
      )
      running.add(pending)
      void pending.finally(() => running.delete(pending))
      break
    }
    case 'abort':
      aborts.get(message.id)?.abort(new Error('Aborted by the benchmark.'))
      break
  }
}
await Promise.all(running)
await runtime?.dispose()
