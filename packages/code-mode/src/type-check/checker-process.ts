/**
 * Type checks off the host's event loop and out of its heap: one child process per process checks
 * the programs of every Code Mode (one warm checker per SDK, shared by the Code Modes and sessions
 * that have it). The child has a heap cap and each check a wall limit of its own: a check that
 * passes either ends that check (and the child, which the next request replaces), never the host.
 * A child process, not a worker thread: a worker's heap cap is enforced inside the host's process,
 * and a compiler that grows its heap fast enough can take V8 past the cap before the worker is
 * stopped, which aborts the whole process (seen on Node 24 under load); a child that aborts is
 * only a child. Requests go to the child one at a time, so a check's limit counts only its own
 * time, not a queue's.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import module from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CheckerAnswer, CheckerRequest, CheckerSpec, KeptEntry } from './checker-protocol.js'
import type { KeptNames } from './kept-names.js'
import type { ProgramCheck, TypeCheckMode } from './program-check.js'
import { CHECK_TIME_LIMIT_MS, type ProgramCheckerOptions, type SessionProgramCheck } from './program-checker.js'

/** Node 22.1's `module.getCompileCacheDir`; absent from Node 20 and its types. */
type GetCompileCacheDir = () => string | undefined

/**
 * The child's environment: the host's, plus the host's compile cache when it has one. Node does
 * not pass a cache turned on with `module.enableCompileCache()` to its children, and the child
 * loads TypeScript, the largest module of all (on Node 22 its load takes about a third as long
 * from the cache). The folder is the one the host chose and vetted (the CLI's is private to the
 * user); Node files each version's entries in a folder of their own inside it.
 */
function checkerEnvironment(): NodeJS.ProcessEnv {
  const getCompileCacheDir = (module as unknown as { getCompileCacheDir?: GetCompileCacheDir }).getCompileCacheDir
  const folder = typeof getCompileCacheDir === 'function' ? getCompileCacheDir.call(module) : undefined
  if (folder === undefined || process.env.NODE_COMPILE_CACHE !== undefined) return process.env
  return { ...process.env, NODE_COMPILE_CACHE: dirname(folder) }
}

/** The child's heap: a checker per SDK fits in far less; a program built to grow the compiler's heap stops here. */
export const CHECKER_HEAP_LIMIT_MB = 1_024

/**
 * The longest a checker may take to start (TypeScript loaded, library and SDK parsed): seconds on
 * a loaded machine, minutes only if something is wrong.
 */
const CHECKER_START_LIMIT_MS = 120_000

/** The child's own deadline comes this much before the host's, so a check usually ends as a check, not a restart. */
const SOFT_DEADLINE_MARGIN_MS = 250

const START_LIMIT_MESSAGE = 'The type checker did not start in time; the program was not checked.'

export interface CheckerProcessOptions {
  /** The child's heap cap, in MB; default {@link CHECKER_HEAP_LIMIT_MB}. */
  readonly maxHeapMb?: number
}

/** The checks of one SDK, answered by the child. */
export interface SdkChecker {
  check(code: string, mode: Exclude<TypeCheckMode, 'off'>): Promise<ProgramCheck>
  checkInSession(code: string, mode: Exclude<TypeCheckMode, 'off'>, session: KeptNames): Promise<SessionProgramCheck>
  /** True when the running child holds this SDK's checker: a check now costs its own time only. */
  isWarm(): boolean
}

type CheckRequest = Extract<CheckerRequest, { type: 'check' }>

/** A queued check of one SDK (its checker is started first in a child that lacks it). */
interface Pending {
  readonly key: string
  readonly build: () => CheckRequest
  readonly limitMs: number
  readonly limitMessage: string
  readonly resolve: (answer: CheckerAnswer) => void
  readonly reject: (error: Error) => void
}

/** What the child is working on: a checker's start for the queue's first request, or a check. */
interface InFlight {
  readonly pending: Pending
  readonly phase: 'create' | 'check'
  readonly id: number
  readonly timer: NodeJS.Timeout
}

/** A running child: its process and what it was sent. */
interface Running {
  readonly child: ChildProcess
  /** Resolves once the child has exited. */
  readonly exited: Promise<void>
  /** The SDK keys whose checker this child built. */
  readonly created: Set<string>
  /** Session token → the revision of the names this child holds. */
  readonly sessionRevisions: Map<number, number>
  /** Why it ended, once it did. */
  ended?: Error
}

/** The child's entry, beside this module in the build. */
const CHILD_ENTRY = fileURLToPath(new URL('./checker-child.js', import.meta.url))

/** Sends `request` to the child; one that is gone (or going) gets nothing, and `end` has failed what waited. */
function post(running: Running, request: CheckerRequest): void {
  if (running.ended !== undefined || !running.child.connected) return
  // A child that dies meanwhile fails the send; its exit fails the request in flight.
  running.child.send(request, () => undefined)
}

