/**
 * The live-worker vm floor: a worker kept alive that, per request, makes a fresh
 * `vm.createContext()` and runs `return 1` in the backends' async-function wrapper there, then
 * posts the value back; the round trip is timed from the host. A warm or back-to-back run on a
 * backend is compared to it: it is what a run costs when no spawn is on its path.
 */
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type { FloorProbe, FloorRound } from './floor-probe.js'

const CONTEXT_PER_REQUEST = `
const { parentPort } = require('node:worker_threads')
const vm = require('node:vm')
parentPort.on('message', (source) => {
  const context = vm.createContext()
  Promise.resolve(new vm.Script(source).runInContext(context)).then((value) => parentPort.postMessage(value))
})
parentPort.postMessage('ready')
`

const PROGRAM = '(async function () {\nreturn 1\n})()'

/** Starts the live worker and returns its probe. */
export async function startLiveVmFloor(): Promise<FloorProbe> {
  const worker = new Worker(CONTEXT_PER_REQUEST, { eval: true })
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
  const round = async (): Promise<FloorRound> => {
    const startedAt = performance.now()
    const answered = new Promise<void>(resolve => worker.once('message', () => resolve()))
    worker.postMessage(PROGRAM)
    await answered
    return { wallMs: performance.now() - startedAt }
  }
  return {
    name: 'live-worker-vm',
    description:
      'on a worker kept alive: `vm.createContext()` + `return 1` in the async wrapper, round trip from the host',
    cpuCovers: 'the host process with the live thread',
    round,
    dispose: async () => {
      await worker.terminate()
    },
  }
}
