/**
 * Where the live notifications of one `run_code` call go, decided when the call starts:
 * - a client session that asked for log messages (`logging/setLevel`) gets the program's logs as
 *   `notifications/message` (level `info`, logger `run_code`; notes about the stream itself at
 *   `notice`, logger `code-runtime`), sent with the SDK's `sendLoggingMessage`, which applies the
 *   level the client set;
 * - otherwise a call that carries a progress token gets them as the `message` of its
 *   `notifications/progress`;
 * - otherwise the logs are only in the result.
 * Tool-call counts go as progress whenever the call carries a progress token.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import { logSessionKey, type LogSubscribingServer, type ServerHandlerExtra } from './log-subscriptions.js'
import type { RunNotificationSinks } from './run-notifier.js'

/** The `logger` of the program's own log lines. */
export const PROGRAM_LOGGER = 'run_code'
/** The `logger` of notes about the log stream (lines dropped, cap reached). */
export const NOTE_LOGGER = 'code-runtime'

/** The sinks of one call; see the module comment for who gets what. */
export function liveNotificationSinks(server: LogSubscribingServer, extra: ServerHandlerExtra): RunNotificationSinks {
  const progressToken = extra._meta?.progressToken
  // Progress must grow with every notification of a call, so it counts them; the message says what happened.
  let progress = 0
  const sendProgress =
    progressToken === undefined
      ? undefined
      : (message: string): Promise<void> =>
          extra.sendNotification({
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
  const sessionKey = logSessionKey(extra)
  if (server.asksForLogs(sessionKey)) {
    const sendLog =
      (level: LoggingLevel, logger: string) =>
      (data: string): Promise<void> =>
        server.sendLoggingMessage({ level, logger, data }, sessionKey)
    return { logs: sendLog('info', PROGRAM_LOGGER), note: sendLog('notice', NOTE_LOGGER), ...calls }
  }
  return sendProgress === undefined ? {} : { logs: sendProgress, note: sendProgress, ...calls }
}
