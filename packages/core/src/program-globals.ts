/**
 * The globals every backend gives a program beyond ECMAScript's own intrinsics (CONTRACT.md
 * #standard-globals, #console, #process-shim): the one list that the runtime's context, the type
 * checker's declarations and the conformance suite are each checked against, so none of the three
 * can offer or promise a global the others do not.
 */
export const PROGRAM_GLOBALS: readonly string[] = Object.freeze([
  'console',
  'process',
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
  'queueMicrotask',
  'structuredClone',
  'TextEncoder',
  'TextDecoder',
  'URL',
  'URLSearchParams',
  'atob',
  'btoa',
  'crypto',
])

/** ECMAScript-adjacent globals V8 puts in every context that a program does not get. */
export const WITHHELD_PROGRAM_GLOBALS: readonly string[] = Object.freeze(['WebAssembly'])
