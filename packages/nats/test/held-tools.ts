/** Test support: binding calls a test holds until it releases them, so a fault can happen while a run waits. */
import type { CodeBindingNamespace } from '@code-runtime/core'

/** Binding calls the test holds until it releases them, and a log of every call. */
export function heldTools(): { tools: CodeBindingNamespace; calls: string[]; release(): void; entered: Promise<void> } {
  const calls: string[] = []
  let release!: () => void
  const released = new Promise<void>(resolve => {
    release = resolve
  })
  let entered!: () => void
  const enteredPromise = new Promise<void>(resolve => {
    entered = resolve
  })
  return {
    calls,
    release,
    entered: enteredPromise,
    tools: {
      global: 'tools',
      functions: {
        hold: async () => {
          calls.push('hold')
          entered()
          await released
          return 'released'
        },
        mark: async args => (calls.push(`mark ${JSON.stringify(args)}`), null),
      },
    },
  }
}
