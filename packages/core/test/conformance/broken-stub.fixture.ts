/**
 * A stub backend that breaks the seam on purpose: it reports the wrong language, validates
 * nothing and keeps answering after disposal. `suite-discrimination.test.ts` runs the suite
 * against it in a child process to prove the suite reports each of those breaks.
 */
import type { Context } from '@deepseek-ai/cordis'
import {
  CodeRuntime,
  startCodeRuntime,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeRuntimeLanguage,
} from '@code-runtime/core'
import { runConformanceSuite, type ConformanceRuntimeConfig } from '@code-runtime/core/conformance'

class BrokenStubCodeRuntime extends CodeRuntime {
  // The wrong language, smuggled past the type on purpose.
  readonly language = 'javascript' as CodeRuntimeLanguage
  readonly isolation = 'process'

  constructor(ctx: Context, _config: ConformanceRuntimeConfig) {
    super(ctx)
  }

  async run(_request: CodeRunRequest): Promise<CodeRunResult> {
    return { logs: [], usage: { wallMs: 0, busyMs: 0, bindingCalls: 0, outputBytes: 2 }, calls: [] }
  }
}

runConformanceSuite({
  name: 'broken stub',
  isolation: 'process',
  runsPrograms: false,
  start: config => startCodeRuntime(BrokenStubCodeRuntime, config),
})