/** Holds the host's event loop open for the child while it works, and lets it go while idle. */
function holdOpen(running: Running, isHeld: boolean): void {
  const { child } = running
  const handles: ({ ref(): void; unref(): void } | null | undefined)[] = [child, child.channel, child.stderr as never]
  for (const handle of handles) {
    if (isHeld) handle?.ref()
    else handle?.unref()
  }
}

export class CheckerProcess {
  private readonly maxHeapMb: number
  private running: Running | undefined
  private readonly queue: Pending[] = []
  private inFlight: InFlight | undefined
  private nextId = 1
  private nextToken = 1
  private readonly specs = new Map<string, { spec: CheckerSpec; users: number }>()
  private readonly tokens = new WeakMap<KeptNames, number>()
  private readonly forgetSession = new FinalizationRegistry<number>(token => {
    this.running?.sessionRevisions.delete(token)
    if (this.running !== undefined) post(this.running, { type: 'forget', token })
  })
  private readonly releaseChecker = new FinalizationRegistry<string>(key => this.release(key))

  constructor(options: CheckerProcessOptions = {}) {
    this.maxHeapMb = options.maxHeapMb ?? CHECKER_HEAP_LIMIT_MB
  }

  /** The checker of one SDK; the child builds it on the first check. */
  checkerFor(options: ProgramCheckerOptions): SdkChecker {
    const timeLimitMs = options.timeLimitMs ?? CHECK_TIME_LIMIT_MS
    const spec: CheckerSpec = {
      declarations: options.declarations,
      namespace: options.namespace,
      schemas: [...options.schemas].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)),
      timeLimitMs: Math.max(1, timeLimitMs - Math.min(SOFT_DEADLINE_MARGIN_MS, timeLimitMs / 10)),
    }
    const key = createHash('sha256').update(JSON.stringify(spec)).digest('hex')
    const known = this.specs.get(key)
    if (known === undefined) this.specs.set(key, { spec, users: 1 })
    else known.users++
    const stoppedMessage = `The type check took longer than ${timeLimitMs} ms and was stopped; the program was not checked.`
    const checkRequest = (code: string, mode: Exclude<TypeCheckMode, 'off'>, session?: KeptNames) =>
      this.submit({
        key,
        limitMs: timeLimitMs,
        limitMessage: stoppedMessage,
        build: () => {
          const request: CheckRequest = { type: 'check', id: this.nextId++, key, code, mode }
          return session === undefined ? request : { ...request, session: this.sessionState(session) }
        },
      }) as Promise<Extract<CheckerAnswer, { type: 'checked' }>>
    const checker: SdkChecker = {
      check: async (code, mode) => (await checkRequest(code, mode)).check,
      checkInSession: async (code, mode, session) => {
        const { check, kept } = await checkRequest(code, mode, session)
        return { check, kept: new Map<string, string>(kept ?? []) }
      },
      isWarm: () => this.running !== undefined && this.running.ended === undefined && this.running.created.has(key),
    }
    this.releaseChecker.register(checker, key)
    return checker
  }

  /** Ends the child; the next request starts another. Pending checks fail. */
  async close(): Promise<void> {
    const running = this.running
    if (running === undefined) return
    this.end(running, new Error('The checker was closed; the program was not checked.'))
    // Whoever awaits the close waits for the exit: the loop stays open for it.
    holdOpen(running, true)
    running.child.kill('SIGKILL')
    await running.exited
  }

  private release(key: string): void {
    const known = this.specs.get(key)
    if (known === undefined || --known.users > 0) return
    this.specs.delete(key)
    if (this.running?.created.delete(key) === true) post(this.running, { type: 'release', key })
  }

  private sessionState(session: KeptNames): { token: number; revision: number; entries?: readonly KeptEntry[] } {
    let token = this.tokens.get(session)
    if (token === undefined) {
      token = this.nextToken++
      this.tokens.set(session, token)
      this.forgetSession.register(session, token)
    }
    const revisions = this.running?.sessionRevisions
    if (revisions?.get(token) === session.revision) return { token, revision: session.revision }
    revisions?.set(token, session.revision)
    return { token, revision: session.revision, entries: session.entries() }
  }

  private submit(request: Omit<Pending, 'resolve' | 'reject'>): Promise<CheckerAnswer> {
    return new Promise<CheckerAnswer>((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject })
      this.pump()
    })
  }

  private start(): Running {
    // Its own flags only: the host's (a test runner's, an inspector's) are not the checker's.
    const child = fork(CHILD_ENTRY, [], {
      execArgv: [`--max-old-space-size=${this.maxHeapMb}`],
      env: checkerEnvironment(),
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    // The end of what the child said before it died: V8 names an exhausted heap there.
    let lastWords = ''
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      lastWords = (lastWords + chunk).slice(-4_096)
    })
    const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
    const running: Running = { child, exited, created: new Set(), sessionRevisions: new Map() }
    child.on('message', (answer: unknown) => this.answered(running, answer))
    child.on('error', error =>
      this.end(running, new Error(`The type checker failed (${error.message}); the program was not checked.`)),
    )
    child.on('exit', (code, signal) => {
      // A heap past its cap aborts the child (SIGABRT), after V8 said so on stderr.
      const outOfMemory = /heap out of memory|Reached heap limit/.test(lastWords) || signal === 'SIGABRT'
      this.end(
        running,
        new Error(
          outOfMemory
            ? `The type check ran out of memory (${this.maxHeapMb} MB) and was stopped; the program was not checked.`
            : `The type checker stopped (${signal ?? `exit code ${String(code)}`}); the program was not checked.`,
        ),
      )
    })
    holdOpen(running, false)
    return running
  }

  /**
   * Sends the next request when none is in flight, after the start of its SDK's checker on a
   * child that lacks it. The child holds the host's event loop open only while it works.
   */
  private pump(): void {
    if (this.inFlight !== undefined) return
    const pending = this.queue[0]
    if (pending === undefined) {
      if (this.running !== undefined) holdOpen(this.running, false)
      return
    }
    if (this.running === undefined || this.running.ended !== undefined) this.running = this.start()
    const running = this.running
    if (!running.created.has(pending.key)) {
      const spec = this.specs.get(pending.key)?.spec
      if (spec === undefined) {
        this.queue.shift()
        pending.reject(new Error('This checker was released; the program was not checked.'))
        this.pump()
        return
      }
      this.send(running, pending, 'create', { type: 'create', id: this.nextId++, key: pending.key, spec })
      return
    }
    this.queue.shift()
    this.send(running, pending, 'check', pending.build())
  }

  private send(
    running: Running,
    pending: Pending,
    phase: InFlight['phase'],
    request: CheckerRequest & { id: number },
  ): void {
    const [limitMs, limitMessage] =
      phase === 'create' ? [CHECKER_START_LIMIT_MS, START_LIMIT_MESSAGE] : [pending.limitMs, pending.limitMessage]
    holdOpen(running, true)
    const timer = setTimeout(() => {
      this.end(running, new Error(limitMessage))
      running.child.kill('SIGKILL')
    }, limitMs)
    this.inFlight = { pending, phase, id: request.id, timer }
    post(running, request)
  }

  private answered(running: Running, answer: unknown): void {
    const inFlight = this.inFlight
    if (running !== this.running || inFlight === undefined || !isAnswer(answer) || answer.id !== inFlight.id) return
    clearTimeout(inFlight.timer)
    this.inFlight = undefined
    if (inFlight.phase === 'create') {
      // The request waits at the queue's head for its checker; a checker that cannot start fails it.
      if (answer.type === 'created') running.created.add(inFlight.pending.key)
      else {
        this.queue.shift()
        inFlight.pending.reject(new Error(answerMessage(answer)))
      }
    } else if (answer.type === 'failed') inFlight.pending.reject(new Error(answer.message))
    else inFlight.pending.resolve(answer)
    this.pump()
  }

  /** The child is gone (or going): the request in flight fails with `reason`; queued ones go to the next child. */
  private end(running: Running, reason: Error): void {
    if (running.ended !== undefined) return
    running.ended = reason
    if (this.running === running) this.running = undefined
    const inFlight = this.inFlight
    if (inFlight !== undefined) {
      clearTimeout(inFlight.timer)
      this.inFlight = undefined
      if (inFlight.phase === 'create') this.queue.shift()
      inFlight.pending.reject(reason)
    }
    this.pump()
  }
}

function answerMessage(answer: CheckerAnswer): string {
  return answer.type === 'failed' ? answer.message : 'The type checker answered out of turn.'
}

function isAnswer(value: unknown): value is CheckerAnswer {
  if (typeof value !== 'object' || value === null) return false
  const { type, id } = value as { type?: unknown; id?: unknown }
  if (typeof id !== 'number') return false
  if (type === 'created') return true
  if (type === 'failed') return typeof (value as { message?: unknown }).message === 'string'
  return type === 'checked' && typeof (value as { check?: unknown }).check === 'object'
}

let shared: CheckerProcess | undefined

/** The process's checker, shared by every Code Mode. */
export function sharedCheckerProcess(): CheckerProcess {
  shared ??= new CheckerProcess()
  return shared
}

/**
 * Ends the process's checker child, if one runs, and waits for its exit; checks in flight fail
 * (their programs run unchecked) and the next check starts another. For a command about to exit:
 * the child would end anyway once the host's channel closes, but a host that leaves no process
 * behind waits for it.
 */
export async function stopTypeChecker(): Promise<void> {
  await shared?.close()
}
