/**
 * The worker's side of the guards every fresh context gets before anything else runs in it:
 * the array-buffer budget and the report of work armed to run later (see the two in-context
 * modules). Compiled once per worker, run in each context.
 */
import vm from 'node:vm'
import { ARRAY_BUFFER_SAMPLE_BYTES, installArrayBufferGuard, type ArrayBufferGuardHost } from './array-buffer-guard.js'
import { installDeferredWorkGuard, type DeferredWorkGuardHost } from './deferred-work-guard.js'

const arrayBufferGuardScript = new vm.Script(`(${installArrayBufferGuard.toString()})`, { filename: 'code-runtime:array-buffer-guard' })
const deferredWorkGuardScript = new vm.Script(`(${installDeferredWorkGuard.toString()})`, { filename: 'code-runtime:deferred-work-guard' })

/** What the guards report to; each member takes and returns primitives only. */
export type ContextGuardHooks = ArrayBufferGuardHost & DeferredWorkGuardHost

/** Installs both guards in a fresh context, before its web globals and bootstrap. */
export function installContextGuards(context: vm.Context, hooks: ContextGuardHooks): void {
  // Frozen strict arrows over the hooks: the context never receives a mutable worker-realm object.
  const arrayBufferHost: ArrayBufferGuardHost = Object.freeze({
    checkArrayBuffers: (pendingBytes: number): void => hooks.checkArrayBuffers(Number(pendingBytes)),
  })
  const deferredWorkHost: DeferredWorkGuardHost = Object.freeze({
    reportDeferredWork: (): void => hooks.reportDeferredWork(),
  })
  const installArrayBuffers = arrayBufferGuardScript.runInContext(context) as typeof installArrayBufferGuard
  installArrayBuffers(arrayBufferHost, ARRAY_BUFFER_SAMPLE_BYTES)
  const installDeferredWork = deferredWorkGuardScript.runInContext(context) as typeof installDeferredWorkGuard
  installDeferredWork(deferredWorkHost)
}
