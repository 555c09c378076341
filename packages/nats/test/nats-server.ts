/**
 * Test support: a real nats-server (from `@code-runtime/nats/local-server`), and runners on it.
 */
import { startCodeRuntime, type CodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import { startRunner, type Runner, type RunnerOptions } from '@code-runtime/nats'

export { freePort, startNatsServer, type NatsServer, type NatsServerOptions } from '@code-runtime/nats/local-server'

/** A worker-thread backend with a caller's budgets: what a test runner runs programs on. */
export function startWorkerBackend(budgets: {
  computeMs: number
  maxWallMs: number
  maxOutputBytes: number
}): Promise<StartedCodeRuntime<CodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, budgets)
}

/** Runners in this process, on worker threads. */
export function startTestRunners(url: string, count: number, options: Partial<RunnerOptions> = {}): Promise<Runner[]> {
  return Promise.all(
    Array.from({ length: count }, (_unused, index) =>
      startRunner({
        nats: { servers: url },
        startBackend: startWorkerBackend,
        id: `runner-${index + 1}`,
        ...options,
      }),
    ),
  )
}

const CALLER_PUBLISH =
  '["code-runtime.claim", "code-runtime.load", "code-runtime.runner.*.start", "code-runtime.runner.*.session-open", "code-runtime.runner.*.session-adopt", "code-runtime.runner.*.run.>", "code-runtime.runner.*.session.>"]'

/** The block docs/SCALING.md shows, for the default prefix and two tenants. */
export const TENANT_PERMISSIONS = `authorization {
  users = [
    { user: tenant-a, password: a-secret, permissions: {
      publish: ${CALLER_PUBLISH}
      subscribe: ["_INBOX.tenant-a.>"]
      allow_responses: true
    } }
    { user: tenant-b, password: b-secret, permissions: {
      publish: ${CALLER_PUBLISH}
      subscribe: ["_INBOX.tenant-b.>"]
      allow_responses: true
    } }
    { user: runner, password: runner-secret, permissions: {
      publish: ["_INBOX.>"]
      subscribe: ["code-runtime.claim", "code-runtime.load", "code-runtime.runner.>", "_INBOX_runners.>"]
    } }
  ]
}`

/** The first tenant's caller. */
export const VICTIM = { user: 'tenant-a', pass: 'a-secret', inboxPrefix: '_INBOX.tenant-a' }
/** The second tenant's caller: in tenants.test.ts, the rogue. */
export const ROGUE = { user: 'tenant-b', pass: 'b-secret', inboxPrefix: '_INBOX.tenant-b' }
/** A runner, as docs/SCALING.md configures one. */
export const RUNNER = { user: 'runner', pass: 'runner-secret', inboxPrefix: '_INBOX_runners' }
