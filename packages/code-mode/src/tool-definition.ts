/**
 * The tool definition agent builders already have (name, description, JSON Schema in and out,
 * MCP-style annotations, execute), and the one decoder the SDK emitter trusts afterwards.
 */
import { refuseConfigField } from '@code-runtime/core'
import { INVALID_TOOL_PLACE } from './errors.js'

/**
 * A JSON Schema document or subschema as a plain JSON object. Values are `unknown` rather than a
 * JSON type so that schemas typed by other libraries (the MCP SDK's `inputSchema`, say) fit
 * without casts; every reader of a schema checks each keyword it uses.
 */
export type JsonSchema = { readonly [keyword: string]: unknown }

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
  /** JSON Schema of the single argument the tool takes. */
  readonly inputSchema: JsonSchema
  /** JSON Schema of what the tool resolves with; without it the SDK says `unknown`. */
  readonly outputSchema?: JsonSchema
  readonly annotations?: CodeModeToolAnnotations
  /** True when calls may overlap with other concurrency-safe calls. */
  readonly concurrencySafe?: boolean
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

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function readAnnotations(field: string, value: unknown): CodeModeToolAnnotations {
  if (!isPlainObject(value)) refuseTool(field, value, 'must be an object of hints')
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

function readToolDescription(field: string, value: unknown): CodeModeToolDescription {
  if (!isPlainObject(value)) refuseTool(field, value, 'must be an object { name, description?, inputSchema, ... }')
  const { name, description, inputSchema, outputSchema, annotations, concurrencySafe } = value
  if (typeof name !== 'string' || name === '') refuseTool(`${field}.name`, name, 'must be a non-empty string')
  if (description !== undefined && typeof description !== 'string') {
    refuseTool(`${field}.description`, description, 'must be a string')
  }
  if (!isPlainObject(inputSchema)) refuseTool(`${field}.inputSchema`, inputSchema, 'must be a JSON Schema object')
  if (outputSchema !== undefined && !isPlainObject(outputSchema)) {
    refuseTool(`${field}.outputSchema`, outputSchema, 'must be a JSON Schema object')
  }
  if (concurrencySafe !== undefined && typeof concurrencySafe !== 'boolean') {
    refuseTool(`${field}.concurrencySafe`, concurrencySafe, 'must be a boolean')
  }
  const tool: { -readonly [K in keyof CodeModeToolDescription]: CodeModeToolDescription[K] } = { name, inputSchema }
  if (description !== undefined) tool.description = description
  if (outputSchema !== undefined) tool.outputSchema = outputSchema
  if (annotations !== undefined) tool.annotations = readAnnotations(`${field}.annotations`, annotations)
  if (concurrencySafe !== undefined) tool.concurrencySafe = concurrencySafe
  return Object.freeze(tool)
}

/**
 * Checks tool definitions (full tools or descriptions) and returns frozen copies of their
 * descriptive parts. Schemas are kept by reference: their readers never trust their shape.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL`, naming the field at fault (`tools[2].name`).
 */
export function parseToolDescriptions(tools: unknown): readonly CodeModeToolDescription[] {
  if (!Array.isArray(tools)) refuseTool('tools', tools, 'must be an array of tool definitions')
  return Object.freeze(tools.map((tool: unknown, index) => readToolDescription(`tools[${index}]`, tool)))
}
