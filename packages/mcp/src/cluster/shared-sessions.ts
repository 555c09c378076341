/**
 * Sessions named by handles that any gateway node can serve (`serve --http --nats`): a session
 * lives on a runner, and the node a call lands on takes it over there when another node (or a node
 * that died) held it. What the node keeps is a cache: per principal, the sessions it holds now,
 * each a Code Mode session over the runtime session it opened or took over.
 *
 * The handle is signed (signed-handles.ts) and names the runtime session's address; the check's
 * knowledge of the session's variables (their names and types) is stored with the session on its
 * runner after each run, so the node that takes it over checks the next program as the last node
 * would have. A session that ended (its runner stopped, it expired, it was reset) is gone for
 * every node alike: its handle then says "session lost", and nothing runs.
 */
import { createCodeModeSession, type CodeModeSession } from '@code-runtime/code-mode'
import { CodeRuntimeError, type CodeSession, type CodeSessionOptions } from '@code-runtime/core'
import type { AdoptableSession } from '@code-runtime/nats'
import { DEFAULT_MAX_SESSIONS_PER_PRINCIPAL } from '../server/session-handles.js'
import type { SignedHandles } from './signed-handles.js'

/**
 * A runtime session another node can take over: its address, a note it keeps for whoever holds it
 * next, and how to let it go without ending it (`@code-runtime/nats`'s sessions, opened with an
 * adoption key).
 */
export type MovableSession = AdoptableSession

/** The runtime of a gateway node: opens sessions, and takes over those other nodes opened. */
export interface SessionFleet {
  openSession(options?: CodeSessionOptions): Promise<CodeSession>
  adoptSession(address: string): Promise<{ readonly session: MovableSession; readonly memo: string | undefined }>
}

/** A session this node holds for a principal. */
interface HeldSession {
  readonly principal: string
  address: string
  remote: MovableSession
  readonly session: CodeModeSession
  inUse: number
  /** The kept names last stored on the runner, as sent. */
  sentMemo: string | undefined
}

/** A session ready for a run: the Code Mode session, and what to do once the run is over. */
export interface SharedSessionLease {
  readonly kind: 'lease'
  readonly session: CodeModeSession
  /** The run is over: stores what the check knows with the session; the handle the result names, and whether the session was lost. */
  finish(): Promise<{ readonly handle: string; readonly lost: boolean }>
}

/** Why a run got no session: what the model reads. Nothing ran. */
export interface RefusedSession {
  readonly kind: 'refused'
  readonly text: string
}

/** The kept names as they travel with the session: `[name, type]` pairs. */
function readMemo(memo: string | undefined): readonly (readonly [string, string])[] {
  if (memo === undefined) return []
  try {
    const entries: unknown = JSON.parse(memo)
    // Each entry is checked again by restoreKeptNames; here only the outer shape.
    return Array.isArray(entries) ? (entries as (readonly [string, string])[]) : []
  } catch {
    return []
  }
}

function everySessionBusy(): RefusedSession {
  return {
    kind: 'refused',
    text: 'Every session you keep here is running a program; nothing ran. Retry when one has finished, or pass the `session` of one of them.',
  }
}

function sessionLost(handle: string, why: string): RefusedSession {
  return {
    kind: 'refused',
    text: `The session ${handle} is gone (session lost: ${why}); its variables with it, and nothing ran. Run without \`session\` to start a new one.`,
  }
}

export class SharedSessions {
  readonly #fleet: SessionFleet
  readonly #handles: SignedHandles
  readonly #options: CodeSessionOptions | undefined
  readonly #maxPerPrincipal: number
  /** Per principal, its sessions here by address, least recently used first. */
  readonly #byPrincipal = new Map<string, Map<string, HeldSession>>()
  /** Takeovers under way, by principal and address: two calls of one session share one. */
  readonly #adopting = new Map<string, Promise<HeldSession | RefusedSession>>()

  constructor(
    fleet: SessionFleet,
    handles: SignedHandles,
    options: CodeSessionOptions | undefined,
    maxPerPrincipal = DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
  ) {
    this.#fleet = fleet
    this.#handles = handles
    this.#options = options
    this.#maxPerPrincipal = maxPerPrincipal
  }

