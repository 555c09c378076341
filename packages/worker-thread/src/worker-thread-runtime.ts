/**
 * The worker-thread backend: each run gets a fresh worker thread (spawned ahead of time) and a
 * fresh vm context inside it whose only way out is the request's bindings.
 */
import type { Context } from '@deepseek-ai/cordis'
import {
  CodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { resolveWorkerThreadConfig, type WorkerThreadConfig, type WorkerThreadConfigInput } from './config.js'
import { RunEngine, runLimitsOf } from '@code-runtime/engine'
import { WorkerSubstrateFactory } from './worker-substrate.js'

/**
 * Runs programs in worker threads. Load it with `ctx.plugin(WorkerThreadCodeRuntime, config)` or
 * `startCodeRuntime(WorkerThreadCodeRuntime, config)`.
 *
 * Contained, with no ambient authority, but not a security boundary: a V8 bug or some fatal
 * allocations reach the host process. Use the container backend for untrusted multi-tenant code.
 */
export class WorkerThreadCodeRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'worker-thread'
  /** The validated, fully defaulted config. */
  readonly config: WorkerThreadConfig
  private readonly engine: RunEngine

  /** @throws {CodeRuntimeError} `CODE_RUNTIME_INVALID_CONFIG` naming the field and the value. */
  constructor(ctx: Context, config?: WorkerThreadConfigInput) {
    super(ctx)
    this.config = resolveWorkerThreadConfig(config)
    this.engine = new RunEngine({
      factory: new WorkerSubstrateFactory({
        maxOldGenerationSizeMb: this.config.maxOldGenerationSizeMb,
        maxArrayBufferMb: this.config.maxArrayBufferMb,
      }),
      ...runLimitsOf(this.config),
      reuseSubstrates: this.config.reuseWorkers,
    })
    ctx.effect(() => () => this.engine.dispose(), 'codeRuntime.dispose')
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    return this.engine.run(request)
  }

  /** A persistent session in a worker (and context) of its own; see CONTRACT section #sessions. */
  override openSession(options?: CodeSessionOptions): Promise<CodeSession> {
    return this.engine.openSession(options)
  }
}
