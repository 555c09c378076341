// STAND-IN until the session transform (branch i16-transform) is merged: keeps nothing.
import { transformProgram } from './transform.js'

export const SESSION_KEEP_PARAMETER = '__codeRuntimeKeep'

export interface SessionTransformOptions {
  readonly namespaceGlobals: readonly string[]
}

export type SessionTransformResult =
  | { readonly ok: true; readonly source: string; readonly keptNames: readonly string[]; readonly publishedFunctions: readonly string[] }
  | { readonly ok: false; readonly message: string }

export function transformSessionProgram(program: string, options: SessionTransformOptions): SessionTransformResult {
  void options
  const result = transformProgram(program)
  if (!result.ok) return result
  return { ok: true, source: result.source.replace('(async function () {', `(async function (${SESSION_KEEP_PARAMETER}) {`), keptNames: [], publishedFunctions: [] }
}
