// A process the program starts must not outlive its run, even one that ignores SIGTERM. Started
// through the test-only escaped entry (the JavaScript sandbox cannot start processes at all).
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startHookedRuntime, type HookedRuntime } from '../start.js'
import { findProcessesMarked, isRunning } from './host-probes.js'

type Setting = 'process' | 'process, native' | 'container'

/** The grandchild: a shell trapping TERM where there is one (the host), Node ignoring it in the sandbox. */
function startStubbornGrandchild(marker: string): string {
  return `
    const { spawn } = require('node:child_process')
    let shell = false
    try { shell = require('node:fs').existsSync('/bin/sh') } catch {}
    const child = shell
      ? spawn('/bin/sh', ['-c', 'trap "" TERM; sleep 1000.${marker}'], { stdio: 'ignore' })
      : spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)', '${marker}'], { stdio: 'ignore' })
    await new Promise((resolve, reject) => { child.once('spawn', resolve); child.once('error', reject) })
    await new Promise(() => {})`
}

async function waitForMarked(marker: string): Promise<number[]> {
  for (let attempt = 0; attempt < 250; attempt++) {
    const found = findProcessesMarked(marker)
    if (found.length > 0) return found
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return []
}

describe('hostile escaped program: a grandchild that ignores SIGTERM', () => {
  const runtimes = new Map<Setting, HookedRuntime>()
  before(async () => {
    const config = { computeMs: 10_000, maxWallMs: 1_500 }
    runtimes.set('process', await startHookedRuntime('process', 'escaped-child-entry', { config }))
    runtimes.set(
      'process, native',
      await startHookedRuntime('process', 'escaped-child-entry', { config, withoutPermissionModel: true }),
    )
    runtimes.set(
      'container',
      await startHookedRuntime('container', 'escaped-child-entry', { config, withoutPermissionModel: true }),
    )
  })
  after(() => Promise.all([...runtimes.values()].map(runtime => runtime.dispose())))

  it('process: cannot start it (the permission model denies child processes)', async () => {
    const runtime = runtimes.get('process') as HookedRuntime
    const result = await runtime.run({ program: startStubbornGrandchild(String(process.pid)), bindings: [] })
    assert.equal(result.error?.kind, 'exception')
    assert.match(result.error?.message ?? '', /ERR_ACCESS_DENIED/)
  })

  for (const setting of ['process, native', 'container'] as const) {
    it(`${setting}: is killed with the child when the run times out`, async () => {
      const runtime = runtimes.get(setting) as HookedRuntime
      const marker = `${Math.floor(Math.random() * 1e9)}${process.pid}`
      const running = runtime.run({ program: startStubbornGrandchild(marker), bindings: [] })
      const grandchildren = await waitForMarked(marker)
      assert.ok(grandchildren.length > 0, 'the grandchild started')
      const result = await running
      assert.equal(result.error?.kind, 'timeout')
      assert.match(result.error?.message ?? '', /maxWallMs/)
      // The sandbox is killed as the run settles; its processes are gone moments later.
      for (let attempt = 0; attempt < 100 && grandchildren.some(isRunning); attempt++) {
        await new Promise(resolve => setTimeout(resolve, 20))
      }
      assert.deepEqual(grandchildren.filter(isRunning), [])
      assert.equal((await runtime.run({ program: 'return 6 * 7', bindings: [] })).value, 42)
    })
  }
})
