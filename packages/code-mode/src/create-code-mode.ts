/**
 * Code Mode in one call: tools in; the model-facing SDK, the `run_code` tool and the dispatch of
 * the program's calls back to the tools out. Works with any `CodeRuntime`.
 */
import { readIntegerField, refuseConfigField, type CodeBindingNamespace, type CodeJsonValue, type CodeRunRequest, type CodeRunResult } from '@code-runtime/core'
import { compileArgumentCheck, type ArgumentCheck } from './argument-validation.js'
import { CodeModeError, codeModeErrorPlace } from './errors.js'
import { renderRunResult } from './render-result.js'
import { describeRunCode, RUN_CODE_INPUT_SCHEMA, type RunCodeOptions, type RunCodeOutput, type RunCodeTool } from './run-code-tool.js'
import { emitSdk, type EmittedSdk } from './sdk-emitter.js'
import { resolveSdkEmitterOptions, TOOL_NAME_PROPERTY } from './sdk-options.js'
import { ToolCallScheduler } from './tool-call-scheduler.js'
import type { CodeModeTool } from './tool-definition.js'

/** The part of a code runtime Code Mode uses: any `CodeRuntime` fits. */
export interface CodeModeRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
}

/** Options of {@link createCodeMode}. */
export interface CodeModeOptions {
  /** The tools programs may call. */
  readonly tools: readonly CodeModeTool[]
  /** Where programs run, e.g. a started `WorkerThreadCodeRuntime`. */
  readonly runtime: CodeModeRuntime
  /** Global holding the tools in the program; default `tools`. */
  readonly namespace?: string
  /** Class of failed calls in the program; default `ToolCallError`. */
  readonly errorClassName?: string
  /** Most concurrency-safe calls in flight at once; default 10. */
  readonly maxParallel?: number
  /** Longest text returned to the model, in characters; default 40 000. */
  readonly maxResultChars?: number
}

/** What {@link createCodeMode} returns. */
export interface CodeMode {
  /** The SDK for the prompt: declarations, instructions, and both as one text. */
  readonly sdk: EmittedSdk
  /** The `run_code` tool to hand to the model. */
  readonly tool: RunCodeTool
  /** Runs one program directly (what `tool.execute` does after checking its input). */
  run(code: string, options?: RunCodeOptions): Promise<RunCodeOutput>
}

export const DEFAULT_MAX_PARALLEL = 10
export const DEFAULT_MAX_RESULT_CHARS = 40_000
/** The largest `maxResultChars` taken: about 100 million characters, far past any model's context. */
export const MAX_RESULT_CHARS_LIMIT = 100_000_000

const OPTIONS_PLACE = codeModeErrorPlace('CODE_MODE_INVALID_OPTIONS', 'Code Mode options')

/** A call may overlap others when the tool says so, or when it declares itself read-only. */
function isConcurrencySafe(tool: CodeModeTool): boolean {
  return tool.concurrencySafe ?? tool.annotations?.readOnlyHint === true
}

function readRunCodeInput(input: unknown): { code: string } | { problem: string } {
  if (typeof input !== 'object' || input === null) return { problem: 'run_code takes an object { code, description }.' }
  const { code, description } = input as { code?: unknown; description?: unknown }
  if (typeof code !== 'string' || code.trim() === '') return { problem: 'run_code needs `code`: the program, as a non-empty string.' }
  if (typeof description !== 'string') return { problem: 'run_code needs `description`: one line saying what the program does.' }
  return { code }
}

/** The structured outcome for a caller: `{ logs, result?, error?, calls, usage }`. */
function structureRunResult(result: CodeRunResult): RunCodeOutput['structured'] {
  const { logs, calls, usage } = result
  if (result.error !== undefined) return { logs, error: result.error, calls, usage }
  return 'value' in result && result.value !== undefined ? { logs, result: result.value, calls, usage } : { logs, calls, usage }
}

/**
 * Builds Code Mode over `tools`.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL`, `CODE_MODE_DUPLICATE_TOOL_NAME` or
 *   `CODE_MODE_INVALID_OPTIONS`, naming the field at fault.
 * @example
 * const codeMode = createCodeMode({ tools, runtime })
 * const prompt = codeMode.sdk.text
 * const output = await codeMode.tool.execute({ code: 'return await tools.add({ a: 1, b: 2 })', description: 'add' })
 */
