/**
 * The audit trail of a shared server: one JSON line per `run_code` on stderr, saying who ran
 * what and what it did: time, principal, session, the program's description, duration, outcome
 * kind, and each tool call (server, tool, outcome, approval). Arguments and results hold the
 * callers' data and secrets, so they are left out unless the operator asks (`--audit-values`);
 * the program's text is never in it (its description is, as the model wrote it).
 */
import type { RunCodeOutput } from '@code-runtime/code-mode'

/** One `run_code` call, as the audit line tells it. */
export interface AuditedRun {
  /** When the call arrived. */
  readonly startedAt: Date
  /** From arrival to result, in milliseconds. */
  readonly durationMs: number
  /** Who asked. */
  readonly principal: string
  /** The session the run used; absent for a one-shot run. */
  readonly session?: string
  /** The program's own description (`description` of `run_code`), when it gave one. */
  readonly description?: string
  /** What the run did, as Code Mode reports it. */
  readonly structured: RunCodeOutput['structured']
}

/** Where a member of `tools` leads: its server and the tool's own name there. */
export type ToolOfMember = (member: string) => { readonly server: string; readonly tool: string } | undefined

/** Longest description kept in a line, in characters: it is the model's text, and lines stay lines. */
const MAX_DESCRIPTION_CHARS = 500

/** The audit line of `run`, one line of JSON (no newline at the end). */
export function auditLine(run: AuditedRun, toolOf: ToolOfMember, withValues = false): string {
  const calls = run.structured.calls.map(call => {
    const target = toolOf(call.member)
    return {
      server: target?.server ?? null,
      tool: target?.tool ?? call.member,
      outcome: call.outcome,
      durationMs: Math.round(call.durationMs),
      ...(call.approval === undefined ? {} : { approval: call.approval.decision, approvedBy: call.approval.decidedBy }),
      ...(withValues && call.args !== undefined ? { args: call.args } : {}),
      ...(withValues && call.result !== undefined ? { result: call.result } : {}),
      ...(withValues && call.error !== undefined ? { error: call.error } : {}),
    }
  })
  const line = {
    audit: 'run_code',
    time: run.startedAt.toISOString(),
    principal: run.principal,
    session: run.session ?? null,
    description: run.description === undefined ? null : run.description.slice(0, MAX_DESCRIPTION_CHARS),
    durationMs: Math.round(run.durationMs),
    outcome: run.structured.error?.kind ?? 'ok',
    calls,
  }
  // JSON escapes every control character, so a hostile description cannot start a line of its own.
  return JSON.stringify(line)
}
