/**
 * The subject permissions docs/SCALING.md gives a deployment, on a real nats-server: callers and
 * runners each with their own user, allowed only their side of the subject layout. Runs work
 * under them, and a runner started with a caller's credentials is never handed a run.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime, type Runner } from '@code-runtime/nats'
import { startNatsServer, startTestRunners, type NatsServer } from './nats-server.js'

// The block docs/SCALING.md shows, for the default prefix.
const PERMISSIONS = `authorization {
  users = [
    { user: caller, password: caller-secret, permissions: {
      publish: ["code-runtime.claim", "code-runtime.load", "code-runtime.runner.*.start", "code-runtime.runner.*.session-open", "code-runtime.runner.*.run.>", "code-runtime.runner.*.session.>"]
      subscribe: ["_INBOX.>"]
      allow_responses: true
    } }
    { user: runner, password: runner-secret, permissions: {
      publish: ["_INBOX.>"]
      subscribe: ["code-runtime.claim", "code-runtime.load", "code-runtime.runner.>", "_INBOX.>"]
    } }
  ]
}`

describe('nats under the documented subject permissions', () => {
  let server: NatsServer
  let runners: Runner[] = []
  before(async () => {
    server = await startNatsServer({ extraConfig: PERMISSIONS })
    runners = await startTestRunners(server.url, 1, { nats: { servers: server.url, user: 'runner', pass: 'runner-secret' } })
  })
  after(async () => {
    await Promise.all(runners.map((runner) => runner.drain(500)))
    await server.dispose()
  })

  it('runs a program with binding calls, and a session, for a caller with its own credentials', async () => {
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, user: 'caller', pass: 'caller-secret' })
    try {
      const result = await runtime.run({ program: 'return await tools.twice(21)', bindings: [{ global: 'tools', functions: { twice: async (value) => (value as number) * 2 } }] })
      assert.equal(result.value, 42)
      const session = await runtime.openSession()
      try {
        await session.run({ program: 'const kept = 5', bindings: [] })
        assert.equal((await session.run({ program: 'return kept + 1', bindings: [] })).value, 6)
      } finally {
        await session.dispose()
      }
    } finally {
      await dispose()
    }
  })

  it('never hands a run to a runner that has only a caller\'s credentials', async () => {
    await Promise.all(runners.map((runner) => runner.drain(500)))
    runners = await startTestRunners(server.url, 1, { id: 'impostor', nats: { servers: server.url, user: 'caller', pass: 'caller-secret' } })
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, user: 'caller', pass: 'caller-secret', maxQueueMs: 500 })
    try {
      const result = await runtime.run({ program: 'return 1', bindings: [] })
      assert.equal(result.error?.kind, 'timeout')
      assert.match(result.error?.message ?? '', /maxQueueMs/)
    } finally {
      await dispose()
    }
  })
})
