/**
 * A minimal backend for tests of the seam itself: it registers like a real one, validates each
 * request with the shared validator and runs nothing. It is not a runtime; it answers
 * `{ logs: [] }` to every valid request.
 */
import type { Context } from '@deepseek-ai/cordis'
import { CodeRuntime, CodeRuntimeError, type CodeRunRequest, type CodeRunResult } from '@code-runtime/core'
import { readConfigObject, readIntegerField, validateRunRequest } from '@code-runtime/core/internal'

/** Config of {@link StubRuntime}; one field, so the config readers have something to refuse. */
export interface StubRuntimeConfig {
  readonly maxOutputBytes?: number
}

export const DEFAULT_STUB_MAX_OUTPUT_BYTES = 1_024

/** Validates the stub's config the way every backend does: by name, unknown keys refused. */
export function resolveStubRuntimeConfig(input: unknown): Required<StubRuntimeConfig> {
  const record = readConfigObject('stub', input, ['maxOutputBytes'])
  return Object.freeze({
    maxOutputBytes: readIntegerField('stub', record, 'maxOutputBytes', {
      default: DEFAULT_STUB_MAX_OUTPUT_BYTES,
      min: 4,
      max: Number.MAX_SAFE_INTEGER,
    }),
  })
}

/** What the stub resolves for every request: an empty run, with the usage and call record every result carries. */
export function stubResult(): CodeRunResult {
  return { logs: [], usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 2 }, calls: [] }
}

export class StubRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'worker-thread'
  readonly config: Required<StubRuntimeConfig>
  /** How many requests passed validation, for tests to inspect. */
  validatedRunCount = 0
  // Cordis hands out a Proxy of the service, which cannot reach `#private` fields.
  private isDisposed = false

  constructor(ctx: Context, config?: StubRuntimeConfig) {
    // Validate before registering, so a bad config never leaves a service behind.
    const resolved = resolveStubRuntimeConfig(config)
    super(ctx)
    this.config = resolved
    ctx.effect(() => () => {
      this.isDisposed = true
    })
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.isDisposed) {
      throw new CodeRuntimeError(
        'CODE_RUNTIME_DISPOSED',
        'This stub runtime was disposed; start a new one to run programs.',
      )
    }
    validateRunRequest(request)
    this.validatedRunCount++
    return stubResult()
  }
}
