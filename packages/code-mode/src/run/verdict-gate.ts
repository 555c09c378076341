/**
 * The run of a program whose type check is still in flight (CONTRACT section #check-overlap): the
 * program starts at once, and its first tool call waits for the verdict.
 * A refused program is stopped before any tool call, and the live logs it printed meanwhile are
 * held back and dropped; a passed one gets them, in order, then the rest as they come.
 */
export class VerdictGate {
  private readonly stopper = new AbortController()
  private heldLogs: string[] | undefined = []
  private readonly verdict: Promise<boolean>
  private settle: (passed: boolean) => void = () => undefined
  private readonly onLog: ((text: string) => void) | undefined

  constructor(onLog: ((text: string) => void) | undefined) {
    this.onLog = onLog
    this.verdict = new Promise(resolve => {
      this.settle = resolve
    })
  }

  /** Aborts the run when the program is refused. */
  get signal(): AbortSignal {
    return this.stopper.signal
  }

  /** The live-log observer the run gets: holds each entry until the verdict. */
  readonly log = (text: string): void => {
    if (this.heldLogs !== undefined) this.heldLogs.push(text)
    else this.onLog?.(text)
  }

  /** Resolves when the program passed; a refused program's call never proceeds. */
  async beforeCall(): Promise<void> {
    if (!(await this.verdict)) throw new Error('The program was refused by the type check; no tool was called.')
  }

  /**
   * Lets the waiting calls go, then (a turn later, once they have started) the held logs: the
   * host sees calls and logs in the order the program made them, as without a gate. Logs that
   * arrive meanwhile wait behind the held ones.
   */
  pass(): void {
    this.settle(true)
    setImmediate(() => this.flush())
  }

  /** Hands over the held logs now, if {@link pass} has not yet: called when the run has ended. */
  flush(): void {
    const held = this.heldLogs ?? []
    this.heldLogs = undefined
    for (const text of held) this.onLog?.(text)
  }

  refuse(): void {
    this.heldLogs = undefined
    this.settle(false)
    this.stopper.abort(new Error('The program was refused by the type check.'))
  }
}
