/**
 * A LangChain tool's input schema (Zod 4, Zod 3 or JSON Schema) as a Code Mode tool schema: the
 * JSON Schema LangChain's own `toJsonSchema` writes, and the check LangChain's own tool path runs
 * (`interopSafeParseAsync` for Zod, its `@cfworker/json-schema` Validator for JSON Schema), so a
 * program's arguments are refused exactly where the tool's `invoke` would refuse them, but with
 * the first problem in words a model can act on (`args.city: ...`).
 */
import {
  CodeModeError,
  foreignToolSchema,
  type ForeignSchemaCheck,
  type ForeignSchemaIssue,
  type JsonSchema,
  type StandardToolSchema,
} from '@code-runtime/code-mode'
import { toJsonSchema, Validator } from '@langchain/core/utils/json_schema'
import { interopSafeParseAsync, isInteropZodSchema, type InteropZodType } from '@langchain/core/utils/types'
import { isPlainObject, unescapeJsonPointerSegment } from '@code-runtime/core/internal'

const VENDOR = 'langchain'

// Errors of @cfworker/json-schema that only say a subschema failed; the error that follows names
// the failing value itself, and is the one a model can act on.
const WRAPPER_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  '$ref',
  'allOf',
  'dependentSchemas',
  'false',
])

// A root JSON Schema names at least one of these; a map of properties or another library's
// wrapper does not, and would reach the model as a schema that says nothing.
const ROOT_KEYWORDS = ['type', 'properties', '$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'not', 'items']

function refuse(field: string, toolName: string, problem: string): never {
  throw new CodeModeError(
    'CODE_MODE_INVALID_TOOL',
    `Invalid tool: ${field} (tool ${JSON.stringify(toolName)}) ${problem}`,
    { field },
  )
}

/** `#/tags/1` → `['tags', 1]`: the instance location of a JSON Schema error as a path. */
function pathOfPointer(pointer: string): PropertyKey[] {
  return pointer
    .split('/')
    .slice(1)
    .map(segment => {
      let key = segment
      try {
        key = decodeURIComponent(segment)
      } catch {
        // Not percent-encoded after all: the segment is the key as it is.
      }
      key = unescapeJsonPointerSegment(key)
      return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key
    })
}

function zodCheck(schema: InteropZodType): (value: unknown) => Promise<ForeignSchemaCheck> {
  return async value => {
    const parsed = await interopSafeParseAsync(schema, value)
    if (parsed.success) return { value }
    return {
      issues: parsed.error.issues.map((issue): ForeignSchemaIssue => ({ message: issue.message, path: issue.path })),
    }
  }
}

function jsonSchemaCheck(schema: JsonSchema): (value: unknown) => ForeignSchemaCheck {
  // The validator and draft LangChain's own StructuredTool.call uses for JSON Schema tools.
  const validator = new Validator(schema as ConstructorParameters<typeof Validator>[0])
  return value => {
    let outcome: ReturnType<typeof validator.validate>
    try {
      outcome = validator.validate(value)
    } catch (error) {
      // A schema fault (an unresolved $ref) that LangChain's own invoke would hit as well: the call fails, said briefly.
      const reason = (error instanceof Error ? error.message : String(error)).split(/\.\s|\n/)[0] ?? ''
      return { issues: [{ message: `the tool's input schema cannot be checked (${reason.trim()})` }] }
    }
    const { valid, errors } = outcome
    if (valid) return { value }
    const telling = errors.find(error => !WRAPPER_KEYWORDS.has(error.keyword)) ?? errors[0]
    if (telling === undefined) return { issues: [{ message: 'does not match the input schema' }] }
    return { issues: [{ message: telling.error, path: pathOfPointer(telling.instanceLocation) }] }
  }
}

/**
 * Reads `tool.schema` of a LangChain tool. The value the check returns is the program's own
 * argument, unchanged: the tool's `invoke` parses it again and applies its transforms and defaults.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` for a schema LangChain cannot export as JSON
 *   Schema (`z.date()` in Zod 4) or one that is neither Zod nor a JSON Schema object.
 */
export function readInputSchema(field: string, toolName: string, schema: unknown): StandardToolSchema {
  if (isInteropZodSchema(schema)) {
    let jsonSchema: unknown
    try {
      // The input side: defaulted fields stay optional, as they are for the program.
      jsonSchema = toJsonSchema(schema, { io: 'input' })
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      refuse(
        field,
        toolName,
        `is a Zod schema LangChain cannot write as JSON Schema (${reason}). Tool arguments arrive as JSON: describe them with types JSON can carry (a string for a date).`,
      )
    }
    if (!isPlainObject(jsonSchema)) refuse(field, toolName, 'is a Zod schema whose JSON Schema export gave no object.')
    return foreignToolSchema({ vendor: VENDOR, jsonSchema, validate: zodCheck(schema) })
  }
  if (typeof schema === 'object' && schema !== null && '~standard' in schema) {
    refuse(
      field,
      toolName,
      'is a Standard Schema that is not Zod: LangChain tools check only Zod and JSON Schema. Pass its JSON Schema, or a Zod schema.',
    )
  }
  if (!isPlainObject(schema)) refuse(field, toolName, 'must be a Zod schema or a JSON Schema object.')
  const keys = Object.keys(schema)
  if (keys.length > 0 && !ROOT_KEYWORDS.some(keyword => keyword in schema)) {
    refuse(
      field,
      toolName,
      `is not a JSON Schema: none of its keys (${keys.slice(0, 5).join(', ')}) is a JSON Schema keyword such as \`type\` or \`properties\`.`,
    )
  }
  return foreignToolSchema({ vendor: VENDOR, jsonSchema: schema, validate: jsonSchemaCheck(schema) })
}
