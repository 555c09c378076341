/**
 * Where the live notifications of one `run_code` call go, decided when the call starts:
 * - a client that asked for log messages gets the program's logs as `notifications/message`
 *   (level `info`, logger `run_code`; notes about the stream itself at `notice`, logger
 *   `code-runtime`), sent with the SDK's context `log`, which applies the level asked for. On a
 *   2025-era connection the client asks once for the connection (`logging/setLevel`); on a
 *   2026-07-28 request it asks for that request, with a log level in its envelope;
 * - otherwise a call that carries a progress token gets them as the `message` of its
 *   `notifications/progress`;
 * - otherwise the logs are only in the result.
 * Tool-call counts go as progress whenever the call carries a progress token. Every notification
 * is sent as part of the call's request, so a transport that answers each request on its own
 * stream keeps them with it.
 */
import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server'
import { logSessionKey, type LogSubscribingServer } from './log-subscriptions.js'
import { readRequestEnvelope } from './request-envelope.js'
import type { RunNotificationSinks } from './run-notifier.js'

/** The `logger` of the program's own log lines. */
export const PROGRAM_LOGGER = 'run_code'
/** The `logger` of notes about the log stream (lines dropped, cap reached). */
export const NOTE_LOGGER = 'code-runtime'

/** True when the client asked for log messages for this request (its envelope) or its connection (setLevel). */
function asksForLogs(server: LogSubscribingServer, context: ServerContext): boolean {
  const envelope = readRequestEnvelope(context)
  return envelope === undefined ? server.asksForLogs(logSessionKey(context)) : envelope.logLevel !== undefined
}

/** The sinks of one call; see the module comment for who gets what. */
export function liveNotificationSinks(server: LogSubscribingServer, context: ServerContext): RunNotificationSinks {
  const progressToken = context.mcpReq._meta?.progressToken
  // Progress must grow with every notification of a call, so it counts them; the message says what happened.
  let progress = 0
  const sendProgress =
    progressToken === undefined
      ? undefined
      : (message: string): Promise<void> =>
          context.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress: ++progress, message },
          })
  const calls =
    sendProgress === undefined
      ? {}
      : {
          calls: ({ started, finished }: { started: number; finished: number }) =>
            sendProgress(`${finished} of ${started} tool calls done`),
        }
  if (asksForLogs(server, context)) {
    const sendLog =
      (level: LoggingLevel, logger: string) =>
      (data: string): Promise<void> =>
        context.mcpReq.log(level, data, logger)
    return { logs: sendLog('info', PROGRAM_LOGGER), note: sendLog('notice', NOTE_LOGGER), ...calls }
  }
  return sendProgress === undefined ? {} : { logs: sendProgress, note: sendProgress, ...calls }
}
