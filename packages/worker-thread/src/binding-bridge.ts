/**
 * The host end of the binding bridge: answers the guest's call requests with the caller's
 * functions. Member names are looked up as own entries of the validated namespace only; each
 * call id is answered at most once; arguments and resolutions are checked as lossless JSON on
 * the host, whatever the guest claims; once the run settled, late results are dropped.
 */
import { formatLosslessJsonRefusal, safeSnapshotLosslessJson, type ValidatedNamespace } from '@code-runtime/core'
import type { CallRequestMessage, CallResultMessage } from './protocol.js'

/** Reads the message of whatever a host function threw, never throwing itself. */
function messageOf(thrown: unknown): string {
  try {
    if (typeof thrown === 'object' && thrown !== null) {
      const message = (thrown as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
    return String(thrown)
  } catch {
    return 'The tool failed with a value that cannot be shown.'
  }
}

export class BindingBridge {
  private readonly namespaces: readonly ValidatedNamespace[]
  private readonly reply: (message: CallResultMessage) => void
  private readonly seenIds = new Set<number>()
  private open = true
  private calls = 0

  constructor(namespaces: readonly ValidatedNamespace[], reply: (message: CallResultMessage) => void) {
    this.namespaces = namespaces
    this.reply = reply
  }

  /** Number of binding calls started so far. */
  get callCount(): number {
    return this.calls
  }

  /**
   * Starts the call a request asks for. Returns a description of the protocol violation when
   * the request could not have come from an honest guest, `undefined` otherwise.
   */
  handle(request: CallRequestMessage): string | undefined {
    if (!this.open) return undefined
    if (this.seenIds.has(request.id)) return 'a repeated call id'
    this.seenIds.add(request.id)
    const namespace = this.namespaces[request.namespace]
    if (namespace === undefined) return 'a call to an unknown namespace'
    const binding = namespace.functions.get(request.member)
    if (binding === undefined) return 'a call to an unknown member'
    let parsed: unknown
    try {
      parsed = JSON.parse(request.argsJson)
    } catch {
      return 'call arguments that are not JSON'
    }
    const args = safeSnapshotLosslessJson(parsed, { rootLabel: 'args' })
    if (!args.ok) return 'call arguments that are not lossless JSON'
    this.calls++
    void this.invoke(request.id, `${namespace.global}.${request.member}`, binding, args.value)
    return undefined
  }

  /** Drops every later result. */
  close(): void {
    this.open = false
  }

  private async invoke(id: number, label: string, binding: (args: unknown) => Promise<unknown>, args: unknown): Promise<void> {
    let resolution: unknown
    try {
      resolution = await Reflect.apply(binding, undefined, [args])
    } catch (thrown) {
      if (this.open) this.reply({ kind: 'call-result', id, ok: false, message: messageOf(thrown) })
      return
    }
    if (!this.open) return
    const value = safeSnapshotLosslessJson(resolution, { rootLabel: 'value' })
    if (!value.ok) {
      this.reply({
        kind: 'call-result',
        id,
        ok: false,
        message: `${label} resolved a value that is not lossless JSON: ${formatLosslessJsonRefusal(value.refusal)}`,
      })
      return
    }
    this.reply({ kind: 'call-result', id, ok: true, valueJson: JSON.stringify(value.value) })
  }
}
