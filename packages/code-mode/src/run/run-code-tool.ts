/**
 * The one tool the model gets: `run_code`, a plain object (`name`, `description`,
 * `inputSchema`, `execute`) that drops into agent frameworks with a one-line adapter.
 */
import type { CodeJsonValue, CodeRunFailure, CodeRunFailureKind, CodeRunUsage } from '@code-runtime/core'
import type { CodeModeSession } from './code-mode-session.js'
import type { ApproveToolCall, ToolCallRecord } from './tool-approval.js'
import type { RunCodeListing } from './run-code-input.js'
import type { ProgramDiagnostic } from '../type-check/program-check.js'

/** How a run failed: as the runtime reports it, or refused by the type check before it started. */
export type RunCodeFailure = CodeRunFailure | { readonly kind: 'refused'; readonly message: string }

/** The `kind` of a {@link RunCodeFailure}. */
export type RunCodeFailureKind = CodeRunFailureKind | 'refused'

/** What `run_code` resolves with. */
export interface RunCodeOutput {
  /** The text for the model: logs, then the value or the failure. */
  readonly text: string
  /** The same outcome as data. */
  readonly structured: {
    readonly logs: readonly string[]
    readonly result?: CodeJsonValue
    /** Why the run failed; `kind: 'refused'` when the type check refused the program and nothing ran. */
    readonly error?: RunCodeFailure
    /**
     * Every tool call the program made, in start order, as the runtime recorded it: `member` is
     * the tool's member in the SDK (`sdk.memberNames` maps tool names to members), `outcome`
     * `in-flight` marks a call the run ended before it settled, whose side effects may still happen;
     * `declined` a call that needed approval and did not get it (`approval` says who decided).
     */
    readonly calls: readonly ToolCallRecord[]
    /** What the run used; absent only when the input or the program was refused and nothing ran. */
    readonly usage?: CodeRunUsage
    /**
     * The type check's diagnostics: the errors that refused the program, or, when a run that
     * passed the check failed, the hints (which may explain the failure). Absent otherwise.
     */
    readonly diagnostics?: readonly ProgramDiagnostic[]
    /**
     * Only for a run in a session whose sandbox is gone after it (`lost`: the run stopped it, or
     * found it stopped; `expired`: idle too long): its variables are forgotten, and the next run
     * opens a new session. `text` ends by saying so.
     */
    readonly sessionEnded?: 'lost' | 'expired'
    /**
     * Only for a failed run that ended while some of its calls waited for a person's approval:
     * those calls' members (`tools.delete_file`), most often because a wall budget ran out while
     * they waited. `error.message` is the runtime's own; `text` says so after it.
     */
    readonly waitingForApproval?: readonly string[]
    /**
     * Only when the type check could not answer (it ran past its time or heap limit, or the
     * checker failed): why. The program ran unchecked, and `text` ends by saying why.
     */
    readonly uncheckedBecause?: string
  }
  /** True when the run failed. */
  readonly isError: boolean
}

/** Options of one run. */
export interface RunCodeOptions {
  /** Aborts the run and every tool call it made. */
  readonly signal?: AbortSignal
  /** Live logs: each entry as the program prints it (see `CodeRunRequest.onLog`). */
  readonly onLog?: (text: string) => void
  /**
   * Keep each call's arguments and result or error message in `structured.calls`, within
   * `maxBytes` of JSON (see `CodeRunRequest.recordCallValues`). Off when absent.
   */
  readonly recordCallValues?: { readonly maxBytes: number }
  /**
   * Wraps each tool call of this run once it starts (inside its dispatch slot, after its
   * arguments passed their check): `execute` runs the tool, and what the wrapper resolves is what
   * the program gets; what it throws, the program catches as the call's error. For front ends
   * with per-run work around each call: counting calls for progress, collecting what tools
   * return beside their value.
   */
  readonly wrapToolCall?: (call: ToolCallStart, execute: () => Promise<unknown>) => Promise<unknown>
  /**
   * Run in this session instead of the Code Mode's own (`createCodeMode({ session })`): for a
   * front end that keeps one session per user, made by `createCodeModeSession`. Its programs
   * run one at a time, in the order their runs were called.
   */
  readonly session?: CodeModeSession
  /** Start clean: reset the run's session (its own or the Code Mode's) before running. Ignored without a session. */
  readonly reset?: boolean
  /** What the program is for, in one line: shown to the person asked to approve a call (`run_code` passes its `description`). */
  readonly description?: string
  /**
   * Who approves this run's calls, in place of the Code Mode's `approve`: for a front end whose
   * approver depends on the caller (the MCP server asks the client that sent the run).
   */
  readonly approve?: ApproveToolCall
}

/** A tool call as {@link RunCodeOptions.wrapToolCall} sees it. */
export interface ToolCallStart {
  /** The tool's own name (the program called its member in the SDK). */
  readonly tool: string
  /** The arguments, already checked against the tool's input schema. */
  readonly args: unknown
  /** The call's own signal (what `execute` would give the tool): fires when the call is cancelled or the run ends. */
  readonly signal: AbortSignal
}

/** The `run_code` tool object: its listing, and what runs a call. */
export interface RunCodeTool extends RunCodeListing {
  execute(input: unknown, options?: RunCodeOptions): Promise<RunCodeOutput>
}

/** The one sentence a model reads about a session: what persists, and how to start clean. */
export const RUN_CODE_SESSION_SENTENCE =
  'Variables persist between calls: top-level declarations of one program are visible to the next ones (pass `reset: true` to start clean).'

/** The sentence that tells the model how to keep variables where sessions are named by handles. */
export const RUN_CODE_SESSION_HANDLE_SENTENCE =
  'Variables persist within a session: each result ends with its session id; pass it back as `session` to run in that session again, where top-level declarations of earlier programs are visible (omit `session` to start a new one; `reset: true` empties it).'

/** The description of `run_code` for the model: what it does, then the SDK (the rules and the declarations). */
export function describeRunCode(sdkText: string, session = false): string {
  const head = 'Run a TypeScript program that calls the tools below, and get back what it logs and returns.'
  return `${session ? `${head}\n${RUN_CODE_SESSION_SENTENCE}` : head}\n\n${sdkText}`
}
