/**
 * The command line, decoded once with Node's own `util.parseArgs` into one command record.
 * Options a command does not take are refused, like unknown config fields: a flag that silently
 * does nothing is worse than an error. Every refusal names the option as the user wrote it and
 * points to the help page of the command.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_TYPE_CHECK_MODE, type TypeCheckMode } from '@code-runtime/code-mode'
import {
  MAX_TIMER_MS,
  readIntegerField,
  readNumberField,
  readOneOfField,
  type ConfigPlace,
} from '@code-runtime/core/internal'
import {
  COMMAND_HELP,
  COMMAND_NAMES,
  DEFAULT_RUN_TIMEOUT_MS,
  GLOBAL_OPTIONS,
  type CommandName,
  type OptionName,
} from './cli-help.js'
import { APPROVAL_FALLBACKS, DEFAULT_APPROVAL_FALLBACK, type ApprovalFallback } from '../server/client-approval.js'
import { McpProxyError } from '../errors.js'
import { DEFAULT_MAX_SDK_CHARS } from '../run/run-code-description.js'
import { DEFAULT_CATALOG_WAIT_MS, MAX_CATALOG_WAIT_MS } from '../server/catalog-readiness.js'
import { BACKEND_NAMES, DEFAULT_BACKEND, type BackendName } from '../runtime-backend.js'
import { readHttpServeOptions, type HttpServeOptions } from './http-serve-options.js'

export { DEFAULT_RUN_COMPUTE_MS, DEFAULT_RUN_TIMEOUT_MS } from './cli-help.js'

/** The commands that do work (all but `help`). */
type WorkCommandName = Exclude<CommandName, 'help'>

/** The budgets of a run the command line sets; `computeMs` only when `--compute-ms` was given. */
interface RunBudgetOptions {
  readonly timeoutMs: number
  readonly computeMs?: number
}

/** The modes of `--type-check` that check; commands that run a program also take `off`. */
const CHECKING_MODES = ['calls', 'strict'] as const satisfies readonly TypeCheckMode[]
export type CheckingMode = (typeof CHECKING_MODES)[number]
const RUN_MODES = ['off', ...CHECKING_MODES] as const satisfies readonly TypeCheckMode[]

/** How `--nats` connects, besides the servers and the environment's credentials. */
export interface NatsCliConnection {
  readonly credsFile?: string
  readonly tls?: { readonly caFile?: string; readonly certFile?: string; readonly keyFile?: string }
  readonly inboxPrefix?: string
  /** `--insecure-no-auth`: connect without credentials (warned on every start). */
  readonly insecureNoAuth: boolean
}

/** Where a command's programs run: a local backend, or runners over NATS (`--nats`). */
export interface BackendChoice {
  readonly backend: BackendName
  readonly backendChosen: boolean
  /** Present with `--nats`: programs go to runners there, which choose their own backend. */
  readonly natsServers?: readonly string[]
  /** Present with `--nats`. */
  readonly natsConnection?: NatsCliConnection
}

