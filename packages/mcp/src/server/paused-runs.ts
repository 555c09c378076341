/**
 * Runs paused at a call that needs a person's approval, for clients that cannot be asked mid-run:
 * on MCP revision 2026-07-28 every request stands alone, so the server asks by ending the
 * `tools/call` with `input_required` (the questions and a `requestState`) and the client retries
 * the call with the answers. The program does not stop meanwhile: it waits at that call like any
 * call waiting for a person, its other calls go on, and its wall budget keeps running.
 *
 * A run asks in rounds. A round holds every question waiting when the request that carries it
 * answers; its state names the run and the round, and may be claimed once: the retry that claims
 * it answers those questions and waits for the next round or the run's end. So an answer reaches
 * a call at most once, and a run is resumed by one retry per round whatever the client repeats.
 * A run that ends while nobody waits on it keeps its outcome for the retry still to come, until
 * its questions could no longer be answered.
 */
import { randomBytes } from 'node:crypto'
import type { ApproveToolCall, ToolApprovalDecision, ToolApprovalRequest } from '@code-runtime/code-mode'

/** A call waiting for a person, under the key its question carries in `inputRequests`. */
export interface PendingApproval {
  readonly key: string
  readonly request: ToolApprovalRequest
}

/** What a request waiting on a run gets: the questions of a new round, or the run's outcome. */
export type PausableRunEvent<T> =
  | { readonly kind: 'questions'; readonly round: number; readonly questions: readonly PendingApproval[] }
  | { readonly kind: 'ended'; readonly outcome: T }

interface Waiting {
  readonly request: ToolApprovalRequest
  readonly decide: (decision: ToolApprovalDecision) => void
}

/**
 * One run whose approvals are asked in rounds; `T` is what the run answers when it ends, `H` what
 * the server keeps beside it (how a request attaches to the run while it waits).
 */
export class PausableRun<T, H = unknown> {
  /** The run's name in its states: random, so a state of one run never names another. */
  readonly id = `r_${randomBytes(16).toString('base64url')}`
  readonly principal: string
  readonly host: H
  /** When the call that started it arrived (epoch milliseconds): before the run's own budget began. */
  readonly startedAt = Date.now()
  /** How long after its first question a state of this run may be claimed: longer than the run can last. */
  readonly #answerableForMs: number
  #answerableUntil: number | undefined
  readonly #waiting = new Map<string, Waiting>()
  /** The keys asked in the round handed out and not claimed yet. */
  #asked: readonly string[] = []
  #round = 0
  #isRoundOpen = false
  #outcome: { readonly value: T } | undefined
  #nextKey = 0
  #wake: (() => void) | undefined

  /**
   * @param answerableForMs how long after its first question the run's states may be claimed: its
   *   wall ceiling plus a margin, counted from a moment the run had already started, so no state
   *   expires before the run can end.
   */
  constructor(principal: string, answerableForMs: number, host: H) {
    this.principal = principal
    this.#answerableForMs = answerableForMs
    this.host = host
  }

  /** Until when (epoch milliseconds) a state of this run may be claimed; fixed by its first question. */
  get answerableUntil(): number {
    return this.#answerableUntil ?? Date.now() + this.#answerableForMs
  }

  /** True once the run has ended. */
  get hasEnded(): boolean {
    return this.#outcome !== undefined
  }

