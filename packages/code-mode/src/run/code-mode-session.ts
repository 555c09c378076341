/**
 * `run_code` bound to a session of the runtime (CONTRACT section #sessions): the top-level names
 * one program declares are there for the next. A {@link CodeModeSession} opens the runtime's
 * session lazily on its first run, runs its programs one at a time (check, run, then note what
 * the program kept, so the next check knows those names and their types), and after a run that
 * ended the sandbox (lost, expired) forgets everything and opens a fresh one on the next run.
 */
import {
  CodeRuntimeError,
  DEFAULT_MAX_KEPT_NAMES,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { CodeModeError } from '../errors.js'
import { KeptNames, MAX_KEPT_TYPE_CHARS, UNKNOWN_KEPT_TYPE } from '../type-check/kept-names.js'
import { countSession } from './run-metrics.js'

/** A runtime that has sessions: any `CodeRuntime` (whose backend may still refuse them). */
export interface CodeModeSessionRuntime {
  openSession(options?: CodeSessionOptions): Promise<CodeSession>
}

/**
 * One session for `run_code`: made by `createCodeMode({ session })` (see `CodeMode.resetSession`),
 * or by {@link createCodeModeSession} to keep one per user across Code Modes (runs pick it with
 * `RunCodeOptions.session`).
 */
export interface CodeModeSession {
  /** The runtime session's id while one is open (it opens on the first run), else `undefined`. */
  readonly id: string | undefined
  /**
   * Forgets every variable: ends the runtime session (a run in flight settles as `abort`) and the
   * names the type check knew; the next run opens a new session.
   */
  reset(): Promise<void>
  /** Ends the session for good; a later run through it is refused (`CODE_MODE_SESSION_CLOSED`). Idempotent. */
  dispose(): Promise<void>
  /**
   * The names earlier runs kept, each with the type the check knows it by: what another process
   * needs to check this session's programs when it takes the runtime session over (see
   * {@link CodeModeSession.restoreKeptNames}).
   */
  keptNames(): readonly (readonly [name: string, type: string])[]
  /**
   * Tells the check the names (and types) a runtime session already keeps, as another process's
   * `keptNames()` gave them: for a session taken over from another gateway node, whose runtime
   * session holds those variables. Entries that are not a name and a one-line type are skipped.
   */
  restoreKeptNames(entries: readonly (readonly [name: string, type: string])[]): void
}

/** What a kept name looks like: an identifier the checker can declare (non-ASCII names too). */
const KEPT_NAME_PATTERN = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u

/** What the model reads when a run found (or left) the session's sandbox gone. */
export function sessionEndedNote(reason: 'lost' | 'expired'): string {
  const why = reason === 'expired' ? 'expired after sitting idle' : 'stopped'
  return `The session's variables are gone: its sandbox ${why}. The next run starts a new session.`
}

/** The slot of a runtime session: opened on demand, numbered so a run can tell it was replaced. */
interface OpenSession {
  readonly generation: number
  readonly session: Promise<CodeSession>
}

/** A {@link CodeModeSession} and what Code Mode's run path needs of it. */
export class RunCodeSession implements CodeModeSession {
  /** What the type check knows of the names earlier runs kept. */
  readonly names = new KeptNames()
  /** The most names the runtime session keeps (its `maxKeptNames`): the check refuses a program that would keep more. */
  readonly maxKeptNames: number
  private open: OpenSession | undefined
  private opened: CodeSession | undefined
  private generation = 0
  private queue: Promise<unknown> = Promise.resolve()
  private disposed = false
  private readonly runtime: CodeModeSessionRuntime
  private readonly options: CodeSessionOptions | undefined

  constructor(runtime: CodeModeSessionRuntime, options: CodeSessionOptions | undefined) {
    this.runtime = runtime
    this.options = options
    // Checked by the runtime when the session opens; a value it refuses never runs a program.
    this.maxKeptNames = typeof options?.maxKeptNames === 'number' ? options.maxKeptNames : DEFAULT_MAX_KEPT_NAMES
    countSession(this)
  }

  get id(): string | undefined {
    return this.opened?.endReason === undefined ? this.opened?.id : undefined
  }

  /** True while it holds a runtime session that has not ended (what `code_runtime.sessions.open` counts). */
  get isOpen(): boolean {
    return this.id !== undefined
  }

  /** Runs `task` after every task queued before it: a session's programs run one at a time. */
  enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (this.disposed)
        throw new CodeModeError(
          'CODE_MODE_SESSION_CLOSED',
          'This Code Mode session was disposed; it runs no more programs.',
        )
      return task()
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  /**
   * Runs one request in the session (opening it first if needed). Resolves like `session.run`;
   * `ended` is set when the sandbox is gone after it, whose names are then already forgotten.
   * @throws {CodeModeError} `CODE_MODE_SESSIONS_UNSUPPORTED` when the runtime has no sessions,
   *   `CODE_MODE_SESSION_UNAVAILABLE` when it cannot open one now (too many open, a start failure).
   */
  async run(
    request: CodeRunRequest,
  ): Promise<{ result: CodeRunResult; generation: number; sessionId: string; ended?: 'lost' | 'expired' }> {
    const { generation, session } = this.current()
    const opened = await session
    let result: CodeRunResult
    try {
      result = await opened.run(request)
    } catch (error) {
      // Closed under us (the runtime was disposed): the next run must not find it again.
      if (opened.endReason !== undefined) this.forget(generation)
      throw error
    }
    const reason = opened.endReason
    if (reason === 'lost' || reason === 'expired') {
      this.forget(generation)
      return { result, generation, sessionId: opened.id, ended: reason }
    }
    return { result, generation, sessionId: opened.id }
  }

  /** Adds what a run kept to what the check knows, unless the session was replaced meanwhile. */
  keep(generation: number, kept: ReadonlyMap<string, string>): void {
    if (generation === this.generation && this.open !== undefined) this.names.merge(kept)
  }

  keptNames(): readonly (readonly [name: string, type: string])[] {
    return this.names.entries()
  }

  restoreKeptNames(entries: readonly (readonly [name: string, type: string])[]): void {
    const kept = new Map<string, string>()
    for (const entry of entries) {
      if (!Array.isArray(entry) || entry.length !== 2) continue
      const [name, type] = entry as unknown[]
      // A type is one line of at most the length the check itself prints (each is one line of the
      // declarations file); anything else is declared `any`, so it can neither break the file nor grow it.
      if (typeof name !== 'string' || !KEPT_NAME_PATTERN.test(name)) continue
      kept.set(
        name,
        typeof type === 'string' && type.length <= MAX_KEPT_TYPE_CHARS && !/[\n\r\u2028\u2029]/.test(type)
          ? type
          : UNKNOWN_KEPT_TYPE,
      )
    }
    if (kept.size > 0) this.names.merge(kept)
  }

  async reset(): Promise<void> {
    const open = this.open
    this.forget(this.generation)
    if (open !== undefined)
      await open.session.then(
        session => session.dispose(),
        () => undefined,
      )
  }

  async dispose(): Promise<void> {
    this.disposed = true
    await this.reset()
  }

  private current(): OpenSession {
    if (this.open === undefined) {
      const generation = this.generation
      const session = this.runtime.openSession(this.options).then(
        opened => {
          this.opened = opened
          return opened
        },
        (error: unknown) => {
          // A failed open is not remembered: the next run tries again.
          if (this.open?.generation === generation) this.open = undefined
          throw describeOpenFailure(error)
        },
      )
      this.open = { generation, session }
    }
    return this.open
  }

  /** Drops the runtime session and the names it held; the next run opens a new one. */
  private forget(generation: number): void {
    if (generation !== this.generation) return
    this.generation++
    this.open = undefined
    this.opened = undefined
    this.names.clear()
  }
}

function describeOpenFailure(error: unknown): CodeModeError {
  if (CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_SESSIONS_UNSUPPORTED') {
    return new CodeModeError(
      'CODE_MODE_SESSIONS_UNSUPPORTED',
      `run_code cannot keep variables here: ${error.message}`,
      { cause: error },
    )
  }
  const message = error instanceof Error ? error.message : String(error)
  return new CodeModeError(
    'CODE_MODE_SESSION_UNAVAILABLE',
    `The session for run_code could not be opened: ${message}`,
    { cause: error },
  )
}

/** True when `runtime` can open sessions (it may still refuse at run time: see `CODE_MODE_SESSIONS_UNSUPPORTED`). */
export function hasSessions(runtime: unknown): runtime is CodeModeSessionRuntime {
  return typeof (runtime as Partial<CodeModeSessionRuntime> | null)?.openSession === 'function'
}

/**
 * A session for `run_code` over `runtime`, kept apart from any one Code Mode: pass it as
 * `RunCodeOptions.session` to the runs that share it, e.g. one per user of a server whose Code Mode
 * is rebuilt when its tools change. Nothing opens until the first run.
 * @throws {CodeModeError} `CODE_MODE_INVALID_OPTIONS` when `runtime` has no `openSession`.
 */
export function createCodeModeSession(runtime: CodeModeSessionRuntime, options?: CodeSessionOptions): CodeModeSession {
  if (!hasSessions(runtime)) {
    throw new CodeModeError(
      'CODE_MODE_INVALID_OPTIONS',
      'Invalid Code Mode options: session needs a runtime with openSession(), e.g. a started WorkerThreadCodeRuntime.',
      { field: 'runtime' },
    )
  }
  return new RunCodeSession(runtime, options)
}
