/** Calls the program's main function and reports how it ends, through the original promise methods. */
import type { BootstrapKit } from './bootstrap-kit.js'

export function createProgramRunner({
  primordials,
  host,
  callHost,
}: BootstrapKit): (main: unknown, keep?: unknown) => void {
  const { completeRun, failRun } = host
  const { apply, PromiseConstructor, promiseThen } = primordials
  function runProgram(main: unknown, keep?: unknown): void {
    let completion: unknown
    try {
      completion = apply(main as () => unknown, undefined, keep === undefined ? [] : [keep])
    } catch (thrown) {
      callHost(() => failRun(thrown))
      return
    }
    // The original `then`, applied directly: a program that replaced Promise.prototype.then
    // before its first await must not see (or break) how its completion is collected.
    const onValue = (value: unknown): void => {
      callHost(() => completeRun(value))
    }
    const onError = (thrown: unknown): void => {
      callHost(() => failRun(thrown))
    }
    try {
      void promiseThen(completion as Promise<unknown>, onValue, onError)
      return
    } catch {
      // Not a native promise (the source closed the wrapper early): resolve it as a value below.
    }
    const settled = new PromiseConstructor(resolve => resolve(completion))
    void promiseThen(settled, onValue, onError)
  }
  return runProgram
}
