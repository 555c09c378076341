/**
 * The minimal `process` a program may expect: `stdout`/`stderr` whose `write` appends to the log,
 * and an empty, frozen `env`.
 */
import type { ContextWebGlobals } from '../context-bootstrap.js'
import type { BootstrapKit } from './bootstrap-kit.js'
import type { ProgramTasks } from './tasks.js'

export function installProcessShim(
  { primordials, host, defineGlobal, callHost, resolvedPromise }: BootstrapKit,
  webGlobals: ContextWebGlobals,
  tasks: ProgramTasks,
): void {
  const { emitLog } = host
  const { freeze, create, promiseThen, TypeErrorConstructor } = primordials
  const { runCallback } = tasks
  const TextDecoderConstructor = webGlobals.TextDecoder as (new () => { decode(input: unknown): string }) | undefined
  function createStream(): object {
    return freeze({
      write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
        let text: string
        if (typeof chunk === 'string') text = chunk
        else if (TextDecoderConstructor !== undefined && typeof chunk === 'object' && chunk !== null) {
          text = new TextDecoderConstructor().decode(chunk)
        } else {
          throw new TypeErrorConstructor('The "chunk" argument must be of type string or Uint8Array')
        }
        callHost(() => emitLog(text))
        const done = typeof encoding === 'function' ? encoding : callback
        if (typeof done === 'function') void promiseThen(resolvedPromise, () => runCallback(done, []))
        return true
      },
    })
  }
  defineGlobal(
    'process',
    freeze({ stdout: createStream(), stderr: createStream(), env: freeze(create(null) as object) }),
  )
}
