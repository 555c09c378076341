// A descriptor the host holds without close-on-exec (inherited from its own parent, or opened by
// a native addon) must not reach the program. The test starts a host (test/fixtures/descriptor-
// host.ts) holding a canary file and a socket at descriptors 40 and 41, inheritable; that host
// runs an escaped program in each setting, which looks for them through every descriptor number
// and every /proc/<pid>/fd it can see.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type StdioOptions } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket } from 'node:net'

const CANARY_FILE_FD = 40
const CANARY_SOCKET_FD = 41

interface Findings {
  readonly ownDescriptors: readonly number[]
  readonly procfs: readonly string[]
}

interface HostReport {
  readonly hostPid: number
  readonly inheritable: boolean
  readonly found: Readonly<Record<string, Findings>>
}

async function runDescriptorHost(canaryPath: string, canaryText: string): Promise<HostReport> {
  const canaryFd = openSync(canaryPath, 'r')
  try {
    const stdio: StdioOptions = ['ignore', 'pipe', 'inherit']
    while (stdio.length < CANARY_FILE_FD) stdio.push('ignore')
    stdio.push(canaryFd, 'pipe')
    const host = spawn(
      process.execPath,
      [
        new URL('../fixtures/descriptor-host.js', import.meta.url).pathname,
        String(CANARY_FILE_FD),
        String(CANARY_SOCKET_FD),
      ],
      {
        stdio,
        env: { ...process.env, CANARY_TEXT: canaryText },
      },
    )
    // Data waiting in the socket: a program holding its other end could read the canary at once.
    const socket = (host.stdio as readonly unknown[])[CANARY_SOCKET_FD] as Socket
    socket.on('error', () => {})
    socket.write(canaryText)
    let output = ''
    host.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
    })
    const code = await new Promise<number | null>(resolve => host.once('exit', resolve))
    socket.destroy()
    assert.equal(code, 0, `the descriptor host failed: ${output}`)
    return JSON.parse(output) as HostReport
  } finally {
    closeSync(canaryFd)
  }
}

describe('hostile escaped program: descriptors the host inherited without close-on-exec', () => {
  let folder: string
  let report: HostReport

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'canary-'))
    const canaryText = `canary-${Math.random().toString(36).slice(2)}`
    const canaryPath = join(folder, 'canary.txt')
    writeFileSync(canaryPath, canaryText)
    report = await runDescriptorHost(canaryPath, canaryText)
  })

  after(() => rmSync(folder, { recursive: true, force: true }))

  it('the host really holds both canaries without close-on-exec (or this test proves nothing)', () => {
    assert.equal(report.inheritable, true)
  })

  it('process: neither its own descriptors nor /proc reach them', () => {
    assert.deepEqual(report.found['process'], { ownDescriptors: [], procfs: [] })
  })

  it("process, native: none of its own descriptors reach them; the host's /proc/<pid>/fd does (not contained, as documented)", () => {
    const found = report.found['process, native']
    assert.deepEqual(found?.ownDescriptors, [])
    // The probe's own check: where the canaries are reachable, it finds them.
    assert.ok(found?.procfs.includes(`/proc/${report.hostPid}/fd/${CANARY_FILE_FD}`), JSON.stringify(found))
    assert.ok(found?.procfs.includes(`/proc/${report.hostPid}/fd/${CANARY_SOCKET_FD}`), JSON.stringify(found))
  })

  it('container: neither its own descriptors nor any /proc/<pid>/fd in the sandbox reach them', () => {
    assert.deepEqual(report.found['container'], { ownDescriptors: [], procfs: [] })
  })
})
