/**
 * Test support: a real nats-server (from `@code-runtime/nats/local-server`), and runners on it.
 */
import { startCodeRuntime, type CodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { startRunner, type Runner, type RunnerOptions } from '@code-runtime/nats'

export { freePort, startNatsServer, type NatsServer, type NatsServerOptions } from '@code-runtime/nats/local-server'

/** A worker-thread backend with a caller's budgets: what a test runner runs programs on. */
export function startWorkerBackend(budgets: { computeMs: number; maxWallMs: number; maxOutputBytes: number }): Promise<StartedCodeRuntime<CodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, budgets)
}

/** Runners in this process, on worker threads. */
export function startTestRunners(url: string, count: number, options: Partial<RunnerOptions> = {}): Promise<Runner[]> {
  return Promise.all(Array.from({ length: count }, (_unused, index) => startRunner({
    nats: { servers: url },
    startBackend: startWorkerBackend,
    id: `runner-${index + 1}`,
    ...options,
  })))
}
