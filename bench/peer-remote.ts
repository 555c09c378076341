/**
 * A peer run in a child process of another Node binary, for a peer that needs a newer Node than
 * the bench runs on: each `start()` spawns `node peer-child.js` on that binary and speaks the line
 * protocol of peer-line-protocol.ts with it. Latency is timed here, in the bench, as for every
 * other column, so it includes one pipe round trip (a fraction of a millisecond, and the result's
 * JSON: ~0.5 MB for the 10 000 lines of `logs`); a throughput cell's host CPU leaves out the child's.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { CodeRunRequest, CodeRunResult } from '@code-runtime/core'
import type { BenchRuntime, BenchRuntimeConfig, BenchStarter } from './backends.js'
import {
  encodeMessage,
  failedRunResult,
  parseChildMessage,
  type ChildMessage,
  type HostMessage,
} from './peer-line-protocol.js'

const CHILD_ENTRY = fileURLToPath(new URL('./peer-child.js', import.meta.url))
/** How long a child may take to exit after its stdin ends before it is killed. */
const EXIT_GRACE_MS = 5_000

type Child = ChildProcessByStdio<Writable, Readable, Readable>

class RemotePeerRuntime implements BenchRuntime {
  readonly #child: Child
  readonly #pending = new Map<number, (result: CodeRunResult) => void>()
  #nextId = 0
  #failure: Error | undefined

  constructor(child: Child) {
    this.#child = child
  }

  /** Routes the child's answers; a broken child fails every pending run. */
  listen(onReady: (message: ChildMessage) => void): void {
    const lines = createInterface({ input: this.#child.stdout })
    lines.on('line', line => {
      let message: ChildMessage
      try {
        message = parseChildMessage(line)
      } catch (error) {
        this.#fail(error instanceof Error ? error : new Error(String(error)))
        return
      }
      if (message.op === 'result') {
        this.#pending.get(message.id)?.(message.result)
        this.#pending.delete(message.id)
      } else {
        onReady(message)
      }
    })
    this.#child.once('exit', (code, signal) =>
      this.#fail(new Error(`the peer's child process exited (${signal ?? `code ${code ?? '?'}`})`)),
    )
  }

  #fail(error: Error): void {
    this.#failure ??= error
    const failed = failedRunResult(error.message)
    for (const resolve of this.#pending.values()) resolve(failed)
    this.#pending.clear()
  }

  send(message: HostMessage): void {
    this.#child.stdin.write(encodeMessage(message))
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure)
    const id = this.#nextId++
    const { signal, reuseKey } = request
    const answered = new Promise<CodeRunResult>(resolve => this.#pending.set(id, resolve))
    this.send({
      op: 'run',
      id,
      program: request.program,
      isAbortable: signal !== undefined,
      ...(reuseKey === undefined ? {} : { reuseKey }),
    })
    signal?.addEventListener('abort', () => this.send({ op: 'abort', id }), { once: true })
    return answered
  }

  async dispose(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return
    const exited = once(this.#child, 'exit')
    this.#child.stdin.end()
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), EXIT_GRACE_MS)
    await exited
    clearTimeout(timer)
  }
}

/** A starter whose runtimes are the reference run by `nodeBinary` in a child process. */
export function remotePeerStarter(nodeBinary: string): BenchStarter {
  return {
    async start(config: BenchRuntimeConfig): Promise<BenchRuntime> {
      const child = spawn(nodeBinary, ['--no-warnings', CHILD_ENTRY], { stdio: ['pipe', 'pipe', 'pipe'] })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-2_000)
      })
      const runtime = new RemotePeerRuntime(child)
      const started = new Promise<void>((resolve, reject) => {
        runtime.listen(message =>
          message.op === 'ready' ? resolve() : message.op === 'failed' ? reject(new Error(message.message)) : undefined,
        )
        child.once('exit', () =>
          reject(
            new Error(`the peer's child process exited before it was ready: ${stderr.trim().split('\n').at(-1) ?? ''}`),
          ),
        )
        child.once('error', reject)
      })
      runtime.send({ op: 'start', config })
      try {
        await started
      } catch (error) {
        await runtime.dispose()
        throw error
      }
      return runtime
    },
  }
}