/** What the command line asks for. */
export type CliCommand =
  /** `topic` absent: the overview. `isRequested` false: no arguments at all, a usage error. */
  | { readonly command: 'help'; readonly topic?: CommandName; readonly isRequested: boolean }
  | { readonly command: 'version' }
  | ({
      readonly command: 'serve'
      readonly configPath?: string
      readonly maxSdkChars: number
      /** Longest `tools/list` and `tools/call` wait for upstream servers still connecting. */
      readonly listWaitMs: number
      readonly typeCheck: TypeCheckMode
      readonly state: boolean
      readonly approvalFallback: ApprovalFallback
      /** Present with `--http`: serve over Streamable HTTP instead of stdio. */
      readonly http?: HttpServeOptions
      /** With `--http`, on SIGTERM: how long runs in flight may finish before they are aborted. */
      readonly graceMs: number
    } & RunBudgetOptions &
      BackendChoice)
  | ({
      readonly command: 'repl'
      readonly configPath?: string
      readonly typeCheck: TypeCheckMode
      readonly allowAll: boolean
    } & RunBudgetOptions &
      BackendChoice)
  | ({
      readonly command: 'run'
      readonly programPath: string
      readonly configPath?: string
      readonly typeCheck: TypeCheckMode
      readonly allowAll: boolean
    } & RunBudgetOptions &
      BackendChoice)
  | {
      readonly command: 'check'
      readonly programPath: string
      readonly configPath?: string
      readonly typeCheck: CheckingMode
    }
  | { readonly command: 'types'; readonly configPath?: string }
  | { readonly command: 'list'; readonly configPath?: string; readonly maxSdkChars: number }
  | {
      readonly command: 'auth'
      readonly action: AuthAction
      /** The server's name in `mcpServers`; required by login and logout. */
      readonly server?: string
      /** login's other servers (`auth login a b`), logged in to after `server`, through the same listener. */
      readonly moreServers?: readonly string[]
      readonly configPath?: string
      readonly isBrowserless: boolean
      readonly callbackPort?: number
    }
  | {
      readonly command: 'runner'
      readonly natsServers: readonly string[]
      readonly natsConnection: NatsCliConnection
      readonly backend: BackendName
      readonly backendChosen: boolean
      readonly concurrency: number
      readonly graceMs: number
      /** Given only with the option: the runner's own default (half the concurrency; 4) applies otherwise. */
      readonly maxRunsPerCaller?: number
      readonly maxBackends?: number
    }

/** What `code-runtime auth` does. */
export const AUTH_ACTIONS = ['login', 'status', 'logout'] as const
export type AuthAction = (typeof AUTH_ACTIONS)[number]

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  backend: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'compute-ms': { type: 'string' },
  'max-sdk-chars': { type: 'string' },
  'list-wait-ms': { type: 'string' },
  'type-check': { type: 'string' },
  'no-state': { type: 'boolean' },
  'approval-fallback': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  nats: { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-ca': { type: 'string' },
  'nats-cert': { type: 'string' },
  'nats-key': { type: 'string' },
  'nats-inbox-prefix': { type: 'string' },
  'insecure-no-auth': { type: 'boolean' },
  concurrency: { type: 'string' },
  'max-runs-per-caller': { type: 'string' },
  'max-backends': { type: 'string' },
  'grace-ms': { type: 'string' },
  http: { type: 'string' },
  'auth-issuer': { type: 'string' },
  'auth-audience': { type: 'string' },
  'auth-jwks': { type: 'string' },
  'auth-scope': { type: 'string' },
  'auth-keys': { type: 'string' },
  'audit-values': { type: 'boolean' },
  'state-key': { type: 'string' },
  'max-runs': { type: 'string' },
  'max-runs-per-principal': { type: 'string' },
  'no-browser': { type: 'boolean' },
  'callback-port': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies Record<OptionName, { type: 'string' | 'boolean'; short?: string }>

/** Where a refusal sends the user: the page of the command when there is one. */
function usageError(message: string, command?: CommandName): McpProxyError {
  const help = command === undefined ? 'code-runtime --help' : `code-runtime ${command} --help`
  return new McpProxyError('MCP_PROXY_USAGE', `${message}; see ${help}.`)
}

function isCommandName(text: string): text is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(text)
}

/** The long name (`--config`) of an option `parseArgs` complained about, as written in its message. */
function longOptionIn(message: string): string | undefined {
  return /--[a-z-]+/.exec(message)?.[0]
}

/**
 * `parseArgs`'s errors in our words. A string option at the end of the line, or followed by
 * another option, has no value: say so, naming the option, whichever form (`-c`) was used.
 */
