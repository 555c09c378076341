/**
 * Checks a tool call's arguments before the tool runs — with the tool's own validator when its
 * schema came from a validator library, else against its JSON Schema (Ajv) — and words a
 * violation so the model can fix its call: which field, what rule.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { unescapeJsonPointerSegment } from '@code-runtime/core/internal'
import type { ParsedToolDescription } from '../tools/tool-definition.js'
import type { JsonSchema, ToolArgumentValidator } from '../tools/tool-schema.js'

/** A compiled check of one tool's arguments; `undefined` when the schema could not be compiled. */
export type ArgumentCheck = (args: unknown) => string | undefined

// Schemas come from MCP servers and other people's tools: unknown keywords and formats must not
// make a tool unusable, so Ajv runs lenient and format names are documentation only. Properties
// are the object's own: otherwise `{}` would carry an optional `constructor` or `toString` (the
// prototype's function), and fail its type.
const ajv = new Ajv({
  strict: false,
  allErrors: false,
  validateFormats: false,
  allowUnionTypes: true,
  ownProperties: true,
})

function fieldOf(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1).map(unescapeJsonPointerSegment)
  let path = 'args'
  for (const segment of segments) {
    path += /^\d+$/.test(segment)
      ? `[${segment}]`
      : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)
        ? `.${segment}`
        : `[${JSON.stringify(segment)}]`
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty?: unknown }).missingProperty
    if (typeof missing === 'string') return `${path}.${missing}`
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty?: unknown }).additionalProperty
    if (typeof extra === 'string') return `${path}.${extra}`
  }
  return path
}

function describeError(error: ErrorObject): string {
  const field = fieldOf(error)
  switch (error.keyword) {
    case 'required':
      return `${field} is required`
    case 'additionalProperties':
      return `${field} is not a known argument`
    case 'enum': {
      const allowed = (error.params as { allowedValues?: unknown }).allowedValues
      return `${field} must be one of ${Array.isArray(allowed) ? allowed.map(value => JSON.stringify(value)).join(', ') : 'the listed values'}`
    }
    default:
      return `${field} ${error.message ?? 'is invalid'}`
  }
}

/** Compiles the check of one input schema. A schema Ajv cannot compile is not checked. */
export function compileArgumentCheck(schema: JsonSchema): ArgumentCheck | undefined {
  let validate: ValidateFunction
  try {
    validate = ajv.compile(schema)
  } catch {
    return undefined
  }
  return args => {
    if (validate(args)) return undefined
    const first = validate.errors?.[0]
    return first === undefined ? 'args do not match the input schema' : describeError(first)
  }
}

/**
 * How one tool's arguments are checked: its own validator (whose output, defaults and
 * transforms applied, is what the tool gets), else its compiled JSON Schema; `undefined` when
 * neither can check (a JSON Schema Ajv cannot compile).
 */
export function argumentValidatorOf(tool: ParsedToolDescription): ToolArgumentValidator | undefined {
  const own = tool.validateInput
  if (own !== undefined) {
    // A validator that throws is the tool's failure to accept the call, told like any refusal.
    return async args =>
      own(args).catch((error: unknown) => ({
        ok: false as const,
        error: `args were refused by the tool's validator (${error instanceof Error ? error.message : String(error)})`,
      }))
  }
  const check = compileArgumentCheck(tool.inputSchema)
  if (check === undefined) return undefined
  return async args => {
    const problem = check(args)
    return problem === undefined ? { ok: true, value: args } : { ok: false, error: problem }
  }
}
