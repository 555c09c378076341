/**
 * A rogue tenant against the tenant model docs/SCALING.md gives, on a real nats-server: two
 * tenants with the documented caller permissions (each its own inbox prefix), runners with the
 * runner permissions, and an attacker who knows every id an insider could see (a connection with
 * the runner's credentials tells it the run and session ids). One test per attack: reading and
 * answering another tenant's binding calls, running in another's session, aborting another's run,
 * starving the claims, exploding a runner's backends; and, on a bus with no credentials at all,
 * forging a run's binding call and its end. Every forged message must be dropped, never acted on,
 * and counted (`rejectedMessages` on the runner or the caller).
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { startCodeRuntime, type CodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { NatsCodeRuntime, startRunner, type Runner, type RunBudgets } from '@code-runtime/nats'
import { heldTools } from './held-tools.js'
import {
  ROGUE,
  RUNNER,
  startNatsServer,
  startWorkerBackend,
  TENANT_PERMISSIONS as TENANTS,
  VICTIM,
  type NatsServer,
} from './nats-server.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A message as the rogue sends it: plain JSON (what an unauthenticated protocol takes), and with a made-up seal in front. */
function forgeries(body: object): Uint8Array[] {
  const json = encoder.encode(JSON.stringify(body))
  const sealed = new Uint8Array(40 + json.length)
  sealed.fill(7, 0, 40)
  sealed.set(json, 40)
  return [json, sealed]
}

