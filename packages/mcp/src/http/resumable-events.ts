/**
 * What makes a 2025-era response stream resumable (`Last-Event-ID`): every message the server
 * sends on a session's streams is kept for a while, so a client whose connection dropped in the
 * middle of a run reconnects and gets what it missed, the run's result included, instead of losing
 * the run. One store serves every session, so its bounds hold for the server as a whole: the
 * oldest events go first once it holds too many, too many bytes, or events older than the age
 * bound. Each session sees only its own events: ids are numbered per session and looked up by
 * (session, id), so an id from another session, or a made-up one, finds nothing.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server'

/** Bounds of {@link ResumableEvents}. */
export interface ResumableEventLimits {
  /** Events kept, all sessions together. */
  readonly maxEvents: number
  /** Bytes of kept messages (as JSON), all sessions together. */
  readonly maxBytes: number
  /** An event older than this is no longer replayed, in milliseconds. */
  readonly maxAgeMs: number
}

export const DEFAULT_RESUMABLE_EVENT_LIMITS: ResumableEventLimits = {
  maxEvents: 10_000,
  maxBytes: 32 * 1024 * 1024,
  maxAgeMs: 5 * 60_000,
}

interface StoredEvent {
  readonly session: string
  readonly stream: string
  readonly id: string
  readonly message: JSONRPCMessage
  readonly bytes: number
  readonly storedAt: number
}

interface SessionEvents {
  nextId: number
  /** Each stream's kept events, oldest first. */
  readonly streams: Map<string, StoredEvent[]>
}

function keyOf(session: string, id: string): string {
  return `${session}\n${id}`
}

/**
 * The SDK writes an empty object first on each stream (its "priming" event, which only gives the
 * client an id to resume from); it is no message, so a replay does not send it again.
 */
function isPriming(message: JSONRPCMessage): boolean {
  return !('jsonrpc' in message)
}

export class ResumableEvents {
  readonly #limits: ResumableEventLimits
  /** Every kept event by (session, id), in the order stored: the first is the oldest. */
  readonly #events = new Map<string, StoredEvent>()
  readonly #sessions = new Map<string, SessionEvents>()
  #bytes = 0

  constructor(limits: ResumableEventLimits = DEFAULT_RESUMABLE_EVENT_LIMITS) {
    this.#limits = limits
  }

  /** Events kept now, all sessions together. */
  get size(): number {
    return this.#events.size
  }

  /** The SDK transport's view for one session: it stores and replays that session's events only. */
  forSession(session: string): EventStore {
    return {
      storeEvent: async (stream, message) => this.#store(session, stream, message),
      getStreamIdForEventId: async id => this.#find(session, id)?.stream,
      replayEventsAfter: async (id, { send }) => {
        const after = this.#find(session, id)
        // The SDK asked getStreamIdForEventId first and refused an unknown id; this holds the line anyway.
        if (after === undefined) throw new Error('No event with this id is kept for the session.')
        const later = (this.#sessions.get(session)?.streams.get(after.stream) ?? []).filter(
          event => Number(event.id) > Number(after.id) && !isPriming(event.message),
        )
        for (const event of later) await send(event.id, event.message)
        return after.stream
      },
    }
  }

  /** Drops every event of a session that ended. */
  endSession(session: string): void {
    const events = this.#sessions.get(session)
    if (events === undefined) return
    this.#sessions.delete(session)
    for (const stream of events.streams.values()) {
      for (const event of stream) {
        this.#events.delete(keyOf(session, event.id))
        this.#bytes -= event.bytes
      }
    }
  }

  #store(session: string, stream: string, message: JSONRPCMessage): string {
    let events = this.#sessions.get(session)
    if (events === undefined) {
      events = { nextId: 1, streams: new Map() }
      this.#sessions.set(session, events)
    }
    const id = String(events.nextId++)
    const bytes = JSON.stringify(message).length
    // A message larger than the whole store is sent but cannot be kept: a replay goes on without it.
    if (bytes > this.#limits.maxBytes) return id
    const event: StoredEvent = { session, stream, id, message, bytes, storedAt: Date.now() }
    this.#events.set(keyOf(session, id), event)
    this.#bytes += bytes
    const kept = events.streams.get(stream)
    if (kept === undefined) events.streams.set(stream, [event])
    else kept.push(event)
    this.#dropOldest()
    return id
  }

  #find(session: string, id: string): StoredEvent | undefined {
    this.#dropOldest()
    return this.#events.get(keyOf(session, id))
  }

  /** Drops events from the oldest on while a bound is exceeded or the oldest is too old. */
  #dropOldest(): void {
    const oldestKept = Date.now() - this.#limits.maxAgeMs
    for (const [key, event] of this.#events) {
      const isOver = this.#events.size > this.#limits.maxEvents || this.#bytes > this.#limits.maxBytes
      if (!isOver && event.storedAt >= oldestKept) return
      this.#events.delete(key)
      this.#bytes -= event.bytes
      // The oldest event of all is the oldest of its stream too: the first there.
      const events = this.#sessions.get(event.session)
      const stream = events?.streams.get(event.stream)
      stream?.shift()
      if (stream?.length === 0) events?.streams.delete(event.stream)
    }
  }
}
