/**
 * JSON Schema → TypeScript type text, for one schema on its own. The SDK emitter uses the same
 * steps across many schemas at once; this is the entry point for everyone else.
 */
import { toPascalCase } from './identifier-text.js'
import { readSchema } from './schema-reader.js'
import { declareTypes } from './type-declarations.js'
import { printType, printTypeDeclaration } from './type-printer.js'
import { TYPESCRIPT_LIB_GLOBALS } from './typescript-globals.js'

export interface SchemaToTypeScriptOptions {
  /** The name of the schema's own type if it refers to itself (`$ref: "#"`); default `Root`. */
  readonly rootName?: string
}

export interface SchemaTypeScript {
  /** The schema's type, e.g. `{ path: string; head?: number }`. */
  readonly type: string
  /** `type X = ...` lines for the `$defs` (and other `$ref` targets) the type refers to, by name. */
  readonly declarations: string
}

/**
 * Converts a JSON Schema to compact TypeScript. Pure and total: odd or hostile schemas give
 * `unknown` with a comment saying why, never an exception.
 * @example schemaToTypeScript({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }).type
 * // '{ path: string }'
 */
export function schemaToTypeScript(schema: unknown, options: SchemaToTypeScriptOptions = {}): SchemaTypeScript {
  const rootName = toPascalCase(options.rootName ?? '') || 'Root'
  const read = readSchema(schema, { documentKey: 'schema', rootName })
  const declared = declareTypes(read.definitions, new Set(TYPESCRIPT_LIB_GLOBALS))
  const declarations = [...declared.declarations]
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0))
    .map(printTypeDeclaration)
  return {
    type: printType(declared.nameReferences(read.root)),
    declarations: declarations.length === 0 ? '' : `${declarations.join('\n')}\n`,
  }
}
