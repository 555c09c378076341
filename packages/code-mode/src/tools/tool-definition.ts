/**
 * The tool definition agent builders already have (name, description, JSON Schema in and out,
 * MCP-style annotations, execute), and the one decoder the SDK emitter trusts afterwards.
 */
import { isObjectRecord, refuseConfigField } from '@code-runtime/core/internal'
import { INVALID_TOOL_PLACE } from '../errors.js'
import { readToolSchema, type JsonSchema, type ToolArgumentValidator, type ToolSchema } from './tool-schema.js'

export type { JsonSchema } from './tool-schema.js'

/** MCP tool annotations: hints about behaviour, never guarantees. */
export interface CodeModeToolAnnotations {
  readonly title?: string
  /** The tool does not change its environment. */
  readonly readOnlyHint?: boolean
  /** The tool may destroy or overwrite data (meaningful when not read-only). */
  readonly destructiveHint?: boolean
  /** Repeating a call with the same arguments has no further effect. */
  readonly idempotentHint?: boolean
  /** The tool reaches outside systems (the web, say) rather than a closed domain. */
  readonly openWorldHint?: boolean
}

/** Everything about a tool except how to run it: what the SDK emitter reads. */
export interface CodeModeToolDescription {
  /** The tool's own name; the SDK member may differ when this is not an identifier. */
  readonly name: string
  readonly description?: string
  /**
   * The single argument the tool takes: JSON Schema, or a validator library's schema with a JSON
   * Schema export (Zod 4.2+, any Standard JSON Schema), whose own validator then checks calls.
   */
  readonly inputSchema: ToolSchema
  /** What the tool resolves with, in either form; without it the SDK says `unknown`. */
  readonly outputSchema?: ToolSchema
  readonly annotations?: CodeModeToolAnnotations
  /** True when calls may overlap with other concurrency-safe calls. */
  readonly concurrencySafe?: boolean
  /**
   * True: each call waits for a person's approval (Code Mode's `approve` hook); false: never.
   * Unset: calls wait when the annotations say `destructiveHint: true` and not `readOnlyHint: true`.
   */
  readonly needsApproval?: boolean
}

/**
 * A tool description after reading: both schemas as JSON Schema, and the input schema's own
 * validator when it came from a validator library.
 */
export interface ParsedToolDescription extends CodeModeToolDescription {
  readonly inputSchema: JsonSchema
  readonly outputSchema?: JsonSchema
  /** Checks (and may transform) a call's arguments in place of the JSON Schema check. */
  readonly validateInput?: ToolArgumentValidator
}

/** What the tool is given besides its arguments. */
export interface CodeModeToolContext {
  /** Aborts when the run that made the call settles or is cancelled. */
  readonly signal: AbortSignal
}

/** A tool Code Mode can offer to programs: its description plus how to run it. */
export interface CodeModeTool extends CodeModeToolDescription {
  execute(args: unknown, context: CodeModeToolContext): Promise<unknown>
}

const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/** Refuses a tool definition in the words of every config refusal. */
function refuseTool(field: string, value: unknown, rule: string): never {
  refuseConfigField(INVALID_TOOL_PLACE, field, rule, value)
}

function readAnnotations(field: string, value: unknown): CodeModeToolAnnotations {
  if (!isObjectRecord(value)) refuseTool(field, value, 'must be an object of hints')
  const annotations: { -readonly [K in keyof CodeModeToolAnnotations]: CodeModeToolAnnotations[K] } = {}
  if (value.title !== undefined) {
    if (typeof value.title !== 'string') refuseTool(`${field}.title`, value.title, 'must be a string')
    annotations.title = value.title
  }
  for (const hint of ANNOTATION_HINTS) {
    const hintValue = value[hint]
    if (hintValue === undefined) continue
    if (typeof hintValue !== 'boolean') refuseTool(`${field}.${hint}`, hintValue, 'must be a boolean')
    annotations[hint] = hintValue
  }
  return Object.freeze(annotations)
}

function readToolDescription(field: string, value: unknown): ParsedToolDescription {
  if (!isObjectRecord(value)) refuseTool(field, value, 'must be an object { name, description?, inputSchema, ... }')
  const { name, description, inputSchema, outputSchema, annotations, concurrencySafe, needsApproval } = value
  if (typeof name !== 'string' || name === '') refuseTool(`${field}.name`, name, 'must be a non-empty string')
  if (description !== undefined && typeof description !== 'string') {
    refuseTool(`${field}.description`, description, 'must be a string')
  }
  const input = readToolSchema(`${field}.inputSchema`, name, inputSchema, 'input')
  const output =
    outputSchema === undefined ? undefined : readToolSchema(`${field}.outputSchema`, name, outputSchema, 'output')
  if (concurrencySafe !== undefined && typeof concurrencySafe !== 'boolean') {
    refuseTool(`${field}.concurrencySafe`, concurrencySafe, 'must be a boolean')
  }
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean') {
    refuseTool(`${field}.needsApproval`, needsApproval, 'must be a boolean')
  }
  const tool: { -readonly [K in keyof ParsedToolDescription]: ParsedToolDescription[K] } = {
    name,
    inputSchema: input.jsonSchema,
  }
  if (input.validate !== undefined) tool.validateInput = input.validate
  if (description !== undefined) tool.description = description
  if (output !== undefined) tool.outputSchema = output.jsonSchema
  if (annotations !== undefined) tool.annotations = readAnnotations(`${field}.annotations`, annotations)
  if (concurrencySafe !== undefined) tool.concurrencySafe = concurrencySafe
  if (needsApproval !== undefined) tool.needsApproval = needsApproval
  return Object.freeze(tool)
}

/**
 * Checks tool definitions (full tools or descriptions) and returns frozen copies of their
 * descriptive parts, schemas read as JSON Schema. A JSON Schema is kept by reference: its
 * readers never trust its shape.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL`, naming the field at fault (`tools[2].name`)
 *   and, for a schema, the tool and what to do.
 */
export function parseToolDescriptions(tools: unknown): readonly ParsedToolDescription[] {
  if (!Array.isArray(tools)) refuseTool('tools', tools, 'must be an array of tool definitions')
  return Object.freeze(tools.map((tool: unknown, index) => readToolDescription(`tools[${index}]`, tool)))
}
