/**
 * The command line, decoded once with Node's own `util.parseArgs` into one command record.
 * Options a command does not take are refused, like unknown config fields: a flag that silently
 * does nothing is worse than an error.
 */
import { parseArgs } from 'node:util'
import { McpProxyError } from './errors.js'
import { DEFAULT_MAX_SDK_CHARS } from './run-code-description.js'
import { BACKEND_NAMES, DEFAULT_BACKEND, type BackendName } from './runtime-backend.js'

/** Wall-clock limit of one run unless `--timeout-ms` says otherwise. */
export const DEFAULT_RUN_TIMEOUT_MS = 300_000

/** What the command line asks for. */
export type CliCommand =
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'serve'; readonly configPath?: string; readonly backend: BackendName; readonly backendChosen: boolean; readonly timeoutMs: number; readonly maxSdkChars: number }
  | { readonly command: 'run'; readonly programPath: string; readonly configPath?: string; readonly backend: BackendName; readonly backendChosen: boolean; readonly timeoutMs: number }
  | { readonly command: 'types'; readonly configPath?: string }
  | { readonly command: 'list'; readonly configPath?: string; readonly maxSdkChars: number }

export const USAGE = `Usage: code-runtime <command> [options]

Commands:
  serve [--config servers.json]     MCP server over stdio: one run_code tool over every configured server
  run <program.ts> [--config ...]   run a program file; prints its logs, then its value or its failure
  types [--config ...]              print the TypeScript SDK programs are written against
  list [--config ...]               print the servers, their tools and the size of the SDK

Options:
  -c, --config <file>    mcpServers JSON; without it, built-in example tools (tools.demo_*)
  --backend <name>       serve, run: process (default on Linux), worker-thread or container
  --timeout-ms <ms>      serve, run: wall-clock limit of one run (default ${DEFAULT_RUN_TIMEOUT_MS})
  --max-sdk-chars <n>    serve, list: largest SDK shown in run_code's description (default ${DEFAULT_MAX_SDK_CHARS})
  -h, --help             this text
  -v, --version          the version

Exit codes: 0 success, 1 the program failed, 2 bad usage, bad config or a server that cannot start.`

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  backend: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-sdk-chars': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

type OptionName = keyof typeof OPTIONS

const COMMAND_OPTIONS: Readonly<Record<'serve' | 'run' | 'types' | 'list', readonly OptionName[]>> = {
  serve: ['config', 'backend', 'timeout-ms', 'max-sdk-chars'],
  run: ['config', 'backend', 'timeout-ms'],
  types: ['config'],
  list: ['config', 'max-sdk-chars'],
}

function usageError(message: string): McpProxyError {
  return new McpProxyError('MCP_PROXY_USAGE', `${message}; see code-runtime --help.`)
}

function readPositiveInteger(option: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647) {
    throw usageError(`--${option} must be an integer from 1 to 2147483647, got ${JSON.stringify(text)}`)
  }
  return value
}

/** The largest timer delay Node accepts, and so the largest wall-clock budget. */
const MAX_TIMER_MS = 2_147_483_647

/**
 * A budget in milliseconds: a decimal number above 0, fractions allowed as in the backends'
 * config (the reference runtime takes `maxWallMs: 5000.5`). Exponents, signs and `Infinity` are
 * refused, so what the user typed is what runs.
 */
function readBudgetMs(option: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0) || value > MAX_TIMER_MS) {
    throw usageError(`--${option} must be a number of milliseconds above 0 and at most ${MAX_TIMER_MS}, got ${JSON.stringify(text)}`)
  }
  return value
}

function readBackend(text: string | undefined): BackendName {
  if (text === undefined) return DEFAULT_BACKEND
  if (!(BACKEND_NAMES as readonly string[]).includes(text)) {
    throw usageError(`--backend must be one of ${BACKEND_NAMES.join(', ')}, got ${JSON.stringify(text)}`)
  }
  return text as BackendName
}

/**
 * Decodes `argv` (without the node binary and script).
 * @throws {McpProxyError} `MCP_PROXY_USAGE`, with a one-line message.
 */
export function parseCliArguments(argv: readonly string[]): CliCommand {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    const option = /'(-[^']*)'/.exec((error as Error).message)?.[1]
    throw usageError(option === undefined ? (error as Error).message.split('.')[0] ?? 'bad arguments' : `unknown option ${option}`)
  }
  const { values, positionals } = parsed
  if (values.help === true) return { command: 'help' }
  if (values.version === true) return { command: 'version' }
  const [command, ...rest] = positionals
  if (command === undefined) throw usageError('a command is missing (serve, run, types or list)')
  if (command !== 'serve' && command !== 'run' && command !== 'types' && command !== 'list') {
    throw usageError(`unknown command ${JSON.stringify(command)}; the commands are serve, run, types and list`)
  }
  for (const option of Object.keys(values) as OptionName[]) {
    if (!COMMAND_OPTIONS[command].includes(option)) throw usageError(`--${option} is not an option of ${command}`)
  }
  const config = values.config === undefined ? {} : { configPath: values.config }
  const expected = command === 'run' ? 1 : 0
  if (rest.length > expected) throw usageError(`${command} takes ${expected === 0 ? 'no arguments' : 'one program file'}, got ${JSON.stringify(rest.at(-1))}`)
  switch (command) {
    case 'serve':
      return {
        command, ...config,
        backend: readBackend(values.backend),
        backendChosen: values.backend !== undefined,
        timeoutMs: readBudgetMs('timeout-ms', values['timeout-ms'], DEFAULT_RUN_TIMEOUT_MS),
        maxSdkChars: readPositiveInteger('max-sdk-chars', values['max-sdk-chars'], DEFAULT_MAX_SDK_CHARS),
      }
    case 'run': {
      const programPath = rest[0]
      if (programPath === undefined) throw usageError('run needs a program file, e.g. code-runtime run program.ts')
      return {
        command, programPath, ...config,
        backend: readBackend(values.backend),
        backendChosen: values.backend !== undefined,
        timeoutMs: readBudgetMs('timeout-ms', values['timeout-ms'], DEFAULT_RUN_TIMEOUT_MS),
      }
    }
    case 'types':
      return { command, ...config }
    case 'list':
      return { command, ...config, maxSdkChars: readPositiveInteger('max-sdk-chars', values['max-sdk-chars'], DEFAULT_MAX_SDK_CHARS) }
  }
}

/** Exit codes: success, a program that failed, and everything that stopped us before or around it. */
export const EXIT_SUCCESS = 0
export const EXIT_PROGRAM_FAILED = 1
export const EXIT_SETUP_FAILED = 2
