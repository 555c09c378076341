/**
 * A Mastra tool's schemas as Code Mode reads them: the JSON Schema Mastra itself would show the
 * model (its own `standardSchemaToJSONSchema`), and for the input Mastra's own check
 * (`validateToolInput`, with the repairs it makes to model-written arguments), so that a program's
 * call is refused exactly when Mastra would refuse it.
 */
import {
  CodeModeError,
  foreignToolSchema,
  type ForeignSchemaIssue,
  type JsonSchema,
  type StandardToolSchema,
} from '@code-runtime/code-mode'
import { standardSchemaToJSONSchema, type StandardSchemaWithJSON } from '@mastra/core/schema'
import { validateToolInput, type ValidationError } from '@mastra/core/tools'

/** Named in refusals of arguments: the check is Mastra's. */
const VENDOR = 'mastra'

// What Mastra gives the model for a tool without an input schema: an object of no known fields.
const NO_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: 'object', properties: Object.freeze({}) })

type FormattedErrors = ValidationError['validationErrors']

/** The problems of Mastra's formatted validation errors, each with its path, outermost first. */
function issuesOf(errors: FormattedErrors, path: readonly string[] = []): ForeignSchemaIssue[] {
  const issues: ForeignSchemaIssue[] = errors.errors.map(message =>
    path.length === 0 ? { message } : { message, path },
  )
  const fields = errors.fields as Readonly<Record<string, FormattedErrors | undefined>> | undefined
  for (const [key, nested] of Object.entries(fields ?? {})) {
    if (nested !== undefined) issues.push(...issuesOf(nested, [...path, key]))
  }
  return issues
}

/** `field` is the tool's place in the record, `tools.search`. */
function toJsonSchema(field: string, schema: StandardSchemaWithJSON, io: 'input' | 'output'): JsonSchema {
  try {
    return standardSchemaToJSONSchema(schema, { io }) as JsonSchema
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new CodeModeError(
      'CODE_MODE_INVALID_TOOL',
      `Invalid tool: ${field}.${io}Schema cannot be read as JSON Schema (${reason}); describe the tool's ${io} with types JSON can carry.`,
      { field: `${field}.${io}Schema` },
    )
  }
}

/**
 * The input schema of a Mastra tool for Code Mode: typed from Mastra's JSON Schema, checked by
 * Mastra's `validateToolInput`.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` when the schema has no JSON Schema form.
 */
export function mastraInputSchema(
  field: string,
  toolId: string,
  schema: StandardSchemaWithJSON | undefined,
): StandardToolSchema {
  if (schema === undefined) return foreignToolSchema({ vendor: VENDOR, jsonSchema: NO_INPUT_SCHEMA })
  return foreignToolSchema({
    vendor: VENDOR,
    jsonSchema: toJsonSchema(field, schema, 'input'),
    validate: value => {
      const checked = validateToolInput(schema, value, toolId)
      if (checked.error !== undefined) {
        const issues = issuesOf(checked.error.validationErrors)
        return { issues: issues.length > 0 ? issues : [{ message: 'does not match the input schema' }] }
      }
      // The tool gets the arguments as the program wrote them: Mastra's own execute checks and
      // transforms them again, and handing it transformed values would transform them twice.
      return { value }
    },
  })
}

/**
 * The output schema of a Mastra tool for Code Mode: the SDK's return type. Mastra's own execute
 * checks what the tool returns.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` when the schema has no JSON Schema form.
 */
export function mastraOutputSchema(field: string, schema: StandardSchemaWithJSON): StandardToolSchema {
  return foreignToolSchema({ vendor: VENDOR, jsonSchema: toJsonSchema(field, schema, 'output') })
}
