/**
 * A tool's schema as its author wrote it — plain JSON Schema, or a validator library's schema
 * (Zod 4, Valibot, ArkType...) through the Standard Schema and Standard JSON Schema interfaces —
 * read into the one form the emitter and the type check trust: JSON Schema, plus the library's own
 * validator when there is one. A schema that cannot be read is refused by name; it never becomes
 * `unknown` silently.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import { isObjectRecord, isPlainObject, refuseConfigField, type Checked } from '@code-runtime/core/internal'
import { INVALID_TOOL_PLACE } from '../errors.js'

/**
 * A JSON Schema document or subschema as a plain JSON object. Values are `unknown` rather than a
 * JSON type so that schemas typed by other libraries (the MCP SDK's `inputSchema`, say) fit
 * without casts; every reader of a schema checks each keyword it uses.
 */
export type JsonSchema = { readonly [keyword: string]: unknown }

/**
 * A validator library's schema that can say what it accepts as JSON Schema: Zod 4.2+ schemas,
 * and any other library implementing Standard JSON Schema. When it also implements Standard
 * Schema (`~standard.validate`), Code Mode checks a call's arguments with it.
 */
export type StandardToolSchema = StandardJSONSchemaV1 | (StandardJSONSchemaV1 & StandardSchemaV1)

/** What a tool's `inputSchema` or `outputSchema` may be. */
export type ToolSchema = JsonSchema | StandardToolSchema

/** The outcome of a tool's own validator: the value the tool is given, or the first problem. */
export type ValidatedArguments = Checked<unknown>

/** A tool's own validator, as Code Mode calls it. */
export type ToolArgumentValidator = (args: unknown) => Promise<ValidatedArguments>

/** A schema read: the JSON Schema the SDK and the type check use, and the library's validator. */
export interface ReadToolSchema {
  readonly jsonSchema: JsonSchema
  /** Present for Standard Schemas: validates (and may transform) arguments before the tool runs. */
  readonly validate?: ToolArgumentValidator
}

// Every keyword of JSON Schema drafts 4 to 2020-12 and OpenAPI's `nullable`: a root object with
// keys but none of these is not a JSON Schema (a map of properties, a wrapper of another library).
const JSON_SCHEMA_KEYWORDS = new Set([
  '$schema',
  '$id',
  'id',
  '$ref',
  '$defs',
  'definitions',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$comment',
  '$vocabulary',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
  'minProperties',
  'maxProperties',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'minItems',
  'maxItems',
  'uniqueItems',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'title',
  'description',
  'default',
  'examples',
  'example',
  'readOnly',
  'writeOnly',
  'deprecated',
  'nullable',
])

// Zod writes `.int()` as JSON Schema's integer bounded to the safe integers; a schema written by
// hand says `type: 'integer'` alone. Dropping exactly these bounds gives both the same SDK text.
const SAFE_INTEGER_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const

// Tried in order: the target our reader knows best, then the other one every library supports.
const JSON_SCHEMA_TARGETS = ['draft-2020-12', 'draft-07'] as const

/** `tools[2].inputSchema (tool "get-weather")`: the field and the tool a refusal is about. */
function refuseSchema(field: string, toolName: string, value: unknown, rule: string): never {
  refuseConfigField(INVALID_TOOL_PLACE, field, `(tool ${JSON.stringify(toolName)}) ${rule}`, value)
}

function withoutSafeIntegerBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSafeIntegerBounds)
  if (!isObjectRecord(schema)) return schema
  // Built from entries: an assignment `copy['__proto__'] = ...` would set the prototype and lose a property of that name.
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, withoutSafeIntegerBounds(value)]),
  )
  if (copy.type === 'integer') {
    if (copy.minimum === SAFE_INTEGER_BOUNDS.minimum) delete copy.minimum
    if (copy.maximum === SAFE_INTEGER_BOUNDS.maximum) delete copy.maximum
  }
  return copy
}

/** The first issue of a failed validation, worded like the JSON Schema checks: `args.city: <message>`. */
function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  const [first] = issues
  if (first === undefined) return 'args do not match the input schema'
  let path = 'args'
  for (const segment of first.path ?? []) {
    const key: unknown = typeof segment === 'object' && segment !== null ? segment.key : segment
    if (typeof key === 'number') path += `[${key}]`
    else if (typeof key === 'string') path += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
    else path += '[?]'
  }
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : ''
  return `${path}: ${String(first.message)}${more}`
}