function describeParseError(error: unknown, command: CommandName | undefined): McpProxyError {
  const { code, message } = error as { code?: unknown; message: string }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return usageError(`missing value for ${longOptionIn(message) ?? 'an option'}`, command)
  }
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']*)'/.exec(message)?.[1] ?? 'given'
    return usageError(`unknown option ${option}`, command)
  }
  return usageError(message.split('.')[0] ?? 'bad arguments', command)
}

/**
 * Where an option's value is read with core's config readers: a refusal is a usage error that
 * shows the text as typed (`got "1e3"`), not the number it parsed to.
 */
function optionPlace(command: CommandName, text: string | undefined): ConfigPlace {
  return {
    refuse: ({ field, rule }) => usageError(`${field ?? 'an option'} ${rule}, got ${JSON.stringify(text)}`, command),
  }
}

/** The option's text as a number when it is written as `syntax` allows, else the text, which the reader refuses. */
function numberOrText(text: string, syntax: RegExp): number | string {
  return syntax.test(text) ? Number(text) : text
}

function readPositiveInteger(option: OptionName, text: string, command: CommandName, max = MAX_TIMER_MS): number {
  const field = `--${option}`
  return readIntegerField(optionPlace(command, text), { [field]: numberOrText(text, /^\d+$/) }, field, { min: 1, max })
}

/**
 * A budget in milliseconds: a decimal number above 0, fractions allowed as in the backends'
 * config (the reference runtime takes `maxWallMs: 5000.5`). Exponents, signs and `Infinity` are
 * refused, so what the user typed is what runs.
 */
function readBudgetMs(option: OptionName, text: string, command: CommandName): number {
  const field = `--${option}`
  return readNumberField(optionPlace(command, text), { [field]: numberOrText(text, /^\d+(\.\d+)?$/) }, field, {
    min: 0,
    minIsExclusive: true,
    max: MAX_TIMER_MS,
    unit: 'milliseconds',
  })
}

function readBackend(text: string | undefined, command: CommandName): BackendName {
  return readOneOfField(optionPlace(command, text), { '--backend': text }, '--backend', BACKEND_NAMES, DEFAULT_BACKEND)
}

/** `--type-check`, one of `modes` (`check` refuses `off`: checking nothing is not a check). */
function readTypeCheck<Mode extends TypeCheckMode>(
  text: string | undefined,
  command: CommandName,
  modes: readonly Mode[],
  fallback: Mode,
): Mode {
  return readOneOfField(optionPlace(command, text), { '--type-check': text }, '--type-check', modes, fallback)
}

type ParsedValues = Partial<Record<OptionName, string | boolean>>

function stringOption(values: ParsedValues, option: OptionName): string | undefined {
  const value = values[option]
  return typeof value === 'string' ? value : undefined
}

/** `--nats-creds`, the TLS files, `--nats-inbox-prefix` and `--insecure-no-auth`: only with `--nats`. */
function readNatsConnection(values: ParsedValues, hasNats: boolean, command: CommandName): NatsCliConnection {
  // With `serve --http` and no --nats, --insecure-no-auth is the HTTP listener's (see http-serve-options.ts).
  const insecureIsHttp = !hasNats && command === 'serve' && values.http !== undefined
  const given = (
    ['nats-creds', 'nats-ca', 'nats-cert', 'nats-key', 'nats-inbox-prefix', 'insecure-no-auth'] as const
  ).filter(option => values[option] !== undefined && !(option === 'insecure-no-auth' && insecureIsHttp))
  if (!hasNats && given.length > 0) throw usageError(`--${given[0] ?? ''} needs --nats`, command)
  const certFile = stringOption(values, 'nats-cert')
  const keyFile = stringOption(values, 'nats-key')
  if ((certFile === undefined) !== (keyFile === undefined))
    throw usageError('--nats-cert and --nats-key go together', command)
  const caFile = stringOption(values, 'nats-ca')
  const tls = {
    ...(caFile === undefined ? {} : { caFile }),
    ...(certFile === undefined ? {} : { certFile }),
    ...(keyFile === undefined ? {} : { keyFile }),
  }
  const credsFile = stringOption(values, 'nats-creds')
  const inboxPrefix = stringOption(values, 'nats-inbox-prefix')
  return {
    ...(credsFile === undefined ? {} : { credsFile }),
    ...(Object.keys(tls).length === 0 ? {} : { tls }),
    ...(inboxPrefix === undefined ? {} : { inboxPrefix }),
    insecureNoAuth: hasNats && values['insecure-no-auth'] === true,
  }
}

