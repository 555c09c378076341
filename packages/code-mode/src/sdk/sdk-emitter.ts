/**
 * Tool definitions → the model-facing SDK: one `declare const tools: { ... }` with a JSDoc'd
 * async method per tool, the named types it needs, the error class, and usage instructions.
 * Byte-stable: the same tools give the same text whatever their order, so prompts cache.
 */
import { toPascalCase } from './identifier-text.js'
import { shareRepeatedShapes, type TypeSite } from './repeated-shapes.js'
import { readSchema, type ReadSchema } from './schema-reader.js'
import { writeSdkInstructions } from './sdk-instructions.js'
import { resolveSdkEmitterOptions, TOOL_NAME_PROPERTY, type SdkEmitterOptions } from './sdk-options.js'
import {
  parseToolDescriptions,
  type CodeModeToolDescription,
  type ParsedToolDescription,
} from '../tools/tool-definition.js'
import { toolNeedsApproval } from '../run/tool-approval.js'
import { assignMemberNames } from './tool-names.js'
import { declareTypes, type NamedType } from './type-declarations.js'
import type { TypeDoc, TypeNode } from './type-node.js'
import { printMembersBlock, printType, printTypeDeclaration } from './type-printer.js'
import { TYPESCRIPT_LIB_GLOBALS } from './typescript-globals.js'

/** What {@link emitSdk} produces. */
export interface EmittedSdk {
  /** TypeScript declarations: the error class, named types and the namespace, ending in a newline. */
  readonly declarations: string
  /** How to write a program against the declarations, addressed to the model. */
  readonly instructions: string
  /** The instructions, then the declarations in a `ts` code fence (longer than any backtick run inside): ready for a prompt. */
  readonly text: string
  /** The namespace member of each tool, keyed by tool name, in member order. */
  readonly memberNames: ReadonlyMap<string, string>
}

/** One tool with its member and its schemas read. */
interface ReadTool {
  readonly tool: ParsedToolDescription
  readonly member: string
  readonly input: ReadSchema
  readonly output: ReadSchema | undefined
}

/**
 * `declarations` in a Markdown `ts` code block whose fence is longer than any run of backticks
 * inside, so a tool description that holds a fence of its own cannot close it and spill the
 * rest of the SDK into prose (CommonMark closes a fence only with one at least as long).
 * @example fenceTypeScript('declare const tools: {}\n') // '```ts\ndeclare const tools: {}\n```\n'
 */
