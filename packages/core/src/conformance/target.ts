/**
 * What a backend hands the conformance suite: how to start a runtime, and what it should report.
 */
import type { CodeRuntime } from '../code-runtime.js'
import type { StartedCodeRuntime } from '../start-runtime.js'

/**
 * The budget fields every backend shares (CONTRACT section #budget-fields) that a check may override. Every other field keeps the
 * backend's default; a field left out keeps its default too.
 */
export interface ConformanceRuntimeConfig {
  /** Budget of busy time, in milliseconds. */
  computeMs?: number
  /** Wall-clock ceiling of one run, in milliseconds. */
  maxWallMs?: number
  /** Cap on the compact JSON of logs plus value or failure message, in bytes. */
  maxOutputBytes?: number
  /** Most sessions open at once (CONTRACT section #session-lifecycle). */
  maxSessions?: number
}

/** A backend under test. */
export interface ConformanceTarget {
  /** Shown in describe() names, e.g. 'worker-thread'. */
  readonly name: string
  /** Starts a fresh runtime with the shared budget fields overridden; the backend maps them onto its config. */
  start(config: ConformanceRuntimeConfig): Promise<StartedCodeRuntime<CodeRuntime>>
  /** false for a stub that cannot run programs: only the checks that need no real program run (registration/descriptors, misuse rejections, disposal). Default true. */
  readonly runsPrograms?: boolean
  /** Expected value of runtime.isolation, e.g. 'worker-thread'. */
  readonly isolation: string
}
