/**
 * The child-process substrate: one fresh child per run, spawned ahead, that speaks the framed
 * wire on file descriptor 3. The child leads its own process group; killing the substrate kills
 * the group and every process still descending from the child, so a grandchild cannot outlive
 * the run. Busy time is the CPU time of the child's process tree, read from `/proc` (never from
 * the child's own reports).
 *
 * Anything but well-formed frames from the child is a protocol violation: the child is killed
 * and the run settles as `worker-exit`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import type {
  HostToGuestMessage,
  SpawnOptions,
  Substrate,
  SubstrateExit,
  SubstrateFactory,
  SubstrateListener,
} from '@code-runtime/engine'
import { ARGUMENTS_FD, type ChildCommand } from './child-command.js'
import { listInheritableDescriptors } from './inherited-descriptors.js'
import { isProcessAlive, listProcessTree, ProcessTreeClock } from './process-tree.js'
import { encodeFrame, FrameDecoder } from './wire-framing.js'

/** One child's command and the resources made for it. */
export interface ChildLaunch {
  readonly command: ChildCommand
  /**
   * True when the spawned process is a monitor (bubblewrap) that reaps its sandbox and exits once
   * the sandbox is dead: the sandbox is killed first and the monitor left to exit by itself, so
   * no process is orphaned to an init that may never reap it.
   */
  readonly rootIsMonitor: boolean
  /** True when the child was stopped for exceeding a memory limit outside V8 (a cgroup). */
  wasOutOfMemory(): boolean
  /** Frees what was made for the child, once it and its descendants are gone. */
  release(): Promise<void>
  /**
   * Called when the child exited before it was ready. True when the next launch will differ
   * (the child was started from a startup snapshot, now given up), so one more start is worth it.
   */
  startFailed?(): boolean
}

/** Options of {@link ChildSubstrateFactory}. */
export interface ChildSubstrateOptions {
  /**
   * Makes the command (and any per-child resources) of one fresh child, which must close
   * `inheritedDescriptors` (the host's descriptors it inherits without being given them) before
   * any program runs. `spawn` is what this one spawn changes (a session's heap cap, say).
   */
  readonly launch: (inheritedDescriptors: readonly number[], spawn: SpawnOptions) => ChildLaunch
  /**
   * True when every command carries {@link ChildCommand.pipedArguments}: the child then gets one
   * more descriptor, {@link ARGUMENTS_FD}, that its program reads and closes.
   */
  readonly pipesArguments?: boolean
  /** Largest frame either side may send, in bytes. */
  readonly maxMessageBytes: number
  /** How long a child may take to say it is ready, in milliseconds. */
  readonly startTimeoutMs?: number
}

const DEFAULT_START_TIMEOUT_MS = 30_000

/** Bytes of the child's stderr kept to classify a crash; older output is dropped. */
const STDERR_TAIL_BYTES = 16 * 1024

/** How long to wait for the descendants of a killed child to disappear, in milliseconds. */
const REAP_WAIT_MS = 5_000

/** How long a monitor may take to exit after its sandbox was killed, in milliseconds. */
const MONITOR_EXIT_MS = 2_000

/** What V8 prints when it runs out of heap or address space (the host never shows this text). */
const OUT_OF_MEMORY_MARKERS = ['JavaScript heap out of memory', 'Fatal process out of memory', 'Reached heap limit']

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

class ChildSubstrate implements Substrate {
  readonly exited: Promise<void>
  private readonly child: ChildProcess
  private readonly wire: Socket
  private readonly stderr: Socket
  /** Every descendant seen when the tree was killed; the substrate has exited once they are gone. */
  private readonly doomed = new Set<number>()
  private readonly launch: ChildLaunch
  private readonly maxMessageBytes: number
  private readonly clock: ProcessTreeClock
  private readonly pid: number
  private listener: SubstrateListener | undefined
  private stderrTail = ''
  private violation: string | undefined
  private ready = false
  private monitorTimer: NodeJS.Timeout | undefined
  private terminated = false
  private killed = false

