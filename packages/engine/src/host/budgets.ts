/**
 * The budgets of one run: `computeMs` of measured busy time (awaiting a slow binding costs
 * nothing; a hot loop is caught even while a decoy call is pending) and `maxWallMs` of wall time.
 * Abort is not a budget; the run session handles it.
 */
import type { CodeRunBudget } from '@code-runtime/core'
import type { Substrate } from './substrate.js'

/** Budgets in milliseconds, as validated config. */
export interface RunBudgetLimits {
  readonly computeMs: number
  readonly maxWallMs: number
}

/** The message of a compute timeout: names the budget and its value. */
export function computeTimeoutMessage(computeMs: number): string {
  return `Stopped after ${computeMs} ms of compute (computeMs). Do less work per run, or split it across runs.`
}

/** The message of a wall-clock timeout: names the budget and its value. */
export function wallTimeoutMessage(maxWallMs: number): string {
  return `Stopped after ${maxWallMs} ms of wall time (maxWallMs) while the program was still running or waiting.`
}

/** Which budget ran out: compute time means the program is computing; wall time may find it waiting. */
export type ExpiredBudget = 'compute' | 'wall'

/** The budget that ran out as the failure reports it: its config field and value. */
export function expiredBudgetOf(budget: ExpiredBudget, limits: RunBudgetLimits): CodeRunBudget {
  return budget === 'compute'
    ? { name: 'computeMs', limit: limits.computeMs }
    : { name: 'maxWallMs', limit: limits.maxWallMs }
}

/** Watches one run's budgets; calls `onExpired` at most once. */
export class RunBudgets {
  private readonly substrate: Substrate
  private readonly limits: RunBudgetLimits
  private readonly onExpired: (message: string, budget: ExpiredBudget) => void
  private computeTimer: NodeJS.Timeout | undefined
  private wallTimer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    substrate: Substrate,
    limits: RunBudgetLimits,
    onExpired: (message: string, budget: ExpiredBudget) => void,
  ) {
    this.substrate = substrate
    this.limits = limits
    this.onExpired = onExpired
  }

  start(): void {
    this.substrate.resetBusyTime()
    this.wallTimer = setTimeout(
      () => this.expire(wallTimeoutMessage(this.limits.maxWallMs), 'wall'),
      this.limits.maxWallMs,
    )
    this.scheduleComputeCheck(this.limits.computeMs)
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.computeTimer)
    clearTimeout(this.wallTimer)
  }

  // Busy time can never grow faster than wall time, so the earliest the budget can run out is
  // after the remaining budget has passed on the clock: check exactly then, not on a fixed tick.
  private scheduleComputeCheck(delayMs: number): void {
    this.computeTimer = setTimeout(() => {
      if (this.stopped) return
      const remainingMs = this.limits.computeMs - this.substrate.busyMs()
      if (remainingMs <= 0) this.expire(computeTimeoutMessage(this.limits.computeMs), 'compute')
      else this.scheduleComputeCheck(Math.max(1, Math.ceil(remainingMs)))
    }, delayMs)
  }

  private expire(message: string, budget: ExpiredBudget): void {
    if (this.stopped) return
    this.stop()
    this.onExpired(message, budget)
  }
}