async function waitFor(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

/** The first subject an insider connection sees matching `pattern`, and its tokens. */
function learnSubject(spy: NatsConnection, subject: string): Promise<string[]> {
  return new Promise(resolve => {
    const subscription = spy.subscribe(subject, {
      callback: (error, message) => {
        if (error !== null) return
        subscription.unsubscribe()
        resolve(message.subject.split('.'))
      },
    })
  })
}

describe('nats with two tenants under the documented permissions', () => {
  let server: NatsServer
  let runner: Runner
  let live = 0
  let mostLive = 0
  const countedBackend = async (budgets: RunBudgets): Promise<StartedCodeRuntime<CodeRuntime>> => {
    const started = await startWorkerBackend(budgets)
    live++
    mostLive = Math.max(mostLive, live)
    return {
      ...started,
      dispose: async () => {
        live--
        await started.dispose()
      },
    }
  }
  const connectAs = (credentials: { user: string; pass: string; inboxPrefix: string }): Promise<NatsConnection> =>
    connect({
      servers: server.url,
      user: credentials.user,
      pass: credentials.pass,
      inboxPrefix: credentials.inboxPrefix,
    })

  before(async () => {
    server = await startNatsServer({ extraConfig: TENANTS })
    runner = await startRunner({
      nats: { servers: server.url, ...RUNNER },
      startBackend: countedBackend,
      id: 'shared',
      concurrency: 2,
    })
  })
  after(async () => {
    await runner.drain(500)
    await server.dispose()
  })

  it("lets no other tenant read a run's binding calls, nor answer them", async () => {
    const rogue = await connectAs(ROGUE)
    const seen: string[] = []
    const answerFirst = (error: Error | null, message: Msg): void => {
      if (error !== null) return
      seen.push(`${message.subject} ${decoder.decode(message.data)}`)
      if (message.reply !== undefined)
        message.respond(encoder.encode(JSON.stringify({ ok: true, valueJson: '"FORGED"' })))
    }
    for (const subject of ['_INBOX.>', '_INBOX.tenant-a.>', '>']) rogue.subscribe(subject, { callback: answerFirst })
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, ...VICTIM })
    try {
      const result = await runtime.run({
        program: "return await api.lookup({ secret: 'the-secret' })",
        bindings: [
          {
            global: 'api',
            functions: { lookup: async () => (await new Promise(resolve => setTimeout(resolve, 50)), 'real') },
          },
        ],
      })
      assert.equal(result.error, undefined, result.error?.message)
      assert.equal(result.value, 'real')
      assert.deepEqual(
        seen.filter(entry => entry.includes('the-secret') || entry.includes('lookup')),
        [],
      )
    } finally {
      await dispose()
      await rogue.close()
    }
  })

  it("runs nothing in another tenant's session, even for a rogue that knows its ids", async () => {
    const spy = await connectAs(RUNNER)
    const rogue = await connectAs(ROGUE)
    const stolen: string[] = []
    rogue.subscribe('_INBOX.tenant-b.stolen.>', {
      callback: (error, message) => {
        if (error === null) stolen.push(decoder.decode(message.data))
      },
    })
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      ...VICTIM,
      heartbeatMs: 100,
      lostAfterMs: 1_000,
    })
    try {
      const beat = learnSubject(spy, 'code-runtime.runner.*.session.*.beat')
      const session = await runtime.openSession()
      try {
        assert.equal((await session.run({ program: "var secret = 'kept'", bindings: [] })).error, undefined)
        const [, , runnerId, , claim] = await beat
        const rejectedBefore = runner.load().rejectedMessages
        let sent = 0
        for (const v of [1, 2]) {
          for (const data of forgeries({
            v,
            run: `rogue${v}`,
            reply: '_INBOX.tenant-b.stolen',
            program: "const was = secret\nsecret = 'OVERWRITTEN'\nreturn was",
            namespaces: [],
            budgets: { computeMs: 1000, maxWallMs: 5000, maxOutputBytes: 1000 },
            session: claim,
          })) {
            rogue.publish(`code-runtime.runner.${runnerId}.start`, data, { reply: '_INBOX.tenant-b.stolen.reply' })
            sent++
          }
        }
        await rogue.flush()
        await waitFor(
          () => runner.load().rejectedMessages >= rejectedBefore + sent,
          'the runner to drop every forged start',
        )
        await new Promise(resolve => setTimeout(resolve, 300))
        assert.deepEqual(stolen, [])
        assert.equal((await session.run({ program: 'return secret', bindings: [] })).value, 'kept')
      } finally {
        await session.dispose()
      }
    } finally {
      await dispose()
      await Promise.all([spy.close(), rogue.close()])
    }
  })

  it('lets no other tenant abort a run, even one that knows its id', async () => {
    const spy = await connectAs(RUNNER)
    const rogue = await connectAs(ROGUE)
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      ...VICTIM,
      heartbeatMs: 100,
      lostAfterMs: 1_000,
    })
    try {
      const beat = learnSubject(spy, 'code-runtime.runner.*.run.*.beat')
      const held = heldTools()
      const running = runtime.run({ program: 'return await tools.hold({})', bindings: [held.tools] })
      await held.entered
      const [, , runnerId, , run] = await beat
      const rejectedBefore = runner.load().rejectedMessages
      const attempts = 50
      for (let index = 0; index < attempts; index++) {
        for (const data of forgeries({ reason: 'aborted by the rogue' }))
          rogue.publish(`code-runtime.runner.${runnerId}.run.${run}.abort`, data)
      }
      await rogue.flush()
      await waitFor(
        () => runner.load().rejectedMessages >= rejectedBefore + 2 * attempts,
        'the runner to drop every forged abort',
      )
      held.release()
      const result = await running
      assert.equal(result.error, undefined, result.error?.message)
      assert.equal(result.value, 'released')
    } finally {
      await dispose()
      await Promise.all([spy.close(), rogue.close()])
    }
  })

  it('keeps a slot for another tenant while a rogue claims without starting and fills its own share', async () => {
    const rogue = await connectAs(ROGUE)
    const greedy = await startCodeRuntime(NatsCodeRuntime, { servers: server.url, ...ROGUE, maxQueueMs: 20_000 })
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
      servers: server.url,
      ...VICTIM,
      maxQueueMs: 3_000,
    })
    let flooding = true
    const flood = (async () => {
      while (flooding) {
        await Promise.allSettled(
          Array.from({ length: 20 }, (_unused, index) =>
            rogue.request(
              'code-runtime.claim',
              encoder.encode(JSON.stringify({ v: 2, run: `hog${index}${Date.now()}` })),
              { timeout: 500 },
            ),
          ),
        )
      }
    })()
    const holds = [heldTools(), heldTools()]
    const greedyRuns = holds.map(held =>
      greedy.runtime.run({ program: 'return await tools.hold({})', bindings: [held.tools] }),
    )
    try {
      await holds[0]?.entered
      const result = await runtime.run({ program: 'return 2', bindings: [] })
      assert.equal(result.error, undefined, result.error?.message)
      assert.equal(result.value, 2)
    } finally {
      flooding = false
      await flood
      for (const held of holds) held.release()
      await Promise.all(greedyRuns)
      await Promise.all([dispose(), greedy.dispose(), rogue.close()])
    }
  })

  it('keeps at most maxBackends backends however many distinct budgets callers ask for', async () => {
    const before = mostLive
    for (let index = 0; index < 10; index++) {
      const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, {
        servers: server.url,
        ...ROGUE,
        computeMs: 1_000 + index,
      })
      try {
        const result = await runtime.run({ program: 'return 1', bindings: [] })
        assert.equal(result.error, undefined, result.error?.message)
      } finally {
        await dispose()
      }
    }
    assert.ok(mostLive <= 4, `at most 4 backends alive at once, saw ${mostLive} (before: ${before})`)
    assert.ok(live <= 4 && runner.load().backends <= 4, `${live} alive now`)
  })
})