  constructor(
    child: ChildProcess,
    pid: number,
    launch: ChildLaunch,
    maxMessageBytes: number,
    events: {
      onReady: () => void
      onEarlyExit: (reason: SubstrateExit) => void
    },
  ) {
    this.child = child
    this.pid = pid
    this.launch = launch
    this.maxMessageBytes = maxMessageBytes
    this.clock = new ProcessTreeClock(pid)
    this.wire = child.stdio[3] as Socket
    this.stderr = child.stderr as Socket
    const decoder = new FrameDecoder(maxMessageBytes)
    this.wire.on('data', (chunk: Buffer) => {
      const decoded = decoder.push(chunk)
      if (!decoded.ok) {
        this.protocolViolation(decoded.error)
        return
      }
      for (const raw of decoded.value) this.receive(raw, events.onReady)
    })
    // A closed or broken pipe shows up as the child's exit; nothing to do here.
    this.wire.on('error', () => {})
    this.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('latin1')).slice(-STDERR_TAIL_BYTES)
    })
    this.stderr.on('error', () => {})
    const processExit = new Promise<SubstrateExit>(resolve => {
      child.once('exit', (code, signal) => resolve(this.classifyExit(code, signal)))
    })
    this.exited = processExit.then(async reason => {
      clearTimeout(this.monitorTimer)
      // Whatever ended the child, nothing it started may outlive it (its group may outlive it).
      if (!this.killed) this.killGroup()
      await this.waitForStderr()
      const finalReason =
        this.violation === undefined ? this.refineExit(reason) : { kind: 'crashed' as const, detail: this.violation }
      if (!this.ready) events.onEarlyExit(finalReason)
      else if (!this.terminated) this.report(finalReason)
      await waitUntilGone([...this.doomed])
      await this.launch.release()
    })
  }

  send(message: HostToGuestMessage): void {
    if (this.killed) return
    let encoded = encodeFrame(message, this.maxMessageBytes)
    if (!encoded.ok && message.kind === 'call-result') {
      // A binding result too large for the wire rejects that call in the program instead.
      const replacement: HostToGuestMessage = {
        kind: 'call-result',
        id: message.id,
        ok: false,
        message: `The tool result of ${encoded.error.byteLength} bytes is over the sandbox's message limit (maxMessageBytes: ${this.maxMessageBytes} bytes). Ask for less data per call.`,
      }
      encoded = encodeFrame(replacement, this.maxMessageBytes)
    }
    if (!encoded.ok) {
      this.protocolViolation('a program too large for the wire')
      return
    }
    this.wire.write(encoded.value)
  }

  /** Lets the host exit while this child waits in the pool; {@link attach} holds it again. */
  idle(): void {
    this.child.unref()
    this.wire.unref()
    this.stderr.unref()
  }

  attach(listener: SubstrateListener): void {
    this.listener = listener
    this.child.ref()
    this.wire.ref()
    this.stderr.ref()
  }

  resetBusyTime(): void {
    this.clock.reset()
  }

  busyMs(): number {
    return this.clock.elapsedMs()
  }

  terminate(): void {
    if (this.terminated) return
    this.terminated = true
    this.kill()
  }

  private receive(raw: unknown, onReady: () => void): void {
    if (this.ready) {
      try {
        this.listener?.message(raw)
      } catch {
        // A listener bug must never surface as an uncaught exception in the host.
      }
      return
    }
    if (typeof raw === 'object' && raw !== null && (raw as { kind?: unknown }).kind === 'guest-ready') {
      this.ready = true
      onReady()
      return
    }
    this.protocolViolation('a first message that is not guest-ready')
  }

  private protocolViolation(problem: string): void {
    this.violation ??= problem
    this.kill()
  }

  private report(reason: SubstrateExit): void {
    try {
      this.listener?.exit(reason)
    } catch {
      // As above: never throw from a child's event.
    }
  }

  /** Kills the child, its process group and every descendant, at once. */
  private kill(): void {
    if (this.killed) return
    this.killed = true
    // Whoever awaits `exited` must be kept waiting: hold the event loop until the child is reaped.
    this.child.ref()
    this.killTree()
  }

  private killTree(): void {
    // Descendants first, including any that left the group (setsid) but are still in the tree.
    const descendants = listProcessTree(this.pid).filter(pid => pid !== this.pid)
    for (const pid of descendants) {
      this.doomed.add(pid)
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    if (this.launch.rootIsMonitor && descendants.length > 0) {
      // The monitor reaps the sandbox and exits; the group is killed only if it does not.
      this.monitorTimer ??= setTimeout(() => this.killGroup(), MONITOR_EXIT_MS)
      return
    }
    this.killGroup()
  }

  private killGroup(): void {
    try {
      process.kill(-this.pid, 'SIGKILL')
    } catch {
      // The group is already gone.
    }
  }

  private classifyExit(code: number | null, signal: NodeJS.Signals | null): SubstrateExit {
    if (signal !== null) return { kind: 'crashed', detail: signal }
    return { kind: 'exited', code }
  }

  /** Once stderr is drained: V8's out-of-memory report, or a cgroup's OOM kill, wins. */
  private refineExit(reason: SubstrateExit): SubstrateExit {
    if (OUT_OF_MEMORY_MARKERS.some(marker => this.stderrTail.includes(marker))) return { kind: 'out-of-memory' }
    if (this.launch.wasOutOfMemory()) return { kind: 'out-of-memory' }
    return reason
  }

  private async waitForStderr(): Promise<void> {
    if (this.stderr.readableEnded || this.stderr.destroyed) return
    await Promise.race([new Promise<void>(resolve => this.stderr.once('close', () => resolve())), sleep(200)])
  }
}