function standardValidator(props: StandardSchemaV1.Props): ToolArgumentValidator {
  return async args => {
    const result = await props.validate(args)
    return result.issues === undefined
      ? { ok: true, value: result.value }
      : { ok: false, error: describeIssues(result.issues) }
  }
}

function readStandardSchema(
  field: string,
  toolName: string,
  value: Readonly<Record<string, unknown>>,
  io: 'input' | 'output',
): ReadToolSchema {
  const props = value['~standard']
  if (!isObjectRecord(props))
    refuseSchema(field, toolName, value, 'has a `~standard` property that is not the Standard Schema interface')
  const vendor = typeof props.vendor === 'string' ? props.vendor : 'an unknown library'
  const converter = props.jsonSchema
  if (!isObjectRecord(converter) || typeof converter[io] !== 'function') {
    const advice =
      vendor === 'zod'
        ? 'Zod schemas say what they accept as JSON Schema from Zod 4.2 on: upgrade zod (Zod 3 has no JSON Schema export), or pass `z.toJSONSchema(schema)`'
        : 'pass its JSON Schema instead (most libraries have a converter), or a library version that implements Standard JSON Schema'
    refuseSchema(
      field,
      toolName,
      value,
      `is a ${vendor} schema without a JSON Schema export (\`~standard.jsonSchema\`), so Code Mode cannot tell the model its type: ${advice}`,
    )
  }
  const convert = converter[io] as (options: StandardJSONSchemaV1.Options) => Record<string, unknown>
  let jsonSchema: unknown
  const failures: string[] = []
  for (const target of JSON_SCHEMA_TARGETS) {
    try {
      jsonSchema = convert.call(converter, { target })
      break
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error))
    }
  }
  if (!isObjectRecord(jsonSchema)) {
    const reason =
      failures.length > 0
        ? `its conversion to JSON Schema failed (${failures[0]})`
        : 'its conversion to JSON Schema gave no object'
    refuseSchema(
      field,
      toolName,
      value,
      `is a ${vendor} schema that cannot be read: ${reason}. Tool arguments arrive as JSON: describe them with types JSON can carry`,
    )
  }
  const read: { jsonSchema: JsonSchema; validate?: ToolArgumentValidator } = {
    jsonSchema: withoutSafeIntegerBounds(jsonSchema) as JsonSchema,
  }
  if (io === 'input' && typeof props.validate === 'function')
    read.validate = standardValidator(props as unknown as StandardSchemaV1.Props)
  return read
}

/**
 * Reads a tool's input or output schema.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming the field and the tool, and what to do,
 *   for a schema that is neither JSON Schema nor a library schema with a JSON Schema export.
 */
export function readToolSchema(
  field: string,
  toolName: string,
  value: unknown,
  io: 'input' | 'output',
): ReadToolSchema {
  if (isObjectRecord(value) && '~standard' in value) return readStandardSchema(field, toolName, value, io)
  if (typeof value === 'function')
    refuseSchema(
      field,
      toolName,
      value,
      'must be a JSON Schema object or a Standard JSON Schema (Zod 4.2+), not a function',
    )
  if (!isPlainObject(value))
    refuseSchema(field, toolName, value, 'must be a JSON Schema object or a Standard JSON Schema (Zod 4.2+)')
  const keys = Object.keys(value)
  if (keys.length > 0 && !keys.some(key => JSON_SCHEMA_KEYWORDS.has(key))) {
    const advice =
      'jsonSchema' in value
        ? "it looks like a wrapper of another library (the AI SDK's `jsonSchema()`/`zodSchema()`): pass its `.jsonSchema`, or use @code-runtime/ai-sdk"
        : 'a JSON Schema object needs `type`, `properties`, `$ref` or another JSON Schema keyword'
    refuseSchema(
      field,
      toolName,
      value,
      `is not a JSON Schema: none of its keys (${keys.slice(0, 5).join(', ')}) is a JSON Schema keyword; ${advice}`,
    )
  }
  return { jsonSchema: value }
}
