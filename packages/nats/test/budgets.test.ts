/**
 * Budgets at their bounds through a real nats-server: the largest maxWallMs the config accepts
 * (2^31 − 1 ms) must mean "as long as a timer can wait", never "at once", however the caller's
 * backstop adds its margin.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCodeRuntime } from '@code-runtime/core'
import { MAX_TIMER_MS } from '@code-runtime/core/internal'
import { NatsCodeRuntime, type Runner } from '@code-runtime/nats'
import { startNatsServer, startTestRunners, type NatsServer } from './nats-server.js'

describe('nats budgets at their bounds', () => {
  let server: NatsServer
  let runners: Runner[] = []
  before(async () => {
    server = await startNatsServer()
    runners = await startTestRunners(server.url, 1)
  })
  after(async () => {
    await Promise.all(runners.map(runner => runner.drain(1_000)))
    await server.dispose()
  })

  it(`runs a program with maxWallMs ${MAX_TIMER_MS} (the largest accepted), one-shot and in a session`, async () => {
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      maxWallMs: MAX_TIMER_MS,
    })
    try {
      const result = await runtime.run({
        program: 'await new Promise((resolve) => setTimeout(resolve, 50))\nreturn 1 + 1',
        bindings: [],
      })
      assert.equal(result.error, undefined, result.error?.message)
      assert.equal(result.value, 2)
      const session = await runtime.openSession({ maxWallMs: MAX_TIMER_MS, idleMs: MAX_TIMER_MS })
      try {
        const kept = await session.run({
          program: 'await new Promise((resolve) => setTimeout(resolve, 50))\nconst two = 2\nreturn two',
          bindings: [],
        })
        assert.equal(kept.error, undefined, kept.error?.message)
        assert.equal((await session.run({ program: 'return two', bindings: [] })).value, 2)
      } finally {
        await session.dispose()
      }
    } finally {
      await dispose()
    }
  })
})
