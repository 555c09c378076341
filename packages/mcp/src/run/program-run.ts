/**
 * One `run_code` over a catalog's tools, through Code Mode's own run path (`createCodeMode`).
 * What the MCP front ends add per run is one wrapper around each tool call: it decodes the
 * server's answer into the program's value, collects the images and other media beside it
 * (attached to the result, since they are not JSON for the program), and counts calls for
 * progress. Calls start in program order; read-only calls overlap; when the run settles,
 * in-flight upstream calls are aborted (MCP `notifications/cancelled`) and drained.
 */
import type { CallToolResult } from '@modelcontextprotocol/client'
import {
  createCodeMode,
  DEFAULT_SDK_EMITTER_OPTIONS,
  type ApproveToolCall,
  type CodeMode,
  type CodeModeRuntime,
  type CodeModeSession,
  type RunCodeOutput,
  type TypeCheckMode,
} from '@code-runtime/code-mode'
import type { ToolCatalog } from '../upstream/tool-catalog.js'
import { decodeCallResult, type MediaBlock } from '../upstream/upstream-results.js'

/** The global holding the tools in a program: Code Mode's default, which the catalog's SDK is emitted with too. */
export const TOOLS_NAMESPACE = DEFAULT_SDK_EMITTER_OPTIONS.namespace

/** Most media blocks one run returns; a loop that renders a thousand charts should not flood the client. */
export const MAX_MEDIA_BLOCKS = 32

/** Counts of a run's tool calls so far. */
export interface ToolCallCounts {
  readonly started: number
  readonly finished: number
}

/** Limits and checks of every run over one catalog. */
export interface CatalogRunOptions {
  /** Most read-only calls in flight at once; default 10. */
  readonly maxParallel?: number
  /** Longest text returned, in characters; default 40 000. */
  readonly maxResultChars?: number
  /** How a program is type-checked before it runs; default `calls` (Code Mode's). */
  readonly typeCheck?: TypeCheckMode
}

/** Options of {@link runProgram}. */
export interface ProgramRunOptions {
  /** Aborting ends the run as `abort` and cancels its in-flight upstream calls. */
  readonly signal?: AbortSignal
  /** Told whenever a call starts or finishes. */
  readonly onCalls?: (counts: ToolCallCounts) => void
  /** Live logs: each entry as the program prints it. */
  readonly onLog?: (text: string) => void
  /** Run in this session (variables persist between its runs); one-shot without it. */
  readonly session?: CodeModeSession
  /** Forget the session's variables before running. */
  readonly reset?: boolean
  /** Who approves the run's calls that need approval; without it they are declined. */
  readonly approve?: ApproveToolCall
  /** What the program is for (run_code's `description`), shown to whoever approves its calls. */
  readonly description?: string
}

/** What a run gives back: Code Mode's output, plus the media the tools produced. */
export interface ProgramRunOutput extends RunCodeOutput {
  readonly media: readonly MediaBlock[]
}

/** Code Mode over the catalog's tools, with the same SDK as the catalog's. */
export function catalogCodeMode(
  runtime: CodeModeRuntime,
  catalog: ToolCatalog,
  options: CatalogRunOptions = {},
): CodeMode {
  return createCodeMode({ tools: catalog.tools, runtime, ...options })
}

function describeMedia(block: MediaBlock): string {
  switch (block.type) {
    case 'image':
    case 'audio':
      return block.mimeType
    case 'resource':
      return block.resource.uri
    case 'resource_link':
      return block.uri
  }
}

/**
 * Runs `code` with `tools.<member>(args)` bound to the tools of the catalog `codeMode` was made
 * over (see {@link catalogCodeMode}).
 * @example const output = await runProgram(catalogCodeMode(runtime, catalog), 'return await tools.files_list_allowed_directories()')
 */
export async function runProgram(
  codeMode: CodeMode,
  code: string,
  options: ProgramRunOptions = {},
): Promise<ProgramRunOutput> {
  const media: MediaBlock[] = []
  let started = 0
  let finished = 0
  const output = await codeMode.run(code, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onLog === undefined ? {} : { onLog: options.onLog }),
    ...(options.session === undefined ? {} : { session: options.session, reset: options.reset === true }),
    ...(options.approve === undefined ? {} : { approve: options.approve }),
    ...(options.description === undefined ? {} : { description: options.description }),
    async wrapToolCall(_call, execute) {
      options.onCalls?.({ started: ++started, finished })
      try {
        // The catalog's tools resolve the server's answer as it came (see CatalogTool).
        const decoded = decodeCallResult((await execute()) as CallToolResult)
        media.push(...decoded.media)
        if (!decoded.ok) throw new Error(decoded.error)
        return decoded.value
      } finally {
        options.onCalls?.({ started, finished: ++finished })
      }
    },
  })
  const kept = media.slice(0, MAX_MEDIA_BLOCKS)
  if (kept.length === 0) return { ...output, media: kept }
  const leftOut = media.length - kept.length
  const note = `[${kept.length} content block${kept.length === 1 ? '' : 's'} from tools attached: ${kept.map(describeMedia).join(', ')}${leftOut > 0 ? `; ${leftOut} more left out` : ''}]`
  return { ...output, text: `${output.text}\n${note}`, media: kept }
}
