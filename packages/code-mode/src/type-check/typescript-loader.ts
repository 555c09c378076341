/**
 * TypeScript is loaded only when a program is first checked: `createCodeMode` stays synchronous,
 * and a Code Mode whose check is `off` never pays for the compiler (about 9 MB of JavaScript).
 */
import type ts from 'typescript'

export type TypeScript = typeof ts

let loading: Promise<TypeScript> | undefined

/** The compiler API, imported once per process. */
export function loadTypeScript(): Promise<TypeScript> {
  loading ??= import('typescript')
    .then(module => module.default)
    .catch((error: unknown) => {
      // A failed import may be retried (a transient file-system error should not stick for good).
      loading = undefined
      throw error
    })
  return loading
}
