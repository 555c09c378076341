/**
 * A caller whose event loop stalls is not a lost runner. A binding function that blocks the
 * event loop (a large value checked synchronously does, and any loaded machine) holds up every
 * message of this process, heartbeats included; the runs must still settle with their value.
 * Before, the first look after the stall saw more than `lostAfterMs` since the runner's last
 * beat and settled the run `worker-exit` ("stopped answering"), though the runner was fine.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startCodeRuntime, type CodeBindingNamespace } from '@code-runtime/core'
import { NatsCodeRuntime, type Runner } from '@code-runtime/nats'
import { startNatsServer, startTestRunners, type NatsServer } from './nats-server.js'

function stallEventLoop(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // Busy on purpose: nothing else of this process runs meanwhile.
  }
}

const stallingTools: CodeBindingNamespace = {
  global: 'tools',
  functions: {
    stall: async (args: unknown) => {
      stallEventLoop((args as { ms: number }).ms)
      return 'after the stall'
    },
  },
}

let server: NatsServer
before(async () => {
  server = await startNatsServer()
})
after(async () => {
  await server.dispose()
})

describe('nats under a stalled event loop', () => {
  it('settles a one-shot run and a session run with their values when the caller stalls past lostAfterMs', async () => {
    // Runner and caller share this process, so both sides' beats and looks stall together.
    const runners: Runner[] = await startTestRunners(server.url, 1, {
      id: 'stalled',
      heartbeatMs: 100,
      lostAfterMs: 500,
    })
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      heartbeatMs: 100,
      lostAfterMs: 500,
    })
    try {
      const result = await runtime.run({
        program: 'const first = await tools.stall({ ms: 2000 })\nreturn [first, await tools.stall({ ms: 1500 })]',
        bindings: [stallingTools],
      })
      assert.equal(result.error, undefined, result.error?.message)
      assert.deepEqual(result.value, ['after the stall', 'after the stall'])

      const session = await runtime.openSession()
      try {
        const kept = await session.run({
          program: 'var seen = await tools.stall({ ms: 2000 })\nreturn seen',
          bindings: [stallingTools],
        })
        assert.equal(kept.error, undefined, kept.error?.message)
        const again = await session.run({ program: 'return seen', bindings: [] })
        assert.equal(again.error, undefined, again.error?.message)
        assert.equal(again.value, 'after the stall')
      } finally {
        await session.dispose()
      }
    } finally {
      await dispose()
      await Promise.all(runners.map(runner => runner.drain(500)))
    }
  })
})
