/**
 * An AI SDK `ToolSet` read into what Code Mode runs: each tool's name, description and schemas
 * (through the SDK's own `asSchema`), refusing by name the tools a program cannot call (provider
 * tools, tools without `execute`) and leaving out the tools that need a person's approval, unless
 * an approver is given.
 */
import type { Schema, ToolExecutionOptions, ToolSet } from 'ai'
import { CodeModeError, type CodeModeToolAnnotations, type CodeModeToolDescription } from '@code-runtime/code-mode'
import { readSdkSchema, readToolSchema } from './tool-schema.js'

/** An AI SDK tool's own execute, typed loosely: each tool in a `ToolSet` has its own input type. */
export type SdkToolExecute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown

/** One tool of the set, read: what the SDK text says of it, and how to run it. */
export interface SdkToolEntry {
  /** The tool's key in the `ToolSet`: its name for the model and for Code Mode. */
  readonly name: string
  readonly description: CodeModeToolDescription
  readonly execute: SdkToolExecute
  /** The tool's `contextSchema`, read by the SDK, when it has one. */
  readonly contextSchema?: Schema<unknown>
  /** Its `needsApproval` (kept only when an approver is given): `true`, or the SDK's function deciding per call. */
  readonly needsApproval?: true | SdkNeedsApproval
}

/** An AI SDK tool's `needsApproval` function, typed loosely like {@link SdkToolExecute}. */
export type SdkNeedsApproval = (
  input: unknown,
  options: { toolCallId: string; messages: ToolExecutionOptions<unknown>['messages']; context: unknown },
) => boolean | PromiseLike<boolean>

/** True when the tool asks for a person's approval (`needsApproval: true`, or a function deciding per call). */
export function needsApproval(tool: ToolSet[string]): boolean {
  return tool.needsApproval === true || typeof tool.needsApproval === 'function'
}

function refuseTool(name: string, field: string, message: string): never {
  throw new CodeModeError('CODE_MODE_INVALID_TOOL', `Invalid tool: ${JSON.stringify(name)} ${message}.`, {
    field: `tools.${name}${field === '' ? '' : `.${field}`}`,
  })
}

const BESIDE = 'pass it to generateText/streamText beside run_code instead (tools: { run_code, ...yourTools })'

function readTool(name: string, tool: ToolSet[string], annotations: CodeModeToolAnnotations | undefined): SdkToolEntry {
  if (typeof tool !== 'object' || tool === null)
    refuseTool(name, '', 'is not an AI SDK tool: build it with tool() from the ai package')
  if (tool.type === 'provider') {
    const kind =
      tool.isProviderExecuted === true
        ? "runs on the provider's side"
        : 'has a provider-defined input the model is trained on'
    refuseTool(
      name,
      'type',
      `is a provider tool (${String(tool.id)}) that ${kind}, so a program cannot call it: ${BESIDE}`,
    )
  }
  if (typeof tool.execute !== 'function') {
    refuseTool(
      name,
      'execute',
      `has no execute function (a tool answered by the client, e.g. through addToolOutput), so a program cannot call it: ${BESIDE}`,
    )
  }
  if (tool.description !== undefined && typeof tool.description !== 'string') {
    // The SDK text is written once, when codeModeTool() is called; a description per context cannot be.
    refuseTool(
      name,
      'description',
      'has a description that depends on the context (a function): give it a string description to use it in Code Mode',
    )
  }
  const description: { -readonly [K in keyof CodeModeToolDescription]: CodeModeToolDescription[K] } = {
    name,
    inputSchema: readToolSchema(name, 'inputSchema', tool.inputSchema),
  }
  if (tool.description !== undefined) description.description = tool.description
  if (tool.outputSchema !== undefined)
    description.outputSchema = readToolSchema(name, 'outputSchema', tool.outputSchema)
  if (annotations !== undefined) description.annotations = annotations
  const entry: { -readonly [K in keyof SdkToolEntry]: SdkToolEntry[K] } = {
    name,
    description,
    execute: tool.execute as SdkToolExecute,
  }
  if (tool.contextSchema !== undefined) entry.contextSchema = readSdkSchema(name, 'contextSchema', tool.contextSchema)
  if (tool.needsApproval === true) entry.needsApproval = true
  else if (typeof tool.needsApproval === 'function') entry.needsApproval = tool.needsApproval as SdkNeedsApproval
  return entry
}

/**
 * Reads every tool of `tools` that Code Mode can run, in the set's order; tools that need approval
 * are left out (see {@link needsApproval}) unless `withApproval`: then they are read, their flag kept.
 * @param annotations hints per tool name (`readOnlyHint` lets calls overlap); every key must name a
 *   tool of the set that is not left out.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming the tool and what to do;
 *   `CODE_MODE_INVALID_OPTIONS` for annotations of a tool the set does not run.
 */
export function readToolSet(
  tools: ToolSet,
  annotations: Readonly<Record<string, CodeModeToolAnnotations | undefined>> = {},
  withApproval = false,
): readonly SdkToolEntry[] {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new CodeModeError(
      'CODE_MODE_INVALID_OPTIONS',
      'Invalid codeModeTool options: tools must be an AI SDK ToolSet, an object of tools keyed by name.',
      { field: 'tools' },
    )
  }
  const entries: SdkToolEntry[] = []
  for (const [name, tool] of Object.entries(tools)) {
    if (!withApproval && typeof tool === 'object' && tool !== null && needsApproval(tool)) continue
    // Own keys only: a tool named `constructor` or `toString` has no annotation the prototype could lend it.
    entries.push(readTool(name, tool, Object.hasOwn(annotations, name) ? annotations[name] : undefined))
  }
  const runnable = new Set(entries.map(entry => entry.name))
  for (const name of Object.keys(annotations)) {
    if (runnable.has(name)) continue
    const why = Object.hasOwn(tools, name) ? 'needs approval, so it is not in the SDK' : 'is not in tools'
    throw new CodeModeError(
      'CODE_MODE_INVALID_OPTIONS',
      `Invalid codeModeTool options: toolAnnotations.${name} annotates a tool that ${why}; annotate one of: ${[...runnable].join(', ') || '(none)'}.`,
      { field: `toolAnnotations.${name}` },
    )
  }
  return entries
}