export function fenceTypeScript(declarations: string): string {
  const longestRun = Math.max(0, ...(declarations.match(/`+/g) ?? []).map(run => run.length))
  const fence = '`'.repeat(Math.max(3, longestRun + 1))
  const body = declarations.endsWith('\n') ? declarations : `${declarations}\n`
  return `${fence}ts\n${body}${fence}\n`
}

/** Methods sit one level inside the namespace's braces. */
const METHOD_INDENT = '  '

function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
}

function readTools(tools: readonly ParsedToolDescription[], memberNames: ReadonlyMap<string, string>): ReadTool[] {
  return tools
    .map(tool => ({ tool, member: memberNames.get(tool.name) as string }))
    .sort((left, right) => compareCodeUnits(left.member, right.member))
    .map(({ tool, member }) => {
      const typeName = toPascalCase(member) || 'Tool'
      const input = readSchema(tool.inputSchema, { documentKey: `${member}:input`, rootName: `${typeName}Args` })
      const output =
        tool.outputSchema === undefined
          ? undefined
          : readSchema(tool.outputSchema, { documentKey: `${member}:output`, rootName: `${typeName}Result` })
      return { tool, member, input, output }
    })
}

/** How a method takes its argument: not at all, optionally, or always. */
type ArgumentUse = 'none' | 'optional' | 'required'

/**
 * A tool whose input declares no properties takes no argument (`get_env()`); one whose
 * properties are all optional may be called without one. The dispatcher passes `{}` for both.
 */
function argumentUse(type: TypeNode, declarations: readonly NamedType[]): ArgumentUse {
  let resolved = type
  // Follow a short chain of aliases (`type A = B`); a longer one is not worth the look.
  for (let step = 0; step < 4 && resolved.kind === 'reference'; step++) {
    const key = resolved.key
    const declaration = declarations.find(candidate => candidate.name === key)
    if (declaration === undefined) return 'required'
    resolved = declaration.body
  }
  if (resolved.kind !== 'object') return 'required'
  if (resolved.properties.length === 0 && resolved.index === undefined) return 'none'
  return resolved.properties.every(property => property.isOptional) ? 'optional' : 'required'
}

function printParameters(type: TypeNode, declarations: readonly NamedType[]): string {
  switch (argumentUse(type, declarations)) {
    case 'none':
      return ''
    case 'optional':
      return `args?: ${printType(type, METHOD_INDENT)}`
    case 'required':
      return `args: ${printType(type, METHOD_INDENT)}`
  }
}

/** The method's JSDoc: the full description, then where the member came from and what it promises. */
function methodDoc(tool: CodeModeToolDescription, member: string): TypeDoc {
  const tags: string[] = []
  // Quoted only when the name has spaces or quotes that would blur where it ends.
  if (tool.name !== member) tags.push(`@tool ${/^[^\s"']+$/.test(tool.name) ? tool.name : JSON.stringify(tool.name)}`)
  if (tool.annotations?.readOnlyHint === true) tags.push('@readOnly')
  else if (tool.annotations?.destructiveHint === true) tags.push('@destructive')
  if (toolNeedsApproval(tool)) tags.push('@needsApproval')
  return tool.description === undefined ? { tags } : { description: tool.description, tags }
}

/**
 * Emits the SDK for `tools`: declarations, instructions and the member name of each tool.
 * @throws {CodeModeError} `CODE_MODE_INVALID_TOOL` for a malformed tool definition,
 *   `CODE_MODE_DUPLICATE_TOOL_NAME` when two tools share a name, `CODE_MODE_INVALID_OPTIONS`
 *   for a namespace or class name that cannot be a global.
 * @example
 * const sdk = emitSdk([{ name: 'get-sum', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } }])
 * sdk.memberNames.get('get-sum') // 'get_sum'
 */
export function emitSdk(tools: readonly CodeModeToolDescription[], options?: SdkEmitterOptions): EmittedSdk {
  return emitParsedSdk(parseToolDescriptions(tools), options)
}

/** {@link emitSdk} of descriptions already read (their schemas JSON Schema), for `createCodeMode`. */
export function emitParsedSdk(descriptions: readonly ParsedToolDescription[], options?: SdkEmitterOptions): EmittedSdk {
  const resolvedOptions = resolveSdkEmitterOptions(options)
  const { namespace, errorClassName } = resolvedOptions
  const memberNames = assignMemberNames(descriptions.map(tool => tool.name))
  const read = readTools(descriptions, memberNames)

  const takenNames = new Set([...TYPESCRIPT_LIB_GLOBALS, namespace, errorClassName])
  const declared = declareTypes(
    read.flatMap(entry => [...entry.input.definitions, ...(entry.output?.definitions ?? [])]),
    takenNames,
  )
  const sites: TypeSite[] = read.flatMap(entry => {
    const typeName = toPascalCase(entry.member) || 'Tool'
    const input = { type: declared.nameReferences(entry.input.root), nameHint: `${typeName}Args` }
    return entry.output === undefined
      ? [input]
      : [input, { type: declared.nameReferences(entry.output.root), nameHint: `${typeName}Result` }]
  })
  const shared = shareRepeatedShapes(declared.declarations, sites, takenNames)

  const siteTypes = [...shared.sites]
  const methods = read.map(entry => {
    const argsType = siteTypes.shift() as TypeNode
    const resultType = entry.output === undefined ? undefined : (siteTypes.shift() as TypeNode)
    const resultText = resultType === undefined ? 'unknown' : printType(resultType, METHOD_INDENT)
    const text = `${entry.member}(${printParameters(argsType, shared.declarations)}): Promise<${resultText}>`
    return { doc: methodDoc(entry.tool, entry.member), text }
  })

  const errorClass = [
    `/** Thrown by a failed call; \`${TOOL_NAME_PROPERTY}\` is the member of \`${namespace}\` that was called. */`,
    `declare class ${errorClassName} extends Error { readonly ${TOOL_NAME_PROPERTY}: string }`,
  ].join('\n')
  const typeDeclarations = [...shared.declarations]
    .sort((left, right) => compareCodeUnits(left.name, right.name))
    .map(printTypeDeclaration)
  const sections = [
    errorClass,
    ...(typeDeclarations.length === 0 ? [] : [typeDeclarations.join('\n')]),
    `declare const ${namespace}: ${printMembersBlock(methods, '')}`,
  ]
  const declarations = `${sections.join('\n\n')}\n`
  const instructions = writeSdkInstructions(resolvedOptions, descriptions.some(toolNeedsApproval))
  return { declarations, instructions, text: `${instructions}\n\n${fenceTypeScript(declarations)}`, memberNames }
}
