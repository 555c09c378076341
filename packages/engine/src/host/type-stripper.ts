/**
 * The one amaro instance of this process, and its replacement when it breaks. amaro strips types
 * in a WebAssembly instance whose state lives in its linear memory; a parse that runs out of
 * stack (a trap such as `memory access out of bounds`, or V8's `Maximum call stack size exceeded`
 * raised inside the wasm code) leaves that memory inconsistent, and every later call of the same
 * instance fails the same way. So a throw that is not one of amaro's own syntax errors retires
 * the instance: the next call loads amaro's modules afresh (a new glue module, so a new wasm
 * instance with new memory), and one hostile program costs its own run only.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Checked } from '@code-runtime/core/json'

type TransformSync = (source: string, options: { readonly mode: 'strip-only' }) => { readonly code: string }

/** The outcome of {@link stripTypes}. */
export type StripResult = Checked<string, StripFailure>

/** Why a text was not stripped. */
export type StripFailure =
  /** amaro's own error: a syntax error or syntax that cannot be erased, with its position. */
  | { readonly broke: false; readonly cause: unknown }
  /** The instance failed (and was retired); the text says nothing about the program's syntax. */
  | { readonly broke: true }

const require = createRequire(import.meta.url)
const ENTRY = require.resolve('amaro')
const DIST = path.dirname(ENTRY) + path.sep

let transformSync: TransformSync | undefined
let retired = 0

function load(): TransformSync {
  if (transformSync !== undefined) return transformSync
  const loaded = (require(ENTRY) as { transformSync: TransformSync }).transformSync
  transformSync = loaded
  return loaded
}

/**
 * Forgets the broken instance: amaro's modules leave the require cache, so the next `require`
 * evaluates them again and instantiates its wasm module anew. The old instance (and its memory)
 * is garbage once nothing holds it.
 */
function retire(): void {
  transformSync = undefined
  retired++
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(DIST)) Reflect.deleteProperty(require.cache, key)
  }
}

/** amaro reports what it found in the text as a plain object with a string `code`. */
function isAmaroError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    !(error instanceof Error) &&
    typeof (error as { code?: unknown }).code === 'string'
  )
}

/** Strips the types of `text` (strip-only: erasable syntax only, positions kept). Never throws. */
export function stripTypes(text: string): StripResult {
  try {
    return { ok: true, value: load()(text, { mode: 'strip-only' }).code }
  } catch (error) {
    if (isAmaroError(error)) return { ok: false, error: { broke: false, cause: error } }
    retire()
    return { ok: false, error: { broke: true } }
  }
}

/** How many broken instances this process retired so far (for tests and diagnostics). */
export function retiredTypeStrippers(): number {
  return retired
}
