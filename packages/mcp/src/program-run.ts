/**
 * One `run_code`: the program runs against a catalog's tools. Built from Code Mode's parts
 * (scheduler, argument checks, rendering) rather than `createCodeMode`, because each run needs
 * its own collector of the images and other media its calls produce, and its own count of calls
 * for progress. Calls start in program order; read-only calls overlap; when the run settles,
 * in-flight upstream calls are aborted (MCP `notifications/cancelled`) and drained.
 */
import type { CodeBindingNamespace, CodeJsonValue } from '@code-runtime/core'
import {
  DEFAULT_MAX_PARALLEL,
  DEFAULT_MAX_RESULT_CHARS,
  renderRunResult,
  runWithTools,
  structureRunResult,
  ToolCallScheduler,
  TOOL_NAME_PROPERTY,
  type CodeModeRuntime,
  type RunCodeOutput,
} from '@code-runtime/code-mode'
import type { ToolCatalog } from './tool-catalog.js'
import { decodeCallResult, describeCallFailure, type MediaBlock } from './upstream-results.js'

/** The global holding the tools in a program, and the class of its failed calls. */
export const TOOLS_NAMESPACE = 'tools'
export const TOOL_ERROR_CLASS = 'ToolCallError'

/** Most media blocks one run returns; a loop that renders a thousand charts should not flood the client. */
export const MAX_MEDIA_BLOCKS = 32

/** Counts of a run's tool calls so far. */
export interface ToolCallCounts {
  readonly started: number
  readonly finished: number
}

/** Options of {@link runProgram}. */
export interface ProgramRunOptions {
  /** Aborting ends the run as `abort` and cancels its in-flight upstream calls. */
  readonly signal?: AbortSignal
  /** Most read-only calls in flight at once; default 10. */
  readonly maxParallel?: number
  /** Longest text returned, in characters; default 40 000. */
  readonly maxResultChars?: number
  /** Told whenever a call starts or finishes. */
  readonly onCalls?: (counts: ToolCallCounts) => void
  /** Live logs: each entry as the program prints it. */
  readonly onLog?: (text: string) => void
}

/** What a run gives back: Code Mode's output, plus the media the tools produced. */
export interface ProgramRunOutput extends RunCodeOutput {
  readonly media: readonly MediaBlock[]
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
 * Runs `code` with `tools.<member>(args)` bound to the catalog's tools.
 * @example const output = await runProgram(runtime, catalog, 'return await tools.files_list_allowed_directories()')
 */
export async function runProgram(runtime: CodeModeRuntime, catalog: ToolCatalog, code: string, options: ProgramRunOptions = {}): Promise<ProgramRunOutput> {
  const scheduler = new ToolCallScheduler(options.maxParallel ?? DEFAULT_MAX_PARALLEL, options.signal)
  const media: MediaBlock[] = []
  let started = 0
  let finished = 0
  const functions: Record<string, (args: unknown) => Promise<CodeJsonValue>> = {}
  for (const tool of catalog.tools) {
    const isConcurrencySafe = tool.annotations?.readOnlyHint === true
    functions[tool.member] = async (args) => {
      const problem = tool.check?.(args)
      if (problem !== undefined) throw new Error(`${TOOLS_NAMESPACE}.${tool.member}: ${problem}.`)
      const value = await scheduler.submit(isConcurrencySafe, async (signal) => {
        options.onCalls?.({ started: ++started, finished })
        try {
          let answer
          try {
            answer = await tool.server.callTool(tool.toolName, args, signal)
          } catch (error) {
            throw new Error(describeCallFailure(tool.server.name, tool.server.config.timeoutMs, error))
          }
          const decoded = decodeCallResult(answer)
          media.push(...decoded.media)
          if (!decoded.ok) throw new Error(decoded.message)
          return decoded.value
        } finally {
          options.onCalls?.({ started, finished: ++finished })
        }
      })
      return value as CodeJsonValue
    }
  }
  const binding: CodeBindingNamespace = {
    global: TOOLS_NAMESPACE,
    functions,
    errorClass: { name: TOOL_ERROR_CLASS, memberNameProperty: TOOL_NAME_PROPERTY },
  }
  const result = await runWithTools(runtime, code, binding, scheduler, options)
  const kept = media.slice(0, MAX_MEDIA_BLOCKS)
  let text = renderRunResult(result, options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS)
  if (kept.length > 0) {
    const leftOut = media.length - kept.length
    text += `\n[${kept.length} content block${kept.length === 1 ? '' : 's'} from tools attached: ${kept.map(describeMedia).join(', ')}${leftOut > 0 ? `; ${leftOut} more left out` : ''}]`
  }
  const structured = structureRunResult(result)
  return { text, structured, isError: result.error !== undefined, media: kept }
}
