/**
 * An AI SDK tool's schema (any `FlexibleSchema`: Zod 3 or 4, a Standard Schema, `jsonSchema()`,
 * `zodSchema()`, a lazy schema) read through the SDK's own `asSchema`, so Code Mode sees the JSON
 * Schema the model would see and checks arguments with the validator the SDK would run.
 */
import { asSchema, type FlexibleSchema, type Schema } from 'ai'
import {
  CodeModeError,
  foreignToolSchema,
  type ForeignSchemaCheck,
  type ForeignSchemaIssue,
  type JsonSchema,
  type StandardToolSchema,
} from '@code-runtime/code-mode'
import { isObjectRecord } from '@code-runtime/core/internal'

/** Which schema of a tool is read: named in refusals. */
export type ToolSchemaRole = 'inputSchema' | 'outputSchema' | 'contextSchema'

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

function refuseSchema(toolName: string, role: ToolSchemaRole, problem: string): never {
  throw new CodeModeError(
    'CODE_MODE_INVALID_TOOL',
    `Invalid tool: ${JSON.stringify(toolName)} has an ${role} that ${problem}.`,
    { field: `tools.${toolName}.${role}` },
  )
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Reads any `FlexibleSchema` into the SDK's `Schema` (`{ jsonSchema, validate? }`), refusing what the SDK cannot read. */
export function readSdkSchema(toolName: string, role: ToolSchemaRole, schema: unknown): Schema<unknown> {
  try {
    return asSchema(schema as FlexibleSchema<unknown> | undefined)
  } catch (error) {
    // asSchema calls anything that is neither a Schema nor a Standard Schema as a lazy schema.
    refuseSchema(
      toolName,
      role,
      `the AI SDK cannot read (${messageOf(error)}): use a Zod schema, a Standard Schema, or wrap JSON Schema in jsonSchema()`,
    )
  }
}

function issuesOf(value: unknown): readonly ForeignSchemaIssue[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined
  const issues: ForeignSchemaIssue[] = []
  for (const issue of value as unknown[]) {
    if (!isObjectRecord(issue) || typeof issue.message !== 'string') return undefined
    const path = Array.isArray(issue.path)
      ? (issue.path as unknown[])
          .map(segment => (isObjectRecord(segment) && 'key' in segment ? segment.key : segment))
          .filter((key): key is PropertyKey => ['string', 'number', 'symbol'].includes(typeof key))
      : undefined
    issues.push(path === undefined ? { message: issue.message } : { message: issue.message, path })
  }
  return issues
}

/**
 * The problems of a failed SDK validation, path and message each: a Zod error (3 or 4) carries its
 * `issues`, the SDK's wrapper of a Standard Schema's failure carries them as its `cause`; any other
 * error is one problem worded by its message.
 */
export function validationIssues(error: unknown): readonly ForeignSchemaIssue[] {
  if (isObjectRecord(error) || error instanceof Error) {
    const record = error as unknown as Readonly<Record<string, unknown>>
    const found =
      issuesOf(record.issues) ??
      issuesOf(record.cause) ??
      (isObjectRecord(record.cause) ? issuesOf(record.cause.issues) : undefined)
    if (found !== undefined) return found
  }
  return [{ message: messageOf(error) }]
}

/** Runs the SDK's validator of `schema` and words its answer as Code Mode reads it. */
async function checkWith(schema: Schema<unknown>, value: unknown): Promise<ForeignSchemaCheck> {
  const validate = schema.validate
  if (validate === undefined) return { value }
  const result = await validate(value)
  return result.success ? { value: result.value } : { issues: validationIssues(result.error) }
}

/**
 * Reads a tool's input or output schema as Code Mode's tool schema: the SDK's JSON Schema of it,
 * and (for the input) the SDK's own validator, which also applies Zod's defaults and transforms.
 * A schema without a validator (`jsonSchema()` without `validate`) is checked by Code Mode against
 * its JSON Schema.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` naming the tool, for a schema the SDK cannot
 *   read, one whose JSON Schema export fails (a Zod `z.date()`), or one whose JSON Schema is only
 *   available as a promise.
 */
export function readToolSchema(
  toolName: string,
  role: 'inputSchema' | 'outputSchema',
  schema: unknown,
): StandardToolSchema {
  const read = readSdkSchema(toolName, role, schema)
  let jsonSchema: unknown
  try {
    jsonSchema = read.jsonSchema
  } catch (error) {
    refuseSchema(
      toolName,
      role,
      `cannot be written as JSON Schema (${messageOf(error)}): tool arguments arrive as JSON, so describe them with types JSON can carry`,
    )
  }
  if (isPromiseLike(jsonSchema)) {
    // The SDK text is the run_code tool's description, which the SDK reads synchronously.
    refuseSchema(
      toolName,
      role,
      'gives its JSON Schema as a promise: Code Mode writes the SDK text when codeModeTool() is called, so resolve it first, e.g. jsonSchema(await loadSchema())',
    )
  }
  if (!isObjectRecord(jsonSchema)) refuseSchema(toolName, role, 'gives no JSON Schema object')
  const source = { vendor: 'ai-sdk', jsonSchema: jsonSchema as JsonSchema }
  return role === 'inputSchema' && read.validate !== undefined
    ? foreignToolSchema({ ...source, validate: value => checkWith(read, value) })
    : foreignToolSchema(source)
}

/**
 * Checks a tool's context against its `contextSchema`, as the SDK does before it runs a tool.
 * @throws the SDK validator's error, so the call fails with the validator's words.
 */
export async function checkToolContext(
  toolName: string,
  schema: Schema<unknown> | undefined,
  context: unknown,
): Promise<unknown> {
  if (schema?.validate === undefined) return context
  const result = await schema.validate(context)
  if (result.success) return result.value
  const [first] = validationIssues(result.error)
  const where = first?.path === undefined || first.path.length === 0 ? '' : ` at ${first.path.map(String).join('.')}`
  throw new Error(
    `The context of ${toolName} does not match its contextSchema${where}: ${first?.message ?? 'invalid'}. Pass it in the run_code tool's context under ${JSON.stringify(toolName)}.`,
  )
}
