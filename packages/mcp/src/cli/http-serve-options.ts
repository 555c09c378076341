/**
 * The options of `serve --http`: where to listen, who may call, what the audit trail holds and how
 * many runs a shared server takes. The rules a person could get wrong are refused here, before
 * anything starts: auth options without `--http`, half of an OAuth setup, two kinds of auth at
 * once, and an address off loopback without authentication (unless `--insecure-no-auth`).
 */
import { isIP } from 'node:net'
import { McpProxyError } from '../errors.js'

/** Where `serve --http` listens. */
export interface ListenAddress {
  /** As given, or `127.0.0.1` when only a port is. An IPv6 address without brackets. */
  readonly host: string
  /** 0 picks a free port (printed once listening). */
  readonly port: number
  /** True for 127.0.0.0/8, `::1` and `localhost`: reachable from this machine only. */
  readonly isLoopback: boolean
}

/** Who may call `serve --http`. */
export type HttpAuthChoice =
  | { readonly kind: 'none' }
  | { readonly kind: 'keys'; readonly keysFile: string }
  | {
      readonly kind: 'oauth'
      readonly issuer: string
      readonly audience: string
      readonly jwks?: string
      readonly scope?: string
    }

/** Everything `serve --http` adds to `serve`. */
export interface HttpServeOptions {
  readonly listen: ListenAddress
  readonly auth: HttpAuthChoice
  /** `--insecure-no-auth`: listen off loopback without authentication (warned on every start). */
  readonly insecureNoAuth: boolean
  /** `--audit-values`: the audit lines carry each call's arguments and result. */
  readonly auditValues: boolean
  /** `--state-key`: the file of the key that signs paused runs' `requestState`. */
  readonly stateKeyFile?: string
  /** `--max-runs`: runs in flight at once, all principals together. */
  readonly maxRuns?: number
  /** `--max-runs-per-principal`: runs in flight at once of one principal. */
  readonly maxRunsPerPrincipal?: number
}

/** The options this module reads, by their long names. */
export const HTTP_SERVE_OPTION_NAMES = [
  'http',
  'auth-issuer',
  'auth-audience',
  'auth-jwks',
  'auth-scope',
  'auth-keys',
  'audit-values',
  'state-key',
  'max-runs',
  'max-runs-per-principal',
] as const

type Values = Partial<Record<(typeof HTTP_SERVE_OPTION_NAMES)[number] | 'insecure-no-auth', string | boolean>>

function usage(message: string): McpProxyError {
  return new McpProxyError('MCP_PROXY_USAGE', `${message}; see code-runtime serve --help.`)
}

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return isIP(host) === 6 && /^(0*:)*:?0*1$/.test(host)
}

/** Reads `[HOST:]PORT`: `8080`, `0`, `127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`, `mcp.internal:8080`. */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(text.trim())
  const port = match === null ? Number.NaN : Number(match[2])
  if (match === null || !Number.isInteger(port) || port > 65_535) {
    throw usage(
      `--http takes [HOST:]PORT (a port from 0 to 65535, e.g. 8080 or 0.0.0.0:8080), got ${JSON.stringify(text)}`,
    )
  }
  const written = match[1]
  const host = written === undefined ? '127.0.0.1' : written.replace(/^\[|\]$/g, '')
  if (written?.startsWith('[') === true && isIP(host) !== 6) throw usage(`--http: ${written} is not an IPv6 address`)
  return { host, port, isLoopback: isLoopbackHost(host) }
}

function readCount(values: Values, option: 'max-runs' | 'max-runs-per-principal'): number | undefined {
  const text = values[option]
  if (typeof text !== 'string') return undefined
  const count = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(count) || count < 1 || count > 100_000) {
    throw usage(`--${option} must be a whole number from 1 to 100000, got ${JSON.stringify(text)}`)
  }
  return count
}

/**
 * The HTTP options of `serve`, or undefined without `--http` (then none of them may be given).
 * @throws {McpProxyError} `MCP_PROXY_USAGE` for an option that breaks the rules above.
 */
export function readHttpServeOptions(values: Values): HttpServeOptions | undefined {
  const string = (option: keyof Values): string | undefined => {
    const value = values[option]
    return typeof value === 'string' ? value : undefined
  }
  const httpText = string('http')
  if (httpText === undefined) {
    const given = HTTP_SERVE_OPTION_NAMES.find(option => values[option] !== undefined)
    if (given !== undefined) throw usage(`--${given} needs --http`)
    if (values['insecure-no-auth'] !== undefined)
      throw usage('--insecure-no-auth needs --http (or, for runs over NATS, --nats)')
    return undefined
  }
  const listen = parseListenAddress(httpText)
  const issuer = string('auth-issuer')
  const audience = string('auth-audience')
  const keysFile = string('auth-keys')
  if (issuer !== undefined && keysFile !== undefined)
    throw usage('--auth-issuer and --auth-keys are two ways to authenticate; choose one')
  if ((issuer === undefined) !== (audience === undefined)) {
    throw usage(
      "--auth-issuer and --auth-audience go together (the issuer of the tokens, and this server's resource URI)",
    )
  }
  for (const option of ['auth-jwks', 'auth-scope'] as const) {
    if (values[option] !== undefined && issuer === undefined) throw usage(`--${option} needs --auth-issuer`)
  }
  const jwks = string('auth-jwks')
  const scope = string('auth-scope')
  const auth: HttpAuthChoice =
    issuer !== undefined && audience !== undefined
      ? {
          kind: 'oauth',
          issuer,
          audience,
          ...(jwks === undefined ? {} : { jwks }),
          ...(scope === undefined ? {} : { scope }),
        }
      : keysFile !== undefined
        ? { kind: 'keys', keysFile }
        : { kind: 'none' }
  const insecureNoAuth = values['insecure-no-auth'] === true
  if (insecureNoAuth && auth.kind !== 'none')
    throw usage('--insecure-no-auth with authentication configured says two things; drop one')
  if (!listen.isLoopback && auth.kind === 'none' && !insecureNoAuth) {
    throw usage(
      `--http ${httpText} listens beyond this machine without authentication: add --auth-keys FILE or --auth-issuer and --auth-audience (or --insecure-no-auth, to let anyone who can reach it run code)`,
    )
  }
  const maxRuns = readCount(values, 'max-runs')
  const maxRunsPerPrincipal = readCount(values, 'max-runs-per-principal')
  const stateKeyFile = string('state-key')
  return {
    listen,
    auth,
    insecureNoAuth,
    auditValues: values['audit-values'] === true,
    ...(stateKeyFile === undefined ? {} : { stateKeyFile }),
    ...(maxRuns === undefined ? {} : { maxRuns }),
    ...(maxRunsPerPrincipal === undefined ? {} : { maxRunsPerPrincipal }),
  }
}
