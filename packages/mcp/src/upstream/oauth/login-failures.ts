/**
 * The failures of a `url` server that a login fixes, worded as the login it takes. The SDK's
 * transport raises them (`InsufficientScopeError` for a 403 it has no `OAuthClientProvider` to
 * step up with, a 401 after its retry) or our stored login does (`MCP_PROXY_LOGIN_REQUIRED`),
 * under however many causes the SDK wrapped around them.
 */
import { InsufficientScopeError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import { McpProxyError } from '../../errors.js'

/** The first of `error` and its causes that `test` accepts. */
export function findCause<T>(error: unknown, test: (value: unknown) => value is T): T | undefined {
  const seen = new Set<unknown>()
  for (let cause = error; typeof cause === 'object' && cause !== null && !seen.has(cause);) {
    if (test(cause)) return cause
    seen.add(cause)
    cause = (cause as { cause?: unknown }).cause
  }
  return undefined
}

/** The scope a 403 `insufficient_scope` among `error`'s causes asks for. */
export function wantedScopeOf(error: unknown): string | undefined {
  return findCause(error, cause => InsufficientScopeError.isInstance(cause))?.requiredScope
}

/**
 * `error` as the login server `name` needs (`loginCommand` gives it), or undefined when no login
 * would fix it.
 */
export function explainLoginFailure(error: unknown, name: string, loginCommand: string): McpProxyError | undefined {
  const ours = findCause(error, McpProxyError.is)
  if (ours !== undefined) return ours
  const scope = findCause(error, cause => InsufficientScopeError.isInstance(cause))
  if (scope !== undefined) {
    // The scope comes from the server's header: quoted and cut, never trusted as text.
    const wanted = scope.requiredScope === undefined ? '' : ` (${JSON.stringify(scope.requiredScope.slice(0, 200))})`
    return new McpProxyError(
      'MCP_PROXY_LOGIN_REQUIRED',
      `server "${name}" needs a login with more scope${wanted}: run \`${loginCommand}\`.`,
      { server: name, cause: error },
    )
  }
  const refused = findCause(
    error,
    (cause): cause is SdkHttpError =>
      SdkHttpError.isInstance(cause) && cause.code === SdkErrorCode.ClientHttpAuthentication,
  )
  if (refused !== undefined) {
    return new McpProxyError(
      'MCP_PROXY_LOGIN_REQUIRED',
      `server "${name}" refuses its login even after a refresh: run \`${loginCommand}\`.`,
      { server: name, cause: error },
    )
  }
  return undefined
}
