/**
 * Every offered tool of every connected server, under its member name (see tool-naming.ts), with
 * the SDK emitted over them. Rebuilt whenever a server's tool list changes; a run keeps the
 * catalog it started with.
 */
import type { CallToolResult } from '@modelcontextprotocol/client'
import { emitSdk, type CodeModeTool, type CodeModeToolContext, type EmittedSdk } from '@code-runtime/code-mode'
import { assignToolMembers } from './tool-naming.js'
import type { UpstreamServer, UpstreamTool } from './upstream-clients.js'
import { describeCallFailure } from './upstream-results.js'

/**
 * One tool as programs call it. Its `name` is its member. `execute` resolves the server's answer
 * as it came (a `CallToolResult`): what the program gets from it, and the media beside it, is the
 * run's to decide (see program-run.ts).
 */
export interface CatalogTool extends CodeModeTool {
  /** The member of `tools` that calls it, e.g. `files_read_text_file`. */
  readonly member: string
  /** The upstream server that runs it. */
  readonly server: UpstreamServer
  /** Its name on that server, e.g. `read_text_file`. */
  readonly toolName: string
  execute(args: unknown, context: CodeModeToolContext): Promise<CallToolResult>
}

/** What one server contributes, for `code-runtime list` and the description of `run_code`. */
export interface ServerSummary {
  readonly name: string
  /** Why it could not be started; absent when it works. */
  readonly failure?: string
  /** Present when it failed because it needs `code-runtime auth login`. */
  readonly needsLogin?: true
  /** True while its first connection is still being made: it has no tools yet. */
  readonly isConnecting: boolean
  /** Members of its offered tools, sorted. */
  readonly members: readonly string[]
  /** How many of its tools `include`/`exclude` left out. */
  readonly hiddenCount: number
  /** `include` patterns that matched none of its tools: likely typos. */
  readonly unmatchedIncludes: readonly string[]
}

/** The tools of one moment, with their SDK. */
export interface ToolCatalog {
  /** Sorted by member. */
  readonly tools: readonly CatalogTool[]
  readonly byMember: ReadonlyMap<string, CatalogTool>
  readonly sdk: EmittedSdk
  /** In config order. */
  readonly servers: readonly ServerSummary[]
}

/** `*` matches any run of characters; everything else matches itself. */
function patternMatcher(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map(part => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
}

function offeredTools(server: UpstreamServer): {
  offered: UpstreamTool[]
  hiddenCount: number
  unmatchedIncludes: string[]
} {
  const seen = new Set<string>()
  const unique = server.tools.filter(tool => !seen.has(tool.name) && seen.add(tool.name))
  const include = server.config.include?.map(pattern => ({ pattern, matcher: patternMatcher(pattern) }))
  const exclude = server.config.exclude.map(patternMatcher)
  const offered = unique.filter(
    tool =>
      (include === undefined || include.some(({ matcher }) => matcher.test(tool.name))) &&
      !exclude.some(matcher => matcher.test(tool.name)),
  )
  const unmatchedIncludes =
    server.failure !== undefined || include === undefined
      ? []
      : include.filter(({ matcher }) => !unique.some(tool => matcher.test(tool.name))).map(({ pattern }) => pattern)
  return { offered, hiddenCount: unique.length - offered.length, unmatchedIncludes }
}

/**
 * What the server's config says about approving a tool's calls: `approve` (ask) wins over
 * `autoApprove` (never ask), so a broad `autoApprove` cannot silently lift an explicit ask;
 * neither leaves it to the tool's annotations.
 */
function approvalOverride(server: UpstreamServer, toolName: string): boolean | undefined {
  const matches = (patterns: readonly string[] | undefined): boolean =>
    patterns?.some(pattern => patternMatcher(pattern).test(toolName)) === true
  if (matches(server.config.approve)) return true
  if (matches(server.config.autoApprove)) return false
  return undefined
}

function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
}

/**
 * Builds the catalog of `servers` as they are now.
 * @example const catalog = buildToolCatalog(servers); catalog.sdk.text // for a prompt
 */
export function buildToolCatalog(servers: readonly UpstreamServer[]): ToolCatalog {
  const perServer = servers.map(server => ({ server, ...offeredTools(server) }))
  const entries = perServer.flatMap(({ server, offered }) => offered.map(tool => ({ server, tool })))
  const members = assignToolMembers(entries.map(({ server, tool }) => ({ server: server.name, tool: tool.name })))
  const tools: CatalogTool[] = entries
    .map(({ server, tool }, index) => {
      const member = members[index] as string
      const needsApproval = approvalOverride(server, tool.name)
      return Object.freeze({
        ...tool,
        ...(needsApproval === undefined ? {} : { needsApproval }),
        name: member,
        member,
        server,
        toolName: tool.name,
        async execute(args: unknown, { signal }: CodeModeToolContext): Promise<CallToolResult> {
          try {
            return await server.callTool(tool.name, args, signal)
          } catch (error) {
            throw new Error(describeCallFailure(server.name, server.config.timeoutMs, error))
          }
        },
      })
    })
    .sort((left, right) => compareCodeUnits(left.member, right.member))
  const summaries: ServerSummary[] = perServer.map(({ server, hiddenCount, unmatchedIncludes }) =>
    Object.freeze({
      name: server.name,
      ...(server.failure === undefined ? {} : { failure: server.failure.message }),
      ...(server.failure?.code === 'MCP_PROXY_LOGIN_REQUIRED' ? { needsLogin: true as const } : {}),
      isConnecting: server.isConnecting,
      members: Object.freeze(tools.filter(tool => tool.server === server).map(tool => tool.member)),
      hiddenCount,
      unmatchedIncludes: Object.freeze(unmatchedIncludes),
    }),
  )
  return Object.freeze({
    tools: Object.freeze(tools),
    byMember: new Map(tools.map(tool => [tool.member, tool])),
    sdk: emitSdk(tools),
    servers: Object.freeze(summaries),
  })
}

/**
 * The declarations of only the named members: the error class, the types they use and a
 * `tools` with just those methods. Unknown members are reported, not guessed.
 */
export function declarationsFor(
  catalog: ToolCatalog,
  members: readonly string[],
): { readonly declarations: string; readonly unknown: readonly string[] } {
  const wanted = new Set(members.map(member => member.replace(/^tools\./, '').replace(/\(\)$/, '')))
  const known = catalog.tools.filter(tool => wanted.has(tool.member))
  const unknown = [...wanted].filter(member => !catalog.byMember.has(member))
  return { declarations: known.length === 0 ? '' : emitSdk(known).declarations, unknown }
}