function readBudgets(values: ParsedValues, command: CommandName): RunBudgetOptions {
  const timeout = stringOption(values, 'timeout-ms')
  const compute = stringOption(values, 'compute-ms')
  return {
    timeoutMs: timeout === undefined ? DEFAULT_RUN_TIMEOUT_MS : readBudgetMs('timeout-ms', timeout, command),
    ...(compute === undefined ? {} : { computeMs: readBudgetMs('compute-ms', compute, command) }),
  }
}

function readMaxSdkChars(values: ParsedValues, command: CommandName): number {
  const text = stringOption(values, 'max-sdk-chars')
  return text === undefined ? DEFAULT_MAX_SDK_CHARS : readPositiveInteger('max-sdk-chars', text, command)
}

/** `--list-wait-ms`: a whole number of milliseconds, 0 (list what is ready at once) included. */
function readListWaitMs(values: ParsedValues, command: CommandName): number {
  const text = stringOption(values, 'list-wait-ms')
  if (text === undefined) return DEFAULT_CATALOG_WAIT_MS
  const field = '--list-wait-ms'
  return readIntegerField(optionPlace(command, text), { [field]: numberOrText(text, /^\d+$/) }, field, {
    min: 0,
    max: MAX_CATALOG_WAIT_MS,
  })
}

/** `--http` and its options, and `--grace-ms` (only with `--http`: over stdio the client ends the server). */
function readServeHttp(
  values: ParsedValues,
  hasNats: boolean,
  command: CommandName,
): { http?: HttpServeOptions; graceMs: number } {
  // --insecure-no-auth with --nats is the NATS connection's; the HTTP reader must not see it then.
  const { 'insecure-no-auth': insecure, ...others } = values
  const http = readHttpServeOptions(
    hasNats || insecure === undefined ? others : { ...others, 'insecure-no-auth': insecure },
  )
  const grace = stringOption(values, 'grace-ms')
  if (grace !== undefined && http === undefined) throw usageError('--grace-ms needs --http', command)
  const graceMs = grace === undefined ? DEFAULT_HTTP_GRACE_MS : readPositiveInteger('grace-ms', grace, command)
  return { ...(http === undefined ? {} : { http }), graceMs }
}

/** How long runs in flight may finish after SIGTERM, by default, before `serve --http` aborts them. */
export const DEFAULT_HTTP_GRACE_MS = 10_000

/** `code-runtime help [command]`. */
function decodeHelp(rest: readonly string[]): CliCommand {
  const [topic, extra] = rest
  if (extra !== undefined) throw usageError(`help takes at most one command, got ${JSON.stringify(extra)}`)
  if (topic === undefined) return { command: 'help', isRequested: true }
  if (!isCommandName(topic))
    throw usageError(`unknown command ${JSON.stringify(topic)}; the commands are ${COMMAND_NAMES.join(', ')}`)
  return { command: 'help', topic, isRequested: true }
}

