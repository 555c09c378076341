/**
 * What one request says about the protocol revision it was sent on, read once from the SDK's
 * handler context. A request of revision 2026-07-28 carries a per-request `_meta` envelope: the
 * revision the client speaks and, when it wants log messages for this request, the level it asks
 * for. A request on a connection that opened with `initialize` (revision 2025-11-25 and older)
 * carries none: its log level is the connection's (`logging/setLevel`), and the server may send
 * the client requests of its own, such as an elicitation, while it answers.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type LoggingLevel,
  type ServerContext,
} from '@modelcontextprotocol/server'

/** The envelope of a 2026-07-28 request, as far as the server reads it. */
export interface RequestEnvelope {
  /** The revision the client speaks, e.g. `2026-07-28`. */
  readonly protocolVersion: string
  /** The least severe level of log message the client wants for this request; absent: none. */
  readonly logLevel?: LoggingLevel
  /** What the client says it can do, as this request carries it (untrusted: read each field with care). */
  readonly capabilities?: Readonly<Record<string, unknown>>
}

/** Every level, so the type checker notices a level the protocol adds. */
const LOGGING_LEVELS: Readonly<Record<LoggingLevel, true>> = {
  debug: true,
  info: true,
  notice: true,
  warning: true,
  error: true,
  critical: true,
  alert: true,
  emergency: true,
}

function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && Object.hasOwn(LOGGING_LEVELS, value)
}

/**
 * The envelope of the request `context` belongs to, or `undefined` for a 2025-era request.
 * @example readRequestEnvelope(ctx)?.logLevel // 'info' when the client asked for logs at info
 */
export function readRequestEnvelope(context: ServerContext): RequestEnvelope | undefined {
  // The SDK checks the envelope before a handler runs, but types it as `{}`.
  const envelope = context.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined
  const protocolVersion = envelope?.[PROTOCOL_VERSION_META_KEY]
  if (typeof protocolVersion !== 'string') return undefined
  const logLevel = envelope?.[LOG_LEVEL_META_KEY]
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY]
  return {
    protocolVersion,
    ...(isLoggingLevel(logLevel) ? { logLevel } : {}),
    ...(typeof capabilities === 'object' && capabilities !== null
      ? { capabilities: capabilities as Readonly<Record<string, unknown>> }
      : {}),
  }
}
