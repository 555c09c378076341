/**
 * The NATS backend: a `CodeRuntime` whose substrate is a runner on another machine. The caller
 * keeps the bindings: every binding call travels back to it over NATS request/reply, so the
 * tools stay where they are while the programs run elsewhere. Same contract, same failure kinds.
 */
import { Service, type Context } from '@deepseek-ai/cordis'
import type { NatsConnection } from '@nats-io/transport-node'
import {
  CodeRuntime,
  CodeRuntimeError,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { sessionLimitError, validateRunRequest } from '@code-runtime/core/internal'
import { resolveNatsRuntimeConfig, type NatsRuntimeConfig, type NatsRuntimeConfigInput } from './config.js'
import { connectNats } from './connection.js'
import { KeyAgreement, randomId, type RejectionCounter } from './message-seal.js'
import { runRemotely, type RemoteRunContext } from './remote-run.js'
import { adoptRemoteSession } from './adopt-remote-session.js'
import { openRemoteSession, type AdoptableSession, type RemoteSession } from './remote-session.js'

/**
 * Runs programs on remote runners (`startRunner`, or `code-runtime runner`) over NATS. Load it
 * with `ctx.plugin(NatsCodeRuntime, config)` or `startCodeRuntime(NatsCodeRuntime, config)`;
 * plugin load fails with `CODE_RUNTIME_UNAVAILABLE` when NATS cannot be reached.
 *
 * Its isolation is the runners' backend's (say so to operators); `isolation` reads `remote`.
 */
export class NatsCodeRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'remote'
  /** The validated, fully defaulted config. */
  readonly config: NatsRuntimeConfig
  private readonly connection: Promise<NatsConnection>
  private readonly disposal = new AbortController()
  private readonly inFlight = new Set<Promise<CodeRunResult>>()
  private readonly sessions = new Set<RemoteSession>()
  private opening = 0
  private readonly keys = new KeyAgreement()
  private readonly rejections: RejectionCounter = { rejected: 0 }
  // Without a tenant's prefix, this runtime is its own identity on the runners.
  private readonly inboxPrefix: string

  /** @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field and the value. */
  constructor(ctx: Context, config: NatsRuntimeConfigInput) {
    super(ctx)
    this.config = resolveNatsRuntimeConfig(config)
    this.inboxPrefix = this.config.inboxPrefix ?? `_INBOX.${randomId()}`
    this.connection = connectNats(this.config, 'code-runtime caller', this.inboxPrefix)
    // The failure is reported by plugin load ([Service.init]); this only marks it handled.
    this.connection.catch(() => {})
    ctx.effect(() => () => this.dispose(), 'codeRuntime.dispose')
  }

  /** Plugin load waits for the connection. */
  async [Service.init](): Promise<void> {
    await this.connection
  }

  /** Messages dropped because they were not sealed by the run's runner: forged, replayed, or meant for another run. */
  get rejectedMessages(): number {
    return this.rejections.rejected
  }

  private refuseIfDisposed(): void {
    if (this.disposal.signal.aborted)
      throw new CodeRuntimeError(
        'CODE_RUNTIME_DISPOSED',
        'This code runtime was disposed; start a new one to run programs.',
      )
  }

  private async context(): Promise<RemoteRunContext> {
    return {
      connection: await this.connection,
      config: this.config,
      disposed: this.disposal.signal,
      keys: this.keys,
      rejections: this.rejections,
      inboxPrefix: this.inboxPrefix,
    }
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    this.refuseIfDisposed()
    const validated = validateRunRequest(request)
    const running = runRemotely(validated, await this.context())
    this.inFlight.add(running)
    try {
      return await running
    } finally {
      this.inFlight.delete(running)
    }
  }

  /**
   * A session pinned to one runner (CONTRACT section #sessions), holding one of its slots; the
   * runner's backend keeps the state. At most `maxSessions` open at once.
   */
  override async openSession(options?: CodeSessionOptions): Promise<AdoptableSession> {
    const { session } = await this.counted(async context => ({
      session: await openRemoteSession(context, options),
      memo: undefined,
    }))
    return session
  }

  /**
   * Takes over the session at `address` (another caller's `session.address`) on its runner, with
   * its variables: this runtime holds it from now on (counted in `maxSessions`, disposed with the
   * runtime), and its former holder's copy is `movedAway`. Needs the same `adoptionKey` and the
   * same identity (`inboxPrefix`) as the caller that opened it. Adopting a session this runtime
   * holds already rebinds it to a fresh conversation; the former object is then moved away.
   * Waits while a program runs in the session, up to four times `lostAfterMs`.
   * @returns the session and the memo its last holder kept (`keepMemo`), if any.
   * @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` without `adoptionKey`;
   *   `CODE_RUNTIME_INVALID_REQUEST` for a malformed address; `CODE_RUNTIME_SESSION_CLOSED`
   *   ("session lost") when the runner does not hold it for this caller or is gone;
   *   `CODE_RUNTIME_SESSION_START_FAILED` when it stayed busy; `CODE_RUNTIME_SESSION_LIMIT`.
   */
  async adoptSession(address: string): Promise<{ session: AdoptableSession; memo: string | undefined }> {
    const { adoptionKey } = this.config
    if (adoptionKey === undefined)
      throw new CodeRuntimeError(
        'CODE_RUNTIME_INVALID_CONFIG',
        'adoptSession needs adoptionKey in the nats config: give every caller of the deployment the same key of at least 32 random bytes.',
        { field: 'adoptionKey' },
      )
    return this.counted(context => adoptRemoteSession(context, adoptionKey, address))
  }

  /** Opens or adopts a session within `maxSessions`, counted while it opens and once held, until forgotten. */
  private async counted(
    open: (context: RemoteRunContext) => Promise<{ session: RemoteSession; memo: string | undefined }>,
  ): Promise<{ session: RemoteSession; memo: string | undefined }> {
    this.refuseIfDisposed()
    const { maxSessions } = this.config
    if (this.sessions.size + this.opening >= maxSessions) throw sessionLimitError(maxSessions)
    this.opening++
    let opened: { session: RemoteSession; memo: string | undefined }
    try {
      opened = await open(await this.context())
    } finally {
      this.opening--
    }
    const { session } = opened
    this.sessions.add(session)
    session.onForget = () => this.sessions.delete(session)
    return opened
  }

  /** Settles in-flight runs as `abort` (their runners are told), ends every session, waits for them, then disconnects. */
  private async dispose(): Promise<void> {
    this.disposal.abort()
    await Promise.allSettled([...this.inFlight, ...[...this.sessions].map(session => session.dispose())])
    const connection = await this.connection.catch(() => undefined)
    await connection?.drain().catch(() => undefined)
  }
}
