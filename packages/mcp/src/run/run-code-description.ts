/**
 * What the model reads about `run_code`: how to write a program, the names of the servers that
 * could not be started (never why), and the SDK. While the SDK fits a character budget it is in the description; past
 * it, the description carries a one-line-per-tool index and a second tool, `get_tool_types`,
 * returns the declarations of the tools the model names, so a large tool set does not crowd
 * the context.
 */
import {
  RUN_CODE_SESSION_HANDLE_SENTENCE,
  RUN_CODE_SESSION_SENTENCE,
  type RunCodeSessionMode,
} from '@code-runtime/code-mode'
import { closestMembers } from './member-lookup.js'
import type { ToolCatalog } from '../upstream/tool-catalog.js'
import { TOOLS_NAMESPACE } from './program-run.js'

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

/** How `run_code` behaves beyond its tools. */
export interface PresentationOptions {
  /**
   * Runs keep their variables, in one session per client (`true`) or in the session each call
   * names by its handle (`'handle'`): the description says how, in one sentence.
   */
  readonly session?: RunCodeSessionMode
}

function preamble(catalog: ToolCatalog, options: PresentationOptions): string[] {
  const lines = [
    'Run a TypeScript program that calls the tools of several MCP servers, and get back what it logs and returns.',
    `Tools are methods of \`${TOOLS_NAMESPACE}\` named <server>_<tool>. Images and other media that tools produce come back attached to the result.`,
  ]
  if (options.session === true) lines.push(RUN_CODE_SESSION_SENTENCE)
  if (options.session === 'handle') lines.push(RUN_CODE_SESSION_HANDLE_SENTENCE)
  // Only the names: why a server failed is for the operator (stderr, `code-runtime list`). The
  // reason can quote the server's own stderr, where a server may well print a secret.
  const failed = catalog.servers.filter(server => server.failure !== undefined && server.needsLogin !== true)
  if (failed.length > 0) {
    lines.push(`Unavailable (failed to start, no tools): ${failed.map(server => server.name).join(', ')}.`)
  }
  // The person can fix these, and the model can tell them how; the command is all it says.
  const needLogin = catalog.servers.filter(server => server.needsLogin === true)
  if (needLogin.length > 0) {
    lines.push(
      `Unavailable until the user logs in (no tools): ${needLogin.map(server => `${server.name} (run \`code-runtime auth login ${server.name}\`)`).join(', ')}.`,
    )
  }
  const connecting = catalog.servers.filter(server => server.isConnecting)
  if (connecting.length > 0) {
    lines.push(
      `Still connecting (their tools are added when they are ready): ${connecting.map(server => server.name).join(', ')}.`,
    )
  }
  return lines
}

/** The SDK's rules for writing a program (stated there once), and where the declarations are. */
function indexInstructions(catalog: ToolCatalog): string[] {
  return [
    catalog.sdk.instructions,
    `Before writing a program, call ${TOOL_TYPES_TOOL_NAME} with the members you will use: it returns their TypeScript declarations (arguments and results).`,
  ]
}

function toolIndex(catalog: ToolCatalog): string {
  const sections = catalog.servers
    .filter(server => server.members.length > 0)
    .map(server =>
      [
        `${server.name} (${server.members.length} tool${server.members.length === 1 ? '' : 's'}):`,
        ...server.members.map(member => {
          const summary = firstSentence(catalog.byMember.get(member)?.description)
          return summary === '' ? `- ${member}` : `- ${member}: ${summary}`
        }),
      ].join('\n'),
    )
  return sections.join('\n')
}

/**
 * The descriptions of the tools `code-runtime serve` offers for this catalog.
 * @param maxSdkChars the largest SDK (in characters) shown in full.
 * @param options whether runs keep their variables.
 */
export function presentTools(
  catalog: ToolCatalog,
  maxSdkChars: number = DEFAULT_MAX_SDK_CHARS,
  options: PresentationOptions = {},
): ToolPresentation {
  if (catalog.sdk.text.length <= maxSdkChars) {
    return { mode: 'full', runCodeDescription: [...preamble(catalog, options), '', catalog.sdk.text].join('\n') }
  }
  return {
    mode: 'index',
    runCodeDescription: [...preamble(catalog, options), '', ...indexInstructions(catalog), '', toolIndex(catalog)].join(
      '\n',
    ),
    toolTypesDescription: [
      `TypeScript declarations of the \`${TOOLS_NAMESPACE}\` members that run_code programs call: arguments, results and documentation.`,
      `Pass the members you will use, e.g. { "tools": ["${catalog.tools[0]?.member ?? 'server_tool'}"] }.`,
    ].join('\n'),
  }
}

/** How many of the closest members are offered for one unknown name. */
const SUGGESTED_MEMBERS = 5

/** Unknown names past this many are named without suggestions, so the answer stays short. */
const MAX_NAMES_SUGGESTED_FOR = 10

/**
 * What `get_tool_types` answers when some names are not members: for each, the closest members,
 * best first, so the model can ask again with the right name.
 * @example unknownMembersMessage(catalog, ['read_text_file']) // 'Unknown member: read_text_file; the closest members: files_read_text_file, ...'
 */
export function unknownMembersMessage(catalog: ToolCatalog, unknown: readonly string[]): string {
  if (catalog.tools.length === 0)
    return `Unknown member${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}; no server offers any tool right now.`
  const closest = (name: string): string => closestMembers(catalog, name, SUGGESTED_MEMBERS).join(', ')
  const lines =
    unknown.length === 1
      ? [`Unknown member: ${unknown[0] as string}; the closest members: ${closest(unknown[0] as string)}.`]
      : [
          `Unknown members: ${unknown.join(', ')}.`,
          ...unknown.slice(0, MAX_NAMES_SUGGESTED_FOR).map(name => `Closest to ${name}: ${closest(name)}.`),
        ]
  lines.push('Members are named <server>_<tool>; the run_code description lists every one.')
  return lines.join('\n')
}

/**
 * Why a `tools/call` of a tool this server does not offer is refused. A model often calls a
 * member it read in the description as if it were an MCP tool: say how to call it instead.
 * @param offered the tools this server offers, e.g. `['run_code']`.
 */
export function unknownToolMessage(catalog: ToolCatalog, name: string, offered: readonly string[]): string {
  const member = name.startsWith(`${TOOLS_NAMESPACE}.`) ? name.slice(TOOLS_NAMESPACE.length + 1) : name
  if (catalog.byMember.has(member)) {
    return `"${name}" is not a tool of this server but a function of run_code programs: call run_code with a program that does \`await ${TOOLS_NAMESPACE}.${member}(args)\`.`
  }
  const refusal = `Unknown tool ${JSON.stringify(name.slice(0, 200))}; this server offers ${offered.join(' and ')}.`
  if (catalog.tools.length === 0) return refusal
  const closest = closestMembers(catalog, member, 3).map(candidate => `${TOOLS_NAMESPACE}.${candidate}`)
  return `${refusal} The tools of its servers are functions of run_code programs; the closest: ${closest.join(', ')}.`
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
