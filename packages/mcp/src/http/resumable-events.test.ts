import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server'
import { ResumableEvents } from './resumable-events.js'

const note = (text: string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: text },
})

async function replay(store: EventStore, after: string): Promise<{ stream: string; sent: [string, unknown][] }> {
  const sent: [string, unknown][] = []
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push([id, (message as { params?: { data?: unknown } }).params?.data])
    },
  })
  return { stream, sent }
}

describe('ResumableEvents', () => {
  it('replays what came after an id on its stream, without the priming event, and nothing of other streams', async () => {
    const events = new ResumableEvents()
    const store = events.forSession('s1')
    const priming = await store.storeEvent('post-1', {} as JSONRPCMessage)
    await store.storeEvent('get', note('elsewhere'))
    const first = await store.storeEvent('post-1', note('one'))
    await store.storeEvent('post-1', note('two'))
    assert.equal(await store.getStreamIdForEventId?.(first), 'post-1')
    assert.deepEqual(await replay(store, priming), {
      stream: 'post-1',
      sent: [
        ['3', 'one'],
        ['4', 'two'],
      ],
    })
    assert.deepEqual((await replay(store, first)).sent, [['4', 'two']])
  })

  it("finds nothing of another session's, nor a made-up id", async () => {
    const events = new ResumableEvents()
    const alice = events.forSession('alice-session')
    const bob = events.forSession('bob-session')
    const id = await alice.storeEvent('post', note('secret'))
    assert.equal(await bob.getStreamIdForEventId?.(id), undefined)
    await assert.rejects(replay(bob, id), /No event with this id/)
    for (const madeUp of ['', '0', '-1', 'alice-session\n1', '__proto__', '1e3'])
      assert.equal(await alice.getStreamIdForEventId?.(madeUp), undefined, madeUp)
  })

  it('keeps at most maxEvents and maxBytes for all sessions together, dropping the oldest first', async () => {
    const events = new ResumableEvents({ maxEvents: 3, maxBytes: 1_000_000, maxAgeMs: 60_000 })
    const one = events.forSession('one')
    const two = events.forSession('two')
    const oldest = await one.storeEvent('a', note('1'))
    await two.storeEvent('b', note('2'))
    await one.storeEvent('a', note('3'))
    await two.storeEvent('b', note('4'))
    assert.equal(events.size, 3)
    assert.equal(await one.getStreamIdForEventId?.(oldest), undefined)

    const eachBytes = JSON.stringify(note('line 0')).length
    const small = new ResumableEvents({ maxEvents: 100, maxBytes: 3 * eachBytes + 10, maxAgeMs: 60_000 })
    const store = small.forSession('s')
    const ids = []
    for (let index = 0; index < 10; index++) ids.push(await store.storeEvent('a', note(`line ${index}`)))
    assert.equal(small.size, 3)
    assert.deepEqual(
      (await replay(store, ids[7] ?? '')).sent.map(([, data]) => data),
      ['line 8', 'line 9'],
    )
    // A message larger than the whole store is not kept, and nothing else is dropped for it.
    await store.storeEvent('a', note('x'.repeat(1_000)))
    assert.equal(small.size, 3)
  })

  it('drops events older than maxAgeMs', async () => {
    const events = new ResumableEvents({ maxEvents: 100, maxBytes: 1_000_000, maxAgeMs: 50 })
    const store = events.forSession('s')
    const id = await store.storeEvent('a', note('soon old'))
    await new Promise(resolve => setTimeout(resolve, 80))
    assert.equal(await store.getStreamIdForEventId?.(id), undefined)
    assert.equal(events.size, 0)
  })

  it('drops every event of a session that ended; its ids find nothing after', async () => {
    const events = new ResumableEvents()
    const ended = events.forSession('ended')
    const id = await ended.storeEvent('a', note('gone'))
    await events.forSession('kept').storeEvent('a', note('stays'))
    events.endSession('ended')
    assert.equal(events.size, 1)
    assert.equal(await ended.getStreamIdForEventId?.(id), undefined)
  })
})
