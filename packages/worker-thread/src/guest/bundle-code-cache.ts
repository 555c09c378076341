/**
 * Loads the worker's guest bundle (`worker-entry.cjs`) through V8's code cache. Compiling the
 * ~160 KB bundle, and the functions it runs while a fresh worker prepares itself, is a large part
 * of what a fresh worker costs over a bare one; a cache produced once at build time
 * (scripts/bundle-guest.mjs) lets V8 skip that work. The cache is only ever written by the build,
 * next to the bundle, never at run time. V8 checks it against the source, its own version and its
 * flags; a cache it rejects (another Node version, a stale file) or a missing one just means a
 * plain compile. V8 does not verify the cache's contents beyond those checks (a corrupted one can
 * crash the worker), so the caches are exactly as trusted as the bundle: files of the installed
 * package, which no program can write.
 */
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { deserialize } from 'node:v8'
import { Script } from 'node:vm'

/** The file beside a bundle that holds its code cache. */
export function codeCachePath(bundlePath: string): string {
  return `${bundlePath}.v8cache`
}

/**
 * The file beside a bundle that holds the code caches of the in-context scripts it compiles for
 * each program context (see `useContextScriptCodeCaches` in the engine), by filename.
 */
export function contextCodeCachePath(bundlePath: string): string {
  return `${bundlePath}.contexts.v8cache`
}

/** The in-context scripts' code caches beside a bundle; none when the file is missing or unreadable. */
export function readContextCodeCaches(bundlePath: string): ReadonlyMap<string, Uint8Array> {
  try {
    const caches: unknown = deserialize(readFileSync(contextCodeCachePath(bundlePath)))
    if (!(caches instanceof Map)) return new Map()
    return new Map(
      [...(caches as Map<unknown, unknown>)].filter(
        (entry): entry is [string, Uint8Array] => typeof entry[0] === 'string' && entry[1] instanceof Uint8Array,
      ),
    )
  } catch {
    return new Map()
  }
}

/**
 * The bundle as one function with CommonJS's parameters, as Node's loader would wrap it. Kept on
 * the bundle's first line, so its line numbers in stack traces stay those of the file.
 */
function wrapBundleSource(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`
}

/** A compiled bundle, and whether V8 refused the code cache it was offered. */
export interface CompiledBundle {
  readonly script: Script
  readonly cacheRejected: boolean
}

/** A bundle that ran: its compiled script, and what it exported. */
export interface RanBundle extends CompiledBundle {
  readonly exports: unknown
}

/** Compiles a bundle's source with `cachedData` when given; a rejected cache is not an error. */
export function compileBundle(bundlePath: string, source: string, cachedData: Buffer | undefined): CompiledBundle {
  const script = new Script(wrapBundleSource(source), {
    filename: bundlePath,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  return { script, cacheRejected: cachedData !== undefined && script.cachedDataRejected === true }
}

/**
 * The bundle's `require`: it loads Node built-ins and nothing else (test/guest-bundle.test.ts
 * checks the bundle asks for no more). A real CommonJS `require` would mean loading `node:module`,
 * which costs every fresh worker more than the rest of this loader.
 */
function requireBuiltin(id: string): unknown {
  const builtin = process.getBuiltinModule(id)
  if (builtin === undefined) throw new Error(`The guest bundle asked for ${id}, which is not a Node built-in.`)
  return builtin
}

/** The code cache beside a bundle, or undefined when there is none to read. */
function readCodeCache(bundlePath: string): Buffer | undefined {
  try {
    return readFileSync(codeCachePath(bundlePath))
  } catch {
    return undefined
  }
}

/**
 * Runs the CommonJS bundle at `bundlePath` as its main module would run, with a code cache: the
 * one given (made earlier in this process, see code-cache-handoff.ts), else the build's beside the
 * bundle, else none when `useCodeCache` is false. Returns the compiled script and the bundle's
 * exports (the build and the hand-off ask them for fresh caches).
 */
export function runBundle(bundlePath: string, useCodeCache: boolean, givenCache?: Uint8Array): RanBundle {
  const cache = !useCodeCache
    ? undefined
    : givenCache === undefined
      ? readCodeCache(bundlePath)
      : Buffer.from(givenCache.buffer, givenCache.byteOffset, givenCache.byteLength)
  const compiled = compileBundle(bundlePath, readFileSync(bundlePath, 'utf8'), cache)
  const run = compiled.script.runInThisContext() as (
    exports: unknown,
    require: (id: string) => unknown,
    module: unknown,
    filename: string,
    dirname: string,
  ) => void
  const module = { exports: {} }
  run.call(module.exports, module.exports, requireBuiltin, module, bundlePath, dirname(bundlePath))
  return { ...compiled, exports: module.exports }
}