async function waitUntilGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + REAP_WAIT_MS
  let remaining = pids.filter(isProcessAlive)
  while (remaining.length > 0 && Date.now() < deadline) {
    await sleep(5)
    remaining = remaining.filter(isProcessAlive)
  }
}

/** Hands the child its arguments on {@link ARGUMENTS_FD}, each ended by a NUL byte, then closes our end. */
function writePipedArguments(child: ChildProcess, args: readonly string[]): void {
  const pipe = (child.stdio as readonly unknown[])[ARGUMENTS_FD] as Socket | null | undefined
  if (pipe === null || pipe === undefined) return
  // A child that dies before reading shows up as its exit; the pipe must not keep the host alive.
  pipe.on('error', () => {})
  pipe.end(args.map(arg => `${arg}\0`).join(''))
  pipe.unref()
}

/** Spawns {@link ChildSubstrate}s. */
export class ChildSubstrateFactory implements SubstrateFactory {
  private readonly options: ChildSubstrateOptions

  constructor(options: ChildSubstrateOptions) {
    this.options = options
  }

  spawn(options: SpawnOptions = {}): Promise<Substrate> {
    // Forking blocks the host's event loop for a few milliseconds; a refill asked for as a run
    // settles must not hold back that run's result, so the fork waits for the next turn.
    return new Promise(resolve => setImmediate(resolve)).then(() => this.spawnNow(options))
  }

  private spawnNow(options: SpawnOptions): Promise<Substrate> {
    return new Promise((resolve, reject) => {
      const pipesArguments = this.options.pipesArguments === true
      // stdio, the wire and perhaps the arguments: the child gets these descriptors and no other.
      const stdio: ('ignore' | 'pipe')[] = ['ignore', 'ignore', 'pipe', 'pipe']
      if (pipesArguments) stdio.push('pipe')
      let launch: ChildLaunch
      try {
        // Listed in the same turn as the spawn: nothing of ours opens a descriptor in between.
        launch = this.options.launch(listInheritableDescriptors(stdio.length), options)
        if ((launch.command.pipedArguments !== undefined) !== pipesArguments)
          throw new Error('The sandbox command does not match how its arguments are passed.')
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)))
        return
      }
      const child = spawn(launch.command.file, launch.command.args, {
        env: {},
        // A neutral working directory: the host's own (often the project) must not show inside.
        cwd: '/',
        stdio,
        detached: true,
        windowsHide: true,
      })
      if (launch.command.pipedArguments !== undefined) writePipedArguments(child, launch.command.pipedArguments)
      const pid = child.pid
      if (pid === undefined) {
        child.once('error', () => {})
        void launch.release()
        reject(new Error('The sandbox process could not be started.'))
        return
      }
      child.on('error', () => {})
      const startTimer = setTimeout(
        () => substrate.terminate(),
        this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      )
      startTimer.unref()
      const substrate: ChildSubstrate = new ChildSubstrate(child, pid, launch, this.options.maxMessageBytes, {
        onReady: () => {
          clearTimeout(startTimer)
          substrate.idle()
          resolve(substrate)
        },
        onEarlyExit: reason => {
          clearTimeout(startTimer)
          if (launch.startFailed?.() === true) {
            resolve(this.spawnNow(options))
            return
          }
          reject(new Error(`The sandbox process exited before it was ready (${reason.kind}).`))
        },
      })
    })
  }
}
