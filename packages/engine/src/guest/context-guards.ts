/**
 * The substrate's side of the guards every fresh context gets before anything else runs in it:
 * the array-buffer budget and the report of work armed to run later (see the two in-context
 * modules). Compiled once per substrate, run in each context.
 */
import type vm from 'node:vm'
import { compileContextScript } from './context-script.js'
import {
  ARRAY_BUFFER_SAMPLE_BYTES,
  LARGEST_MAPPABLE_BYTES,
  type installArrayBufferGuard,
  type ArrayBufferGuardHost,
} from './array-buffer-guard.js'
import type { installDeferredWorkGuard, DeferredWorkGuardHost } from './deferred-work-guard.js'

const arrayBufferGuardScript = compileContextScript<typeof installArrayBufferGuard>('code-runtime:array-buffer-guard')
const deferredWorkGuardScript = compileContextScript<typeof installDeferredWorkGuard>(
  'code-runtime:deferred-work-guard',
)

/** What the guards report to; each member takes and returns primitives only. */
export type ContextGuardHooks = ArrayBufferGuardHost & DeferredWorkGuardHost

/** Installs both guards in a fresh context, before its web globals and bootstrap. */
export function installContextGuards(context: vm.Context, hooks: ContextGuardHooks): void {
  // Frozen strict arrows over the hooks: the context never receives a mutable substrate-realm object.
  const arrayBufferHost: ArrayBufferGuardHost = Object.freeze({
    checkArrayBuffers: (pendingBytes: number): void => hooks.checkArrayBuffers(Number(pendingBytes)),
  })
  const deferredWorkHost: DeferredWorkGuardHost = Object.freeze({
    reportDeferredWork: (): void => hooks.reportDeferredWork(),
  })
  arrayBufferGuardScript.runIn(context)(arrayBufferHost, ARRAY_BUFFER_SAMPLE_BYTES, LARGEST_MAPPABLE_BYTES)
  deferredWorkGuardScript.runIn(context)(deferredWorkHost)
}