  /** A new session for `principal`, opened now (so its result can name it). */
  async open(principal: string): Promise<SharedSessionLease | RefusedSession> {
    if (!this.#makeRoom(principal)) return everySessionBusy()
    let remote: MovableSession
    try {
      remote = await this.#openRemote()
    } catch (error) {
      return { kind: 'refused', text: `${unavailable(error)} Nothing ran in it; try again shortly.` }
    }
    return this.#lease(this.#hold(principal, remote, undefined))
  }

  /** The session `handle` names, held here or taken over from wherever it is. */
  async acquire(principal: string, handle: string): Promise<SharedSessionLease | RefusedSession> {
    const address = this.#handles.open(handle, principal)
    if (address === undefined) {
      return {
        kind: 'refused',
        text: `There is no session ${handle} of yours (it was not given to you by this service); nothing ran. Run without \`session\` to start a new one.`,
      }
    }
    let held = this.#byPrincipal.get(principal)?.get(address)
    if (held !== undefined && held.remote.endReason !== undefined) {
      // Moved to another node, or its runner fell silent here (a NATS restart looks the same as a
      // dead runner): ask the runner again. One that no longer holds it says so, and the handle
      // then names nothing, on every node alike.
      this.#forget(held)
      void held.session.dispose().catch(() => undefined)
      held = undefined
    }
    if (held === undefined) {
      // A session taken over counts in the principal's bound here, as one opened here does.
      if (!this.#makeRoom(principal)) return everySessionBusy()
      const adopted = await this.#adopt(principal, address, handle)
      if ('kind' in adopted) return adopted
      held = adopted
    }
    return this.#lease(held)
  }

  /**
   * Lets go of every session this node holds (the server stops): each stays on its runner, with
   * what the check knows of it, for the next call on another node to take over.
   */
  async releaseAll(): Promise<void> {
    const held = [...this.#byPrincipal.values()].flatMap(sessions => [...sessions.values()])
    this.#byPrincipal.clear()
    await Promise.allSettled(held.map(entry => entry.remote.release()))
  }

  async #openRemote(): Promise<MovableSession> {
    const opened = (await this.#fleet.openSession(this.#options)) as Partial<MovableSession> & CodeSession
    if (
      typeof opened.address !== 'string' ||
      typeof opened.keepMemo !== 'function' ||
      typeof opened.release !== 'function'
    ) {
      await opened.dispose()
      throw new Error('the runtime opened a session no other node can take over (no adoption key)')
    }
    return opened as MovableSession
  }

  #adopt(principal: string, address: string, handle: string): Promise<HeldSession | RefusedSession> {
    const key = `${principal}\0${address}`
    let adopting = this.#adopting.get(key)
    if (adopting === undefined) {
      adopting = this.#fleet.adoptSession(address).then(
        ({ session, memo }) => this.#hold(principal, session, memo),
        (error: unknown): RefusedSession => {
          // The runtime's word for a session its runner does not hold (ended, or the runner gone).
          if (CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_SESSION_CLOSED')
            return sessionLost(handle, 'no runner holds it any more: it ended, or its runner stopped')
          if (CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_SESSION_START_FAILED')
            return {
              kind: 'refused',
              text: `The session ${handle} is busy with a run of another call; nothing ran. Retry when it has finished.`,
            }
          return { kind: 'refused', text: `${unavailable(error)} Nothing ran in it; try again shortly.` }
        },
      )
      this.#adopting.set(key, adopting)
      void adopting.finally(() => this.#adopting.delete(key))
    }
    return adopting
  }

  /** Files `remote` as `principal`'s, with the names its memo says it kept. */
  #hold(principal: string, remote: MovableSession, memo: string | undefined): HeldSession {
    let fresh: MovableSession | undefined = remote
    // The Code Mode session opens its runtime session on its first run: the one held. After a
    // `reset: true` it asks again, and gets a new one (a new address, so a new handle).
    const source = {
      openSession: async (): Promise<CodeSession> => {
        if (fresh !== undefined) {
          const first = fresh
          fresh = undefined
          return first
        }
        const next = await this.#openRemote()
        const sessions = this.#byPrincipal.get(principal)
        sessions?.delete(held.address)
        held.remote = next
        held.address = next.address as string
        held.sentMemo = undefined
        sessions?.set(held.address, held)
        return next
      },
    }
    const held: HeldSession = {
      principal,
      address: remote.address as string,
      remote,
      session: createCodeModeSession(source, this.#options),
      inUse: 0,
      sentMemo: memo,
    }
    held.session.restoreKeptNames(readMemo(memo))
    let sessions = this.#byPrincipal.get(principal)
    if (sessions === undefined) {
      sessions = new Map()
      this.#byPrincipal.set(principal, sessions)
    }
    sessions
      .get(held.address)
      ?.session.dispose()
      .catch(() => undefined)
    sessions.set(held.address, held)
    return held
  }

  #lease(held: HeldSession): SharedSessionLease {
    held.inUse++
    const sessions = this.#byPrincipal.get(held.principal)
    sessions?.delete(held.address)
    sessions?.set(held.address, held)
    let finished = false
    return {
      kind: 'lease',
      session: held.session,
      finish: async () => {
        if (!finished) {
          finished = true
          held.inUse--
        }
        const { remote } = held
        const handle = this.#handles.seal(held.address, held.principal)
        if (remote.endReason !== undefined) {
          if (!remote.movedAway) this.#forget(held)
          return { handle, lost: remote.endReason === 'lost' && !remote.movedAway }
        }
        const memo = JSON.stringify(held.session.keptNames())
        if (memo !== held.sentMemo) {
          try {
            await remote.keepMemo(memo)
            held.sentMemo = memo
          } catch {
            // The session moved or ended meanwhile: whoever holds it now checks without these names.
          }
        }
        return { handle, lost: false }
      },
    }
  }

  /** Room for one more session of `principal`: its least recently used idle session here ends. False when all are running. */
  #makeRoom(principal: string): boolean {
    const sessions = this.#byPrincipal.get(principal)
    if (sessions === undefined || sessions.size < this.#maxPerPrincipal) return true
    const idle = [...sessions.values()].find(entry => entry.inUse === 0)
    if (idle === undefined) return false
    this.#forget(idle)
    void idle.session.dispose().catch(() => undefined)
    return true
  }

  #forget(held: HeldSession): void {
    const sessions = this.#byPrincipal.get(held.principal)
    if (sessions?.get(held.address) !== held) return
    sessions.delete(held.address)
    if (sessions.size === 0) this.#byPrincipal.delete(held.principal)
  }
}

function unavailable(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return `The session for run_code could not be opened: ${message}${/[.!?]$/.test(message) ? '' : '.'}`
}