function decodeCommand(command: WorkCommandName, values: ParsedValues, rest: readonly string[]): CliCommand {
  for (const option of Object.keys(values) as OptionName[]) {
    if (!COMMAND_HELP[command].options.includes(option) && !(GLOBAL_OPTIONS as readonly string[]).includes(option)) {
      throw usageError(`--${option} is not an option of ${command}`, command)
    }
  }
  const configPath = stringOption(values, 'config')
  const config = configPath === undefined ? {} : { configPath }
  if (command === 'auth') return decodeAuth(values, rest, config)
  const takesProgram = command === 'run' || command === 'check'
  const expected = takesProgram ? 1 : 0
  if (rest.length > expected)
    throw usageError(
      `${command} takes ${expected === 0 ? 'no arguments' : 'one program file'}, got ${JSON.stringify(rest.at(-1))}`,
      command,
    )
  const programPath = rest[0]
  if (takesProgram && programPath === undefined)
    throw usageError(`${command} needs a program file, e.g. code-runtime ${command} program.ts`, command)
  const backendText = stringOption(values, 'backend')
  const typeCheckText = stringOption(values, 'type-check')
  const natsText = stringOption(values, 'nats')
  const natsServers = natsText
    ?.split(',')
    .map(server => server.trim())
    .filter(server => server !== '')
  if (natsServers !== undefined && natsServers.length === 0)
    throw usageError('--nats needs a URL, e.g. --nats nats://127.0.0.1:4222', command)
  if (natsServers !== undefined && backendText !== undefined && command !== 'runner') {
    throw usageError(
      '--backend and --nats together: with --nats the runners choose the backend (code-runtime runner --backend ...)',
      command,
    )
  }
  const natsConnection = readNatsConnection(values, natsServers !== undefined, command)
  const choice = (): BackendChoice => ({
    backend: readBackend(backendText, command),
    backendChosen: backendText !== undefined,
    ...(natsServers === undefined ? {} : { natsServers, natsConnection }),
  })
  switch (command) {
    case 'serve':
      return {
        command,
        ...config,
        ...choice(),
        ...readBudgets(values, command),
        maxSdkChars: readMaxSdkChars(values, command),
        listWaitMs: readListWaitMs(values, command),
        typeCheck: readTypeCheck(typeCheckText, command, RUN_MODES, DEFAULT_TYPE_CHECK_MODE),
        state: values['no-state'] !== true,
        approvalFallback: readOneOfField(
          optionPlace(command, stringOption(values, 'approval-fallback')),
          { '--approval-fallback': stringOption(values, 'approval-fallback') },
          '--approval-fallback',
          APPROVAL_FALLBACKS,
          DEFAULT_APPROVAL_FALLBACK,
        ),
        ...readServeHttp(values, natsServers !== undefined, command),
      }
    case 'repl':
      return {
        command,
        ...config,
        ...choice(),
        ...readBudgets(values, command),
        typeCheck: readTypeCheck(typeCheckText, command, RUN_MODES, DEFAULT_TYPE_CHECK_MODE),
        allowAll: values.yes === true,
      }
    case 'run':
      return {
        command,
        programPath: programPath as string,
        ...config,
        ...choice(),
        ...readBudgets(values, command),
        typeCheck: readTypeCheck(typeCheckText, command, RUN_MODES, DEFAULT_TYPE_CHECK_MODE),
        allowAll: values.yes === true,
      }
    case 'check':
      return {
        command,
        programPath: programPath as string,
        ...config,
        typeCheck: readTypeCheck(typeCheckText, command, CHECKING_MODES, 'calls'),
      }
    case 'types':
      return { command, ...config }
    case 'list':
      return { command, ...config, maxSdkChars: readMaxSdkChars(values, command) }
    case 'runner': {
      if (natsServers === undefined)
        throw usageError('runner needs --nats <url>, e.g. --nats nats://127.0.0.1:4222', command)
      const concurrency = stringOption(values, 'concurrency')
      const grace = stringOption(values, 'grace-ms')
      const perCaller = stringOption(values, 'max-runs-per-caller')
      const backends = stringOption(values, 'max-backends')
      return {
        command,
        natsServers,
        natsConnection,
        backend: readBackend(backendText, command),
        backendChosen: backendText !== undefined,
        concurrency: concurrency === undefined ? 4 : readPositiveInteger('concurrency', concurrency, command),
        graceMs: grace === undefined ? 10_000 : readPositiveInteger('grace-ms', grace, command),
        ...(perCaller === undefined
          ? {}
          : { maxRunsPerCaller: readPositiveInteger('max-runs-per-caller', perCaller, command, 4096) }),
        ...(backends === undefined ? {} : { maxBackends: readPositiveInteger('max-backends', backends, command, 256) }),
      }
    }
  }
}

