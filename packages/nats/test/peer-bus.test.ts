/**
 * The peer bus between gateway nodes on a real nats-server: a round trip, each way a request can
 * fail (no node, no answer in time, a handler that throws), and the attacks it must withstand: a
 * forged, replayed or stale request never reaches the handler and is counted; a forged answer sent
 * first to the asker's inbox is ignored and the real one wins; a bus of another key is not heard.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { CodeRuntimeError } from '@code-runtime/core'
import { connectPeerBus, PeerFailed, PeerUnreachable, type PeerBus } from '@code-runtime/nats'
import { startNatsServer, type NatsServer } from './nats-server.js'

const KEY = randomBytes(32)
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The first request a spy sees on `subject`. */
function capture(spy: NatsConnection, subject: string): Promise<Msg> {
  return new Promise(resolve => {
    const subscription = spy.subscribe(subject, {
      callback: (error, message) => {
        if (error !== null) return
        subscription.unsubscribe()
        resolve(message)
      },
    })
  })
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

describe('peer bus', () => {
  let server: NatsServer
  let alpha: PeerBus
  let beta: PeerBus
  let spy: NatsConnection
  const handled: string[] = []
  before(async () => {
    server = await startNatsServer()
    alpha = await connectPeerBus({ nats: { servers: server.url, inboxPrefix: '_INBOX.gw' }, node: 'alpha', key: KEY })
    beta = await connectPeerBus({ nats: { servers: server.url, inboxPrefix: '_INBOX.gw' }, node: 'beta', key: KEY })
    spy = await connect({ servers: server.url })
    await beta.serve('echo', async body => {
      handled.push(decoder.decode(body))
      return encoder.encode(`echo ${decoder.decode(body)}`)
    })
    await beta.serve('slow', async body => {
      await new Promise(resolve => setTimeout(resolve, 300))
      return body
    })
    await beta.serve('fail', async () => {
      throw new Error('the paused run is gone')
    })
  })
  after(async () => {
    await Promise.all([alpha.close(), beta.close(), spy.close()])
    await server.dispose()
  })

  it('answers a request with the handler bytes', async () => {
    const answer = await alpha.ask('beta', 'echo', encoder.encode('hi'), { timeoutMs: 5_000 })
    assert.equal(decoder.decode(answer), 'echo hi')
  })

  it('rejects with PeerUnreachable when no node serves it, and when it does not answer in time', async () => {
    await assert.rejects(
      alpha.ask('gamma', 'echo', new Uint8Array(0), { timeoutMs: 60_000 }),
      (error: unknown) => error instanceof PeerUnreachable && /no responders/.test(error.message),
    )
    await assert.rejects(
      alpha.ask('beta', 'slow', new Uint8Array(0), { timeoutMs: 50 }),
      (error: unknown) => error instanceof PeerUnreachable && error.node === 'beta',
    )
  })

  it("rejects with PeerFailed carrying the handler's message, and with the signal's reason", async () => {
    await assert.rejects(
      alpha.ask('beta', 'fail', new Uint8Array(0), { timeoutMs: 5_000 }),
      (error: unknown) => error instanceof PeerFailed && error.message === 'the paused run is gone',
    )
    const controller = new AbortController()
    const asking = alpha.ask('beta', 'slow', new Uint8Array(0), { timeoutMs: 5_000, signal: controller.signal })
    controller.abort(new Error('client went away'))
    await assert.rejects(asking, /client went away/)
  })

  it('refuses a body past the server max_payload (8 MiB here)', async () => {
    await assert.rejects(
      alpha.ask('beta', 'echo', new Uint8Array(8 * 1024 * 1024), { timeoutMs: 5_000 }),
      (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_INVALID_REQUEST',
    )
  })

  // Forgery, replay and staleness: requests a third party on the bus sends to a node.
  it('drops a forged, a replayed and a stale request unread, and counts each', async () => {
    const captured = capture(spy, 'code-runtime.gateway.beta.echo')
    await spy.flush()
    await alpha.ask('beta', 'echo', encoder.encode('real'), { timeoutMs: 5_000 })
    const valid = await captured
    const before = beta.rejectedMessages
    const count = handled.length
    const forged = Uint8Array.from(valid.data)
    forged[forged.length - 1] = (forged[forged.length - 1] ?? 0) ^ 1
    spy.publish('code-runtime.gateway.beta.echo', forged, { reply: '_INBOX.spy.1' })
    spy.publish('code-runtime.gateway.beta.echo', valid.data, { reply: '_INBOX.spy.2' })
    // A request of another node, sent to this one: its MAC names the target.
    spy.publish('code-runtime.gateway.beta.slow', valid.data, { reply: '_INBOX.spy.3' })
    await waitFor(() => beta.rejectedMessages >= before + 3, 'three rejections')
    assert.equal(handled.length, count)
  })

  it('drops a request sealed more than 60 s ago', async () => {
    const stale = capture(spy, 'code-runtime.gateway.beta.echo')
    await spy.flush()
    // Read before sending: beta may drop the request before the spy's copy is handled here.
    const before = beta.rejectedMessages
    const realNow = Date.now
    Date.now = () => realNow() - 120_000
    try {
      void alpha.ask('beta', 'echo', encoder.encode('stale'), { timeoutMs: 300 }).catch(() => undefined)
    } finally {
      Date.now = realNow
    }
    await stale
    await waitFor(() => beta.rejectedMessages > before || handled.includes('stale'), 'the stale request')
    assert.ok(!handled.includes('stale'))
  })

  // Answer forgery: a party that can publish to the asker's inbox answers first.
  it('ignores a forged answer sent first; the real answer wins', async () => {
    const forger = spy.subscribe('code-runtime.gateway.beta.slow', {
      callback: (error, message) => {
        if (error === null && message.reply !== undefined) spy.publish(message.reply, encoder.encode('FORGED'))
      },
    })
    await spy.flush()
    const before = alpha.rejectedMessages
    const answer = await alpha.ask('beta', 'slow', encoder.encode('genuine'), { timeoutMs: 5_000 })
    forger.unsubscribe()
    assert.equal(decoder.decode(answer), 'genuine')
    assert.ok(alpha.rejectedMessages > before)
  })

  it('does not hear a bus with another key', async () => {
    const outsider = await connectPeerBus({ nats: { servers: server.url }, node: 'outsider', key: randomBytes(32) })
    try {
      const before = beta.rejectedMessages
      await assert.rejects(
        outsider.ask('beta', 'echo', encoder.encode('intruder'), { timeoutMs: 500 }),
        (error: unknown) => error instanceof PeerUnreachable,
      )
      assert.ok(beta.rejectedMessages > before)
      assert.ok(!handled.includes('intruder'))
    } finally {
      await outsider.close()
    }
  })

  it('refuses a short key and a node that is not a subject token', async () => {
    for (const [options, field] of [
      [{ nats: { servers: server.url }, node: 'n', key: new Uint8Array(16) }, 'key'],
      [{ nats: { servers: server.url }, node: 'a.b', key: KEY }, 'node'],
    ] as const) {
      await assert.rejects(
        connectPeerBus(options),
        (error: unknown) =>
          CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_INVALID_CONFIG' && error.field === field,
      )
    }
  })
})
