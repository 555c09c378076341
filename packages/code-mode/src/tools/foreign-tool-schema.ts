/**
 * A schema of a framework's own kind (the AI SDK's `jsonSchema()`, a LangChain tool's schema,
 * an OpenAI Agents tool's parameters), given as the JSON Schema the framework exports plus the
 * framework's own check, wrapped in the one interface Code Mode reads for library schemas
 * (Standard JSON Schema, and Standard Schema's `validate`). Framework adapters use it so that a
 * tool's arguments are checked exactly as the framework would check them.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchema, StandardToolSchema } from './tool-schema.js'

/** One problem a framework's check found in a call's arguments. */
export interface ForeignSchemaIssue {
  readonly message: string
  /** Where in the arguments: property names and array indexes, outermost first. */
  readonly path?: readonly PropertyKey[]
}

/** What a framework's check says of a call's arguments: the value the tool is given, or the problems. */
export type ForeignSchemaCheck = { readonly value: unknown } | { readonly issues: readonly ForeignSchemaIssue[] }

/** A framework's schema, as an adapter hands it to {@link foreignToolSchema}. */
export interface ForeignToolSchemaSource {
  /** Who checks: named in refusals (`ai-sdk`, `langchain`). */
  readonly vendor: string
  /** What the schema accepts, as JSON Schema (the SDK's types are written from it). */
  readonly jsonSchema: JsonSchema
  /** The framework's own check; without it, Code Mode checks the JSON Schema itself. */
  readonly validate?: (value: unknown) => ForeignSchemaCheck | PromiseLike<ForeignSchemaCheck>
}

/**
 * Wraps a framework's schema for a {@link CodeModeTool}'s `inputSchema` or `outputSchema`.
 * @example
 * const inputSchema = foreignToolSchema({ vendor: 'ai-sdk', jsonSchema: schema.jsonSchema, validate: (value) => check(value) })
 */
export function foreignToolSchema(source: ForeignToolSchemaSource): StandardToolSchema {
  const { vendor, jsonSchema, validate } = source
  const converter: StandardJSONSchemaV1.Converter = {
    // Code Mode copies what it reads; the framework's object is never changed.
    input: () => jsonSchema,
    output: () => jsonSchema,
  }
  if (validate === undefined) return { '~standard': { version: 1, vendor, jsonSchema: converter } }
  const check = async (value: unknown): Promise<StandardSchemaV1.Result<unknown>> => {
    const checked = await validate(value)
    return 'issues' in checked
      ? {
          issues: checked.issues.map(issue => ({
            message: issue.message,
            ...(issue.path === undefined ? {} : { path: issue.path }),
          })),
        }
      : { value: checked.value }
  }
  return { '~standard': { version: 1, vendor, jsonSchema: converter, validate: check } }
}
