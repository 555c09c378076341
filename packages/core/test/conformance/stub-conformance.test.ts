/**
 * Runs the conformance suite against a stub backend that cannot run programs, so only the checks
 * that need no program run are registered: descriptors, the name rules, misuse and disposal. It
 * proves the suite loads through the package's exports map and passes a minimal correct seam.
 */
import type { Context } from '@deepseek-ai/cordis'
import {
  CodeRuntime,
  CodeRuntimeError,
  startCodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
} from '@code-runtime/core'
import { validateRunRequest } from '@code-runtime/core/internal'
import { jsonStringByteLength } from '@code-runtime/core/json'
import { runConformanceSuite, type ConformanceRuntimeConfig } from '@code-runtime/core/conformance'

/** The smallest seam that follows CONTRACT section #seam without running anything. */
class StubCodeRuntime extends CodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'process'
  // Cordis hands out a proxy of the service, so the state is a TypeScript-private field.
  private isDisposed = false

  constructor(ctx: Context, _config: ConformanceRuntimeConfig) {
    super(ctx)
    ctx.effect(() => () => {
      this.isDisposed = true
    })
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    if (this.isDisposed) {
      throw new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'This runtime was disposed; start a new one to run programs.')
    }
    validateRunRequest(request)
    const message = 'The stub backend does not run programs.'
    const usage = { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: jsonStringByteLength(message) + 2 }
    return { logs: [], error: { kind: 'exception', message }, usage, calls: [] }
  }
}

runConformanceSuite({
  name: 'stub',
  isolation: 'process',
  runsPrograms: false,
  start: config => startCodeRuntime(StubCodeRuntime, config),
})
