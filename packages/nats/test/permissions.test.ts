/**
 * The subject permissions docs/SCALING.md gives a deployment, on a real nats-server: each tenant's
 * callers and the runners with their own users, allowed only their side of the subject layout. Runs work
 * under them, and a runner started with a caller's credentials is never handed a run.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime, type Runner } from '@code-runtime/nats'
import {
  RUNNER,
  startNatsServer,
  startTestRunners,
  TENANT_PERMISSIONS,
  VICTIM,
  type NatsServer,
} from './nats-server.js'

describe('nats under the documented subject permissions', () => {
  let server: NatsServer
  let runners: Runner[] = []
  before(async () => {
    server = await startNatsServer({ extraConfig: TENANT_PERMISSIONS })
    runners = await startTestRunners(server.url, 1, { nats: { servers: server.url, ...RUNNER } })
  })
  after(async () => {
    await Promise.all(runners.map(runner => runner.drain(500)))
    await server.dispose()
  })

  it('runs a program with binding calls, and a session, for a caller with its own credentials', async () => {
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, ...VICTIM })
    try {
      const result = await runtime.run({
        program: 'return await tools.twice(21)',
        bindings: [{ global: 'tools', functions: { twice: async value => (value as number) * 2 } }],
      })
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

  it("never hands a run to a runner that has only a caller's credentials", async () => {
    await Promise.all(runners.map(runner => runner.drain(500)))
    runners = await startTestRunners(server.url, 1, { id: 'impostor', nats: { servers: server.url, ...VICTIM } })
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      ...VICTIM,
      maxQueueMs: 500,
    })
    try {
      const result = await runtime.run({ program: 'return 1', bindings: [] })
      assert.equal(result.error?.kind, 'timeout')
      assert.match(result.error?.message ?? '', /maxQueueMs/)
    } finally {
      await dispose()
    }
  })
})