describe('nats on a bus without credentials', () => {
  let server: NatsServer
  let runner: Runner
  before(async () => {
    server = await startNatsServer()
    runner = await startRunner({ nats: { servers: server.url }, startBackend: startWorkerBackend, id: 'open' })
  })
  after(async () => {
    await runner.drain(500)
    await server.dispose()
  })

  it('drops a forged answer, a forged binding call and a forged end from a client that reads everything', async () => {
    const rogue = await connect({ servers: server.url })
    const deleted: unknown[] = []
    const forged: string[] = []
    rogue.subscribe('>', {
      callback: (error, message) => {
        // Once: the rogue hears its own forgeries too.
        if (error !== null || !message.subject.endsWith('.call') || forged.length > 0) return
        const reply = message.subject.slice(0, -'.call'.length)
        // Answer first, then make the caller's host run a binding the program never called, then end the run.
        if (message.reply !== undefined) {
          for (const data of forgeries({ id: 0, ok: true, valueJson: '"FORGED"' })) rogue.publish(message.reply, data)
          forged.push('answer')
        }
        for (const data of forgeries({ id: 99, namespace: 0, member: 'deleteAll', argsJson: '{"everything":true}' }))
          rogue.publish(`${reply}.call`, data, { reply: `${reply}.rogue` })
        for (const data of forgeries({
          result: {
            logs: [],
            valueJson: '"FORGED END"',
            usage: { wallMs: 1, busyMs: 1, bindingCalls: 0, outputBytes: 1 },
            calls: [],
          },
        }))
          rogue.publish(`${reply}.end`, data)
        forged.push('call', 'end')
      },
    })
    await rogue.flush()
    const { runtime, dispose } = await startCodeRuntime(NatsCodeRuntime, { servers: server.url })
    try {
      const result = await runtime.run({
        program: 'return await api.lookup({})',
        bindings: [
          {
            global: 'api',
            functions: {
              lookup: async () => (await new Promise(resolve => setTimeout(resolve, 100)), 'real'),
              deleteAll: async args => (deleted.push(args), 'deleted'),
            },
          },
        ],
      })
      assert.deepEqual(forged.slice(0, 3), ['answer', 'call', 'end'])
      assert.equal(result.error, undefined, result.error?.message)
      assert.equal(result.value, 'real')
      assert.deepEqual(deleted, [])
      const nats = runtime as NatsCodeRuntime
      assert.ok(nats.rejectedMessages >= 4, `the caller dropped the forged calls and ends (${nats.rejectedMessages})`)
      assert.ok(
        runner.load().rejectedMessages >= 2,
        `the runner dropped the forged answers (${runner.load().rejectedMessages})`,
      )
    } finally {
      await dispose()
      await rogue.close()
    }
  })
})
