/**
 * What the model reads about `run_code`: how to write a program, the names of the servers that
 * could not be started (never why), and the SDK. While the SDK fits a character budget it is in the description; past
 * it, the description carries a one-line-per-tool index and a second tool, `get_tool_types`,
 * returns the declarations of the tools the model names, so a large tool set does not crowd
 * the context.
 */
import type { ToolCatalog } from './tool-catalog.js'
import { TOOL_ERROR_CLASS, TOOLS_NAMESPACE } from './program-run.js'

/** Largest SDK, in characters, written into the description of `run_code`. */
export const DEFAULT_MAX_SDK_CHARS = 20_000

/** The tool that returns declarations when the SDK is past its budget. */
export const TOOL_TYPES_TOOL_NAME = 'get_tool_types'

/** Longest summary of one tool in the index, in characters. */
const INDEX_SUMMARY_CHARS = 110

/** How the tools are presented: the whole SDK, or an index plus `get_tool_types`. */
export interface ToolPresentation {
  readonly mode: 'full' | 'index'
  readonly runCodeDescription: string
  /** Present in `index` mode. */
  readonly toolTypesDescription?: string
}

function firstSentence(description: string | undefined): string {
  if (description === undefined || description.trim() === '') return ''
  const flat = description.replace(/\s+/g, ' ').trim()
  const sentence = /^.*?[.!?](?=\s|$)/.exec(flat)?.[0] ?? flat
  return sentence.length > INDEX_SUMMARY_CHARS ? `${sentence.slice(0, INDEX_SUMMARY_CHARS - 3)}...` : sentence
}

function preamble(catalog: ToolCatalog): string[] {
  const lines = [
    'Run a TypeScript program that calls the tools of several MCP servers, and get back what it logs and returns.',
    '`code` (required): the program. `description` (required): one line saying what it does.',
    `Tools are methods of \`${TOOLS_NAMESPACE}\` named <server>_<tool>. Images and other media that tools produce come back attached to the result.`,
  ]
  // Only the names: why a server failed is for the operator (stderr, `code-runtime list`). The
  // reason can quote the server's own stderr, where a server may well print a secret.
  const failed = catalog.servers.filter((server) => server.failure !== undefined)
  if (failed.length > 0) {
    lines.push(`Unavailable (failed to start, no tools): ${failed.map((server) => server.name).join(', ')}.`)
  }
  return lines
}

/** The SDK's instructions, reworded for declarations that are fetched rather than shown. */
function indexInstructions(): string[] {
  return [
    'Write the body of an async function in TypeScript; erasable syntax only (no enum, namespace or parameter properties).',
    `Call tools as \`await ${TOOLS_NAMESPACE}.<member>(args)\`; a failed call throws ${TOOL_ERROR_CLASS} with \`toolName\`. Independent read-only calls can overlap with Promise.all.`,
    'Return or console.log only what you need next.',
    `Before writing a program, call ${TOOL_TYPES_TOOL_NAME} with the members you will use: it returns their TypeScript declarations (arguments and results).`,
  ]
}

function toolIndex(catalog: ToolCatalog): string {
  const sections = catalog.servers.filter((server) => server.members.length > 0).map((server) => [
    `${server.name} (${server.members.length} tool${server.members.length === 1 ? '' : 's'}):`,
    ...server.members.map((member) => {
      const summary = firstSentence(catalog.byMember.get(member)?.description)
      return summary === '' ? `- ${member}` : `- ${member}: ${summary}`
    }),
  ].join('\n'))
  return sections.join('\n')
}

/**
 * The descriptions of the tools `code-runtime serve` offers for this catalog.
 * @param maxSdkChars the largest SDK (in characters) shown in full.
 */
export function presentTools(catalog: ToolCatalog, maxSdkChars: number = DEFAULT_MAX_SDK_CHARS): ToolPresentation {
  if (catalog.sdk.text.length <= maxSdkChars) {
    return { mode: 'full', runCodeDescription: [...preamble(catalog), '', catalog.sdk.text].join('\n') }
  }
  return {
    mode: 'index',
    runCodeDescription: [
      ...preamble(catalog),
      '',
      ...indexInstructions(),
      '',
      toolIndex(catalog),
    ].join('\n'),
    toolTypesDescription: [
      `TypeScript declarations of the \`${TOOLS_NAMESPACE}\` members that run_code programs call: arguments, results and documentation.`,
      `Pass the members you will use, e.g. { "tools": ["${catalog.tools[0]?.member ?? 'server_tool'}"] }.`,
    ].join('\n'),
  }
}

/** Input schema of `get_tool_types`. */
export const TOOL_TYPES_INPUT_SCHEMA = Object.freeze({
  type: 'object',
  properties: Object.freeze({
    tools: Object.freeze({
      type: 'array',
      items: Object.freeze({ type: 'string' }),
      minItems: 1,
      description: 'Members of `tools`, e.g. "files_read_text_file".',
    }),
  }),
  required: Object.freeze(['tools']),
  additionalProperties: false,
})
