/**
 * The bare-child floor: `node -e` (a spawn of `process.execPath`) whose script writes one message
 * on its stdout pipe at once, timed to that first byte; the process and container backends' cold
 * runs are compared to it. The message is the child's own CPU time so far, so the floor has the
 * child's CPU too without reading /proc.
 */
import { spawn } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import type { FloorProbe, FloorRound } from './floor-probe.js'

const WRITE_AT_ONCE = 'const cpu = process.cpuUsage(); process.stdout.write(String(cpu.user + cpu.system))'

async function spawnToFirstByte(): Promise<FloorRound> {
  const startedAt = performance.now()
  // An empty environment, as the backends give their children: a variable such as
  // NODE_EXTRA_CA_CERTS makes every Node start read certificates (measured: +80 ms here).
  const child = spawn(process.execPath, ['-e', WRITE_AT_ONCE], { env: {}, stdio: ['ignore', 'pipe', 'ignore'] })
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  let firstAt: number | undefined
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    firstAt ??= performance.now()
    output += chunk.toString('utf8')
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('end', resolve)
    child.once('error', reject)
  })
  await exited
  if (firstAt === undefined) throw new Error('the bare child wrote nothing')
  return { wallMs: firstAt - startedAt, otherCpuMs: Number(output) / 1_000 }
}

export const bareChildFloor: FloorProbe = {
  name: 'bare-child',
  description:
    "`spawn(process.execPath, ['-e', script])` with an empty environment, whose script writes on its stdout pipe at once: spawn to that first byte",
  cpuCovers: 'the host process only (spawn, pipe, exit)',
  otherCpuCovers: "the child's own CPU up to its write, as it reports it",
  round: spawnToFirstByte,
  dispose: () => Promise.resolve(),
}
