// Plugin load checks the host: what the container backend says when bubblewrap cannot run,
// and what it leaves behind (control groups are removed on disposal).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { CodeRuntimeError } from '@code-runtime/core'
import { findProgram } from '../src/host-programs.js'
import { bubblewrapMissingError, probeSandbox } from '../src/sandbox-probe.js'
import { startContainerRuntime } from './start.js'

/**
 * Loads the container backend in a Node process that itself runs in an outer bubblewrap sandbox,
 * to take away what the backend needs: `extraArgs` hide bwrap, and the outer sandbox always
 * refuses nested user namespaces. Returns what plugin load reported.
 */
async function loadInsideOuterSandbox(extraArgs: readonly string[]): Promise<{ code?: string; message?: string }> {
  const bwrap = findProgram('bwrap') as string
  const script = fileURLToPath(new URL('./fixtures/start-container.js', import.meta.url))
  // The repository is bound again over the fresh /tmp: a checkout may itself live under /tmp.
  const repository = fileURLToPath(new URL('../../../../', import.meta.url))
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    repository,
    repository,
    ...extraArgs,
    '--',
    process.execPath,
    script,
  ]
  const { stdout } = await promisify(execFile)(bwrap, args, { env: { PATH: '/usr/local/bin:/usr/bin:/bin' } })
  return JSON.parse(stdout) as { code?: string; message?: string }
}

describe('container plugin load on a host that cannot run it', () => {
  it('fails with CODE_RUNTIME_UNAVAILABLE and how to install bubblewrap when bwrap is missing', async () => {
    // An empty, non-executable file where bwrap was.
    const outcome = await loadInsideOuterSandbox(['--ro-bind', '/dev/null', findProgram('bwrap') as string])
    assert.equal(outcome.code, 'CODE_RUNTIME_UNAVAILABLE')
    assert.match(outcome.message ?? '', /needs bubblewrap \(bwrap\) and it is not installed/)
    assert.match(outcome.message ?? '', /apt-get install bubblewrap/)
  })

  it('fails with CODE_RUNTIME_UNAVAILABLE and the settings to change when user namespaces are refused', async () => {
    const outcome = await loadInsideOuterSandbox([])
    assert.equal(outcome.code, 'CODE_RUNTIME_UNAVAILABLE')
    assert.match(outcome.message ?? '', /^bubblewrap could not start a sandbox on this machine/)
    assert.match(outcome.message ?? '', /kernel\.unprivileged_userns_clone=1/)
  })
})

describe('container availability', () => {
  it('explains how to install bubblewrap when it is missing', () => {
    const error = bubblewrapMissingError()
    assert.ok(CodeRuntimeError.is(error))
    assert.equal(error.code, 'CODE_RUNTIME_UNAVAILABLE')
    assert.match(error.message, /apt-get install bubblewrap/)
  })

  it("reports bubblewrap's own reason when it cannot build a sandbox", async () => {
    const bwrap = findProgram('bwrap')
    assert.ok(bwrap !== undefined, 'bwrap is installed on this machine')
    await assert.rejects(
      probeSandbox(bwrap, ['--ro-bind', '/code-runtime-no-such-path', '/x', '--', '/bin/true']),
      (error: unknown) => {
        assert.ok(CodeRuntimeError.is(error))
        assert.equal(error.code, 'CODE_RUNTIME_UNAVAILABLE')
        assert.match(
          error.message,
          /^bubblewrap could not start a sandbox on this machine \(bwrap: .*code-runtime-no-such-path/,
        )
        return true
      },
    )
  })

  it('names the namespace settings to change when namespaces are refused', async () => {
    const bwrap = findProgram('bwrap') as string
    // A nested user namespace is refused by the outer sandbox's --disable-userns, as a host that forbids them would.
    const nested = [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--ro-bind',
      '/',
      '/',
      '--',
      bwrap,
      '--unshare-user',
      '--ro-bind',
      '/',
      '/',
      '/bin/true',
    ]
    await assert.rejects(probeSandbox(bwrap, nested), (error: unknown) => {
      assert.ok(CodeRuntimeError.is(error))
      assert.equal(error.code, 'CODE_RUNTIME_UNAVAILABLE')
      assert.match(error.message, /kernel\.unprivileged_userns_clone=1/)
      assert.match(error.message, /kernel\.apparmor_restrict_unprivileged_userns=0/)
      return true
    })
  })
})

/** Our control-group folders in each v1 controller the host process belongs to. */
function listOurGroups(): string[] {
  const found: string[] = []
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, path] = line.split(':')
    for (const controller of ['pids', 'memory']) {
      if (controllers?.split(',').includes(controller) !== true || path === undefined) continue
      try {
        for (const entry of readdirSync(join('/sys/fs/cgroup', controller, path))) {
          if (entry.startsWith(`code-runtime-${process.pid}-`)) found.push(join(controller, entry))
        }
      } catch {
        // Controller not mounted here.
      }
    }
  }
  return found
}

/** Our own group's folder in the v1 `pids` controller, or undefined. */
function ownPidsFolder(): string | undefined {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find(entry => entry.split(':')[1]?.split(',').includes('pids'))
  const folder = line === undefined ? undefined : join('/sys/fs/cgroup', 'pids', line.split(':')[2] ?? '/')
  return folder !== undefined && existsSync(folder) ? folder : undefined
}

describe('container control groups', () => {
  it('removes empty groups left by a host that exited without disposing', async t => {
    const own = ownPidsFolder()
    const deadHost = await new Promise<number>(resolve => {
      const child = execFile(process.execPath, ['-e', '0'], () => resolve(child.pid as number))
    })
    const stale = own === undefined ? undefined : join(own, `code-runtime-${deadHost}-stale0`)
    try {
      if (stale === undefined) throw new Error('no pids controller')
      mkdirSync(join(stale, 'sandbox-1'), { recursive: true })
    } catch {
      t.skip('no writable cgroup v1 controllers on this host')
      return
    }
    const started = await startContainerRuntime({ spawnAhead: 0 })
    await started.dispose()
    assert.equal(existsSync(stale), false)
  })

  it("limits each sandbox's tasks where the host allows cgroups, and removes the groups on disposal", async t => {
    const started = await startContainerRuntime({ maxProcesses: 48 })
    const groups = listOurGroups()
    if (groups.length === 0) {
      await started.dispose()
      t.skip('no writable cgroup v1 controllers on this host: rlimits apply instead')
      return
    }
    const result = await started.runtime.run({ program: 'return 1', bindings: [] })
    assert.equal(result.value, 1)
    const pidsParent = groups.find(group => group.startsWith('pids'))
    assert.ok(pidsParent !== undefined)
    // The child spawned ahead for the next run sits in its own group already.
    const ownPidsPath =
      readFileSync('/proc/self/cgroup', 'utf8')
        .split('\n')
        .find(line => line.split(':')[1]?.split(',').includes('pids'))
        ?.split(':')[2] ?? '/'
    const parentFolder = join('/sys/fs/cgroup', 'pids', ownPidsPath, pidsParent.slice('pids/'.length))
    const sandboxes = readdirSync(parentFolder, { withFileTypes: true }).filter(entry => entry.isDirectory())
    assert.ok(sandboxes.length > 0)
    assert.equal(readFileSync(join(parentFolder, sandboxes[0]?.name ?? '', 'pids.max'), 'utf8').trim(), '48')
    await started.dispose()
    assert.deepEqual(listOurGroups(), [])
  })
})
