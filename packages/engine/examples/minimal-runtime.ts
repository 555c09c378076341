// examples/minimal-runtime.ts: the service, a CodeRuntime whose run is the engine's
import {
  CodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeSession,
  type CodeSessionOptions,
} from '@code-runtime/core'
import { MAX_TIMER_MS, readConfigObject, readIntegerField, readNumberField } from '@code-runtime/core/internal'
import { RunEngine, runLimitsOf } from '@code-runtime/engine'
import { minimalFactory } from './minimal-substrate.js'

const LIMITS = {
  spawnAhead: 1,
  computeMs: 10_000,
  maxWallMs: 60_000,
  maxOutputBytes: 1_048_576,
  maxLogEntries: 100_000,
  maxPendingCallBytes: 67_108_864,
  maxOldGenerationSizeMb: 256,
  maxSessions: 4,
  sessionIdleMs: 300_000,
}

export class MinimalCodeRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'worker-thread'
  private readonly engine: RunEngine

  constructor(ctx: ConstructorParameters<typeof CodeRuntime>[0], input?: unknown) {
    super(ctx)
    const config = readConfigObject('minimal', input, ['computeMs', 'maxWallMs', 'maxOutputBytes', 'maxSessions'])
    const ms = (field: 'computeMs' | 'maxWallMs'): number =>
      readNumberField('minimal', config, field, {
        default: LIMITS[field],
        min: 0,
        minIsExclusive: true,
        max: MAX_TIMER_MS,
      })
    const maxOutputBytes = readIntegerField('minimal', config, 'maxOutputBytes', {
      default: LIMITS.maxOutputBytes,
      min: 4,
      max: 2 ** 53 - 1,
    })
    const maxSessions = readIntegerField('minimal', config, 'maxSessions', {
      default: LIMITS.maxSessions,
      min: 0,
      max: 64,
    })
    const limits = { ...LIMITS, computeMs: ms('computeMs'), maxWallMs: ms('maxWallMs'), maxOutputBytes, maxSessions }
    this.engine = new RunEngine({ factory: minimalFactory(limits.maxOldGenerationSizeMb), ...runLimitsOf(limits) })
    // Disposing the plugin disposes the engine: in-flight runs settle as `abort`, workers exit.
    ctx.effect(() => () => this.engine.dispose(), 'codeRuntime.dispose')
  }

  run(request: CodeRunRequest): Promise<CodeRunResult> {
    return this.engine.run(request)
  }

  // Persistent sessions come with the engine too: each gets a substrate of its own.
  override openSession(options?: CodeSessionOptions): Promise<CodeSession> {
    return this.engine.openSession(options)
  }
}