  /** The approver the run is given: each call it is asked about waits for a round's answer. */
  approver(): ApproveToolCall {
    return (request, { signal }) =>
      new Promise<ToolApprovalDecision>(resolve => {
        const key = `approval_${++this.#nextKey}`
        // The run ended (or was aborted) before an answer: the call is cancelled by the run itself.
        const forget = (): void => {
          this.#waiting.delete(key)
        }
        signal.addEventListener('abort', forget, { once: true })
        this.#waiting.set(key, {
          request,
          decide: decision => {
            signal.removeEventListener('abort', forget)
            this.#waiting.delete(key)
            resolve(decision)
          },
        })
        this.#wake?.()
      })
  }

  /** The run ended with `outcome`; questions still waiting are gone with it. */
  end(outcome: T): void {
    if (this.#outcome !== undefined) return
    this.#outcome = { value: outcome }
    this.#waiting.clear()
    this.#wake?.()
  }

  /**
   * Waits until the run ends or a call waits for a person, and hands out the next round (every
   * question waiting then). One request at a time waits here: the first, then each retry that
   * claimed the round before.
   */
  async next(): Promise<PausableRunEvent<T>> {
    for (;;) {
      if (this.#outcome !== undefined) return { kind: 'ended', outcome: this.#outcome.value }
      if (this.#waiting.size > 0) {
        // Calls started together (`Promise.all`) reach their approvals a few microtasks apart:
        // one round asks them all.
        await new Promise(resolve => setImmediate(resolve))
        if (this.#outcome !== undefined) continue
        if (this.#waiting.size === 0) continue
        this.#round++
        this.#isRoundOpen = true
        this.#answerableUntil ??= Date.now() + this.#answerableForMs
        const questions = [...this.#waiting].map(([key, waiting]) => ({ key, request: waiting.request }))
        this.#asked = questions.map(question => question.key)
        return { kind: 'questions', round: this.#round, questions }
      }
      await new Promise<void>(resolve => {
        this.#wake = resolve
      })
      this.#wake = undefined
    }
  }

  /** Claims round `round` for one retry: false when it is not the open round (claimed already, or an old one). */
  claim(round: number): boolean {
    if (!this.#isRoundOpen || round !== this.#round) return false
    this.#isRoundOpen = false
    return true
  }

  /**
   * Gives the claimed round's answers to their calls. `decide` reads one answer (undefined: none
   * usable, and that call is asked again in the next round).
   */
  answer(decide: (key: string, request: ToolApprovalRequest) => ToolApprovalDecision | undefined): void {
    for (const key of this.#asked) {
      const waiting = this.#waiting.get(key)
      if (waiting === undefined) continue
      const decision = decide(key, waiting.request)
      if (decision !== undefined) waiting.decide(decision)
    }
    this.#asked = []
  }
}

/** Why a retry's state found no round to resume. */
export type ClaimRefusal = 'unknown-run' | 'other-principal' | 'replayed' | 'expired'

/** Runs at most kept at once; past it the oldest is forgotten (its state then finds nothing). */
export const MAX_PAUSED_RUNS = 10_000

/** The paused runs of one server process, by id. */
export class PausedRuns<T, H = unknown> {
  /** Each run by id; `retired` once its outcome was delivered (a state of it is then a replay). */
  readonly #runs = new Map<string, PausableRun<T, H> | 'retired'>()
  readonly #timers = new Map<string, NodeJS.Timeout>()

  /**
   * Keeps `run` until its states expire (or it is dropped). `onExpired` is told when they expire
   * while it is kept: a run still going then has outlived its budget, and is the caller's to end.
   */
  keep(run: PausableRun<T, H>, onExpired: () => void): void {
    if (this.#runs.has(run.id)) return
    if (this.#runs.size >= MAX_PAUSED_RUNS) {
      const oldest = this.#runs.keys().next().value
      if (oldest !== undefined) this.drop(oldest)
    }
    this.#runs.set(run.id, run)
    const timer = setTimeout(
      () => {
        this.drop(run.id)
        if (!run.hasEnded) onExpired()
      },
      Math.max(0, run.answerableUntil - Date.now()),
    )
    timer.unref()
    this.#timers.set(run.id, timer)
  }

  /** Claims round `round` of run `id` for `principal`, or says why not. */
  claim(id: string, round: number, principal: string): PausableRun<T, H> | ClaimRefusal {
    const run = this.#runs.get(id)
    if (run === undefined) return 'unknown-run'
    if (run === 'retired') return 'replayed'
    if (run.principal !== principal) return 'other-principal'
    if (Date.now() > run.answerableUntil) return 'expired'
    if (!run.claim(round)) return 'replayed'
    return run
  }

  /**
   * Run `id` delivered its outcome: it is let go, and its name kept until its states expire, so
   * that one of them comes back as a replay.
   */
  retire(id: string): void {
    if (this.#runs.has(id)) this.#runs.set(id, 'retired')
  }

  /** Forgets run `id` (its states expired, or the server let it go). */
  drop(id: string): void {
    this.#runs.delete(id)
    clearTimeout(this.#timers.get(id))
    this.#timers.delete(id)
  }

  /** Forgets every run (the server closes; the runs themselves are aborted by it). */
  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer)
    this.#timers.clear()
    this.#runs.clear()
  }
}