/** `auth login <server>...`, `auth status [server]`, `auth logout <server>`. */
function decodeAuth(values: ParsedValues, rest: readonly string[], config: { configPath?: string }): CliCommand {
  const [action, server, ...others] = rest
  if (action === undefined || !(AUTH_ACTIONS as readonly string[]).includes(action))
    throw usageError(
      `auth needs one of ${AUTH_ACTIONS.join(', ')}${action === undefined ? '' : `, got ${JSON.stringify(action)}`}`,
      'auth',
    )
  const authAction = action as AuthAction
  const extra = others[0]
  if (extra !== undefined && authAction !== 'login')
    throw usageError(`auth ${action} takes one server, got ${JSON.stringify(extra)}`, 'auth')
  if (server === undefined && authAction !== 'status')
    throw usageError(
      `auth ${action} needs the server's name in mcpServers, e.g. code-runtime auth ${action} files`,
      'auth',
    )
  const portText = stringOption(values, 'callback-port')
  if (authAction !== 'login') {
    const loginOnly =
      values['no-browser'] !== undefined ? '--no-browser' : portText !== undefined ? '--callback-port' : undefined
    if (loginOnly !== undefined) throw usageError(`${loginOnly} is an option of auth login only`, 'auth')
  }
  return {
    command: 'auth',
    action: authAction,
    ...(server === undefined ? {} : { server }),
    ...(others.length === 0 ? {} : { moreServers: others }),
    ...config,
    isBrowserless: values['no-browser'] === true,
    ...(portText === undefined ? {} : { callbackPort: readPositiveInteger('callback-port', portText, 'auth', 65_535) }),
  }
}

/**
 * Decodes `argv` (without the node binary and script). No arguments at all decode as the
 * overview, not requested (the CLI prints it as a usage error); `<command> --help` as the
 * command's page.
 * @throws {McpProxyError} `MCP_PROXY_USAGE`, with a one-line message.
 */
export function parseCliArguments(argv: readonly string[]): CliCommand {
  if (argv.length === 0) return { command: 'help', isRequested: false }
  // The first word, when it is a command, names the help page refusals point to.
  const named = argv[0] !== undefined && isCommandName(argv[0]) ? argv[0] : undefined
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw describeParseError(error, named)
  }
  const values = parsed.values as ParsedValues
  const [command, ...rest] = parsed.positionals
  if (values.help === true) {
    if (command === undefined) return { command: 'help', isRequested: true }
    if (command === 'help') return decodeHelp(rest)
    return decodeHelp([command])
  }
  if (values.version === true) return { command: 'version' }
  if (command === undefined) throw usageError(`a command is missing (${COMMAND_NAMES.join(', ')})`)
  if (!isCommandName(command)) {
    throw usageError(`unknown command ${JSON.stringify(command)}; the commands are ${COMMAND_NAMES.join(', ')}`)
  }
  if (command === 'help') {
    const option = Object.keys(values)[0]
    if (option !== undefined) throw usageError(`--${option} is not an option of help`, command)
    return decodeHelp(rest)
  }
  return decodeCommand(command, values, rest)
}

/** Exit codes: success, a program that failed (or that its type check refused), everything that stopped us before or around it, Ctrl-C. */
export const EXIT_SUCCESS = 0
export const EXIT_PROGRAM_FAILED = 1
export const EXIT_SETUP_FAILED = 2
/** 128 + SIGINT's number, what shells report for a command stopped by Ctrl-C. */
export const EXIT_INTERRUPTED = 130
