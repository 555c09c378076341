/**
 * `code-runtime types` prints the SDK programs are written against (the declarations, valid
 * TypeScript, ready for a `.d.ts`); `code-runtime list` prints the servers, the member and
 * upstream name of each tool, and the size of the SDK. Both exit with 2 when a server could not
 * be started: `types` prints nothing then, `list` prints what it could.
 */
import { EXIT_SETUP_FAILED, EXIT_SUCCESS, type CliCommand } from './cli-arguments.js'
import { presentTools } from '../run/run-code-description.js'
import { openSession, reportStartFailures } from './session.js'
import { styleFor } from './terminal-output.js'
import { buildToolCatalog } from '../upstream/tool-catalog.js'
import type { UpstreamConfig } from '../upstream/upstream-clients.js'

/** A rough rule for English and code: four characters a token. */
const CHARACTERS_PER_TOKEN = 4

function describeTarget(config: UpstreamConfig): string {
  switch (config.transport) {
    case 'stdio':
      return `stdio: ${[config.command, ...config.args].join(' ')}`
    case 'http':
      return `http: ${config.url}`
    case 'in-process':
      return 'built-in example tools'
  }
}

function formatCount(value: number): string {
  return value.toLocaleString('en-US')
}

/** Runs the `types` command; resolves the exit code. */
export async function typesCommand(command: Extract<CliCommand, { command: 'types' }>): Promise<number> {
  const session = await openSession(command.configPath)
  try {
    // Declarations missing a server's tools would mislead whoever writes a program against them.
    if (reportStartFailures(session.upstreams) > 0) return EXIT_SETUP_FAILED
    process.stdout.write(buildToolCatalog(session.upstreams).sdk.declarations)
    return EXIT_SUCCESS
  } finally {
    await session.close()
  }
}

/** Runs the `list` command; resolves the exit code. */
export async function listCommand(command: Extract<CliCommand, { command: 'list' }>): Promise<number> {
  const session = await openSession(command.configPath)
  try {
    const failed = reportStartFailures(session.upstreams)
    const catalog = buildToolCatalog(session.upstreams)
    const style = styleFor(process.stdout)
    const lines: string[] = []
    for (const [index, summary] of catalog.servers.entries()) {
      const config = (session.upstreams[index] as (typeof session.upstreams)[number]).config
      const status =
        summary.failure !== undefined
          ? style.red('failed to start')
          : `${summary.members.length} tool${summary.members.length === 1 ? '' : 's'}${summary.hiddenCount > 0 ? `, ${summary.hiddenCount} hidden by include/exclude` : ''}`
      lines.push(`${style.bold(summary.name)}  ${style.dim(describeTarget(config))}  ${status}`)
      const width = Math.max(0, ...summary.members.map(member => member.length))
      for (const member of summary.members) {
        const tool = catalog.byMember.get(member)
        const notes = [tool?.toolName ?? '', tool?.annotations?.readOnlyHint === true ? 'read-only' : ''].filter(
          note => note !== '',
        )
        lines.push(`  tools.${member.padEnd(width)}  ${style.dim(notes.join(', '))}`)
      }
      for (const pattern of summary.unmatchedIncludes)
        lines.push(`  ${style.red(`include pattern ${JSON.stringify(pattern)} matches no tool`)}`)
    }
    const size = catalog.sdk.text.length
    const presentation = presentTools(catalog, command.maxSdkChars)
    lines.push(
      '',
      `SDK: ${formatCount(size)} characters (about ${formatCount(Math.round(size / CHARACTERS_PER_TOKEN))} tokens) for ${catalog.tools.length} tools; ` +
        (presentation.mode === 'full'
          ? `run_code shows it in full (budget ${formatCount(command.maxSdkChars)} characters).`
          : `past the ${formatCount(command.maxSdkChars)}-character budget, so run_code shows an index (${formatCount(presentation.runCodeDescription.length)} characters) and get_tool_types gives the declarations.`),
    )
    process.stdout.write(`${lines.join('\n')}\n`)
    return failed > 0 ? EXIT_SETUP_FAILED : EXIT_SUCCESS
  } finally {
    await session.close()
  }
}
