/**
 * The seam: an abstract cordis service registered as `ctx.codeRuntime`. It says what a code
 * runtime does (run one program against host bindings, report `{ value, logs, error }`) and
 * nothing about how.
 */
import { type Context, Service } from '@deepseek-ai/cordis'
import type { CodeSession, CodeSessionOptions } from './code-session.js'
import { CodeRuntimeError } from './errors.js'
import type { CodeRunRequest, CodeRunResult, CodeRuntimeIsolation, CodeRuntimeLanguage } from './types.js'

declare module '@deepseek-ai/cordis' {
  interface Context {
    codeRuntime: CodeRuntime
  }
}

/** The service name every backend registers under. */
export const CODE_RUNTIME_SERVICE_NAME = 'codeRuntime'

/**
 * A code runtime. Implementations subclass it, call `super(ctx)` and are loaded with
 * `ctx.plugin(Backend, config)`; disposing that plugin disposes the runtime.
 *
 * Contract of {@link CodeRuntime.run} (docs/CONTRACT.md): it resolves for every outcome of the
 * program, with `error` set on failure, and rejects only for misuse by the caller, a run after
 * disposal or invalid bindings (CONTRACT section #resolve-never-reject). No state survives between
 * runs (CONTRACT section #no-state-between-runs). Disposal settles in-flight runs as `abort` and
 * completes only once their substrates have exited (CONTRACT section #dispose).
 *
 * Cordis hands out a proxy of the service, so subclasses keep state in ordinary (TypeScript
 * `private`) fields, not `#private` ones.
 *
 * @example
 * ```ts
 * const ctx = new Context()
 * await ctx.plugin(WorkerThreadCodeRuntime, { computeMs: 5_000 })
 * const result = await ctx.codeRuntime.run({ program: 'return 1 + 1', bindings: [] })
 * ```
 */
export abstract class CodeRuntime extends Service {
  /** The source language `run` expects. Informational: consumers that present code switch on it. */
  abstract readonly language: CodeRuntimeLanguage
  /** The execution substrate. A label for operators, not a security claim. */
  abstract readonly isolation: CodeRuntimeIsolation

  constructor(ctx: Context) {
    super(ctx, CODE_RUNTIME_SERVICE_NAME)
  }

  /**
   * Runs one program against the request's bindings.
   * @throws {CodeRuntimeError} (as a rejection) `CODE_RUNTIME_DISPOSED`, `CODE_RUNTIME_INVALID_BINDINGS`
   *   or `CODE_RUNTIME_INVALID_REQUEST`; never for a program outcome.
   */
  abstract run(request: CodeRunRequest): Promise<CodeRunResult>

  /**
   * Opens a persistent session (CONTRACT section #sessions): later runs of it see the top-level
   * declarations of earlier ones. Resolves once its substrate is ready. Backends that keep state
   * override this; the default refuses.
   * @throws {CodeRuntimeError} (as a rejection) `CODE_RUNTIME_SESSIONS_UNSUPPORTED`,
   *   `CODE_RUNTIME_SESSION_LIMIT`, `CODE_RUNTIME_SESSION_START_FAILED`, `CODE_RUNTIME_DISPOSED`,
   *   or `CODE_RUNTIME_INVALID_REQUEST` for bad options.
   */
  openSession(options?: CodeSessionOptions): Promise<CodeSession> {
    void options
    return Promise.reject(
      new CodeRuntimeError(
        'CODE_RUNTIME_SESSIONS_UNSUPPORTED',
        `The ${this.isolation} backend has no sessions; use run() for one-shot programs.`,
      ),
    )
  }
}