export function createCodeMode(options: CodeModeOptions): CodeMode {
  const { namespace, errorClassName } = resolveSdkEmitterOptions(
    options.namespace === undefined && options.errorClassName === undefined
      ? undefined
      : { ...(options.namespace === undefined ? {} : { namespace: options.namespace }), ...(options.errorClassName === undefined ? {} : { errorClassName: options.errorClassName }) },
  )
  if (typeof options.runtime?.run !== 'function') {
    refuseConfigField(OPTIONS_PLACE, 'runtime', 'must be a code runtime with a run() method', options.runtime)
  }
  const limits = { maxParallel: options.maxParallel, maxResultChars: options.maxResultChars }
  const maxParallel = readIntegerField(OPTIONS_PLACE, limits, 'maxParallel', { default: DEFAULT_MAX_PARALLEL, min: 1, max: 1_000 })
  const maxResultChars = readIntegerField(OPTIONS_PLACE, limits, 'maxResultChars', { default: DEFAULT_MAX_RESULT_CHARS, min: 200, max: MAX_RESULT_CHARS_LIMIT })
  const sdk = emitSdk(options.tools, { namespace, errorClassName })
  for (const tool of options.tools) {
    if (typeof tool.execute !== 'function') {
      throw new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${tool.name}.execute must be a function.`, { field: `${tool.name}.execute` })
    }
  }
  const tools = options.tools.map((tool) => ({
    tool,
    member: sdk.memberNames.get(tool.name) as string,
    check: compileArgumentCheck(tool.inputSchema) as ArgumentCheck | undefined,
    isConcurrencySafe: isConcurrencySafe(tool),
  }))
  const runtime = options.runtime

  async function run(code: string, runOptions: RunCodeOptions = {}): Promise<RunCodeOutput> {
    const scheduler = new ToolCallScheduler(maxParallel, runOptions.signal)
    const wrap = runOptions.wrapToolCall
    const functions: Record<string, (args: unknown) => Promise<CodeJsonValue>> = {}
    for (const { tool, member, check, isConcurrencySafe: safe } of tools) {
      functions[member] = async (args) => {
        const problem = check?.(args)
        if (problem !== undefined) throw new Error(`${namespace}.${member}: ${problem}.`)
        const execute = (signal: AbortSignal): Promise<unknown> => tool.execute(args, { signal })
        const value = await scheduler.submit(safe, wrap === undefined
          ? execute
          : (signal) => wrap({ tool: tool.name, args }, () => execute(signal)))
        // A tool that resolves nothing has still succeeded; the program sees null.
        return (value === undefined ? null : value) as CodeJsonValue
      }
    }
    const binding: CodeBindingNamespace = {
      global: namespace,
      functions,
      errorClass: { name: errorClassName, memberNameProperty: TOOL_NAME_PROPERTY },
    }
    const request: { -readonly [K in keyof CodeRunRequest]: CodeRunRequest[K] } = { program: code, bindings: [binding] }
    if (runOptions.signal !== undefined) request.signal = runOptions.signal
    if (runOptions.onLog !== undefined) request.onLog = runOptions.onLog
    if (runOptions.recordCallValues !== undefined) request.recordCallValues = runOptions.recordCallValues
    let result: CodeRunResult
    try {
      result = await runtime.run(request)
    } finally {
      // However the run ended, no tool call outlives it: in-flight ones are aborted and awaited.
      await scheduler.drain(new Error('The run ended before this tool call finished.'))
    }
    const structured = structureRunResult(result)
    return { text: renderRunResult(result, maxResultChars), structured, isError: result.error !== undefined }
  }

  const tool: RunCodeTool = {
    name: 'run_code',
    description: describeRunCode(sdk.text),
    inputSchema: RUN_CODE_INPUT_SCHEMA,
    async execute(input, executeOptions = {}) {
      const read = readRunCodeInput(input)
      if ('problem' in read) return { text: read.problem, structured: { logs: [], calls: [] }, isError: true }
      return run(read.code, executeOptions)
    },
  }
  return { sdk, tool, run }
}
