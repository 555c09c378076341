import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { BootstrapFiles } from './bootstrap-files.js'
import { buildBubblewrapArgs, buildBubblewrapCommand, planSandboxBootstrap, SANDBOX_ROOT } from './bubblewrap-args.js'
import { ARGUMENTS_FD } from './child-command.js'

const OPTIONS = {
  mounts: [
    { source: '/usr/bin/node', destination: '/code-runtime/bin/node' },
    { source: '/lib/x86_64-linux-gnu/libc.so.6', destination: '/lib/x86_64-linux-gnu/libc.so.6' },
  ],
  tmpfsSizeMb: 16,
  command: ['/code-runtime/bin/node', '/code-runtime/entry.js', '1048576'],
}

/** The value following each occurrence of `flag`. */
function valuesOf(args: readonly string[], flag: string, count = 1): string[][] {
  const found: string[][] = []
  args.forEach((arg, index) => {
    if (arg === flag) found.push(args.slice(index + 1, index + 1 + count))
  })
  return found
}

describe('buildBubblewrapArgs', () => {
  const args = buildBubblewrapArgs(OPTIONS)
  const beforeCommand = args.slice(0, args.indexOf('--'))

  it('unshares every namespace, the network included, and forbids nested user namespaces', () => {
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns'])
      assert.ok(beforeCommand.includes(flag), flag)
    assert.equal(beforeCommand.includes('--share-net'), false)
  })

  it('drops every capability, starts a new session and dies with the host', () => {
    assert.deepEqual(valuesOf(beforeCommand, '--cap-drop'), [['ALL']])
    assert.ok(beforeCommand.includes('--new-session'))
    assert.ok(beforeCommand.includes('--die-with-parent'))
    assert.equal(beforeCommand.includes('--cap-add'), false)
  })

  it('runs the program as nobody with an empty environment', () => {
    assert.deepEqual(valuesOf(beforeCommand, '--uid'), [['65534']])
    assert.deepEqual(valuesOf(beforeCommand, '--gid'), [['65534']])
    assert.ok(beforeCommand.includes('--clearenv'))
    assert.equal(beforeCommand.includes('--setenv'), false)
  })

  it('mounts each host path read-only and nothing writable from the host', () => {
    assert.deepEqual(
      valuesOf(beforeCommand, '--ro-bind', 2),
      OPTIONS.mounts.map(mount => [mount.source, mount.destination]),
    )
    for (const writable of ['--bind', '--bind-try', '--dev-bind', '--dev-bind-try', '--bind-fd'])
      assert.equal(beforeCommand.includes(writable), false, writable)
  })

  it('gives a private /proc, a read-only /dev and a /tmp of the configured size', () => {
    assert.deepEqual(valuesOf(beforeCommand, '--proc'), [['/proc']])
    assert.deepEqual(valuesOf(beforeCommand, '--dev'), [['/dev']])
    const size = beforeCommand.indexOf('--size')
    assert.deepEqual(beforeCommand.slice(size, size + 4), ['--size', String(16 * 1024 * 1024), '--tmpfs', '/tmp'])
    assert.deepEqual(valuesOf(beforeCommand, '--remount-ro'), [['/dev'], ['/']])
  })

  it('makes the root read-only after every mount', () => {
    const remountRoot = beforeCommand.lastIndexOf('/') - 1
    assert.equal(beforeCommand[remountRoot], '--remount-ro')
    for (const flag of ['--ro-bind', '--tmpfs', '--proc', '--dev'])
      assert.ok(beforeCommand.lastIndexOf(flag) < remountRoot, flag)
  })

  it('runs the command after the separator, unchanged', () => {
    assert.deepEqual(args.slice(args.indexOf('--') + 1), OPTIONS.command)
  })

  it("mounts a folder writable only when asked (the startup snapshot's build), the others still read-only", () => {
    const building = buildBubblewrapArgs({
      ...OPTIONS,
      writableMounts: [{ source: '/tmp/snapshots', destination: '/code-runtime/snapshot-build' }],
    })
    const options = building.slice(0, building.indexOf('--'))
    assert.deepEqual(valuesOf(options, '--bind', 2), [['/tmp/snapshots', '/code-runtime/snapshot-build']])
    assert.deepEqual(
      valuesOf(options, '--ro-bind', 2),
      OPTIONS.mounts.map(mount => [mount.source, mount.destination]),
    )
  })
})

describe('planSandboxBootstrap', () => {
  const files: BootstrapFiles = {
    nodePath: '/opt/node-v20/bin/node',
    entryPackage: {
      name: '@code-runtime/process',
      root: '/home/ada/project/packages/process',
      lookupPath: undefined,
      moduleFolders: ['dist/src'],
    },
    entryModule: 'dist/src/guest/child-entry.js',
    dependencies: [
      {
        name: '@code-runtime/engine',
        root: '/home/ada/project/packages/engine',
        lookupPath: '/home/ada/project/node_modules/@code-runtime/engine',
        moduleFolders: ['dist/src/guest', 'dist/src/protocol'],
      },
      {
        name: '@code-runtime/core',
        root: '/home/ada/project/packages/core',
        lookupPath: '/home/ada/project/node_modules/@code-runtime/core',
        moduleFolders: ['dist/src'],
      },
    ],
  }
  const plan = planSandboxBootstrap(
    files,
    '/tmp/code-runtime-Xy12Ab/node_modules',
    ['/usr/bin/prlimit'],
    [
      { path: '/lib/x86_64-linux-gnu/libc.so.6', realPath: '/usr/lib/x86_64-linux-gnu/libc.so.6' },
      { path: '/lib/x86_64-linux-gnu/libc.so.6', realPath: '/usr/lib/x86_64-linux-gnu/libc.so.6' },
    ],
  )

  it('puts Node and the helpers under the sandbox root', () => {
    assert.equal(plan.nodePath, `${SANDBOX_ROOT}/bin/node`)
    assert.deepEqual(plan.mounts[0], { source: '/opt/node-v20/bin/node', destination: `${SANDBOX_ROOT}/bin/node` })
    assert.equal(plan.binaries.get('/usr/bin/prlimit'), `${SANDBOX_ROOT}/bin/prlimit`)
  })

  it('mounts each library once, at the path the loader looks for it', () => {
    const libraries = plan.mounts.filter(mount => mount.destination.includes('libc'))
    assert.deepEqual(libraries, [
      { source: '/usr/lib/x86_64-linux-gnu/libc.so.6', destination: '/lib/x86_64-linux-gnu/libc.so.6' },
    ])
  })

  it('mounts the staged copy of the packages, not their folders in the project', () => {
    const packageMounts = plan.mounts.filter(mount => mount.destination.startsWith(`${SANDBOX_ROOT}/node_modules`))
    assert.deepEqual(packageMounts, [
      { source: '/tmp/code-runtime-Xy12Ab/node_modules', destination: '/code-runtime/node_modules' },
    ])
    for (const mount of plan.mounts) assert.equal(mount.source.includes('/home/ada'), false, mount.source)
  })

  it('shows the sandbox no host path of ours', () => {
    for (const mount of plan.mounts) assert.equal(mount.destination.includes('/home/ada'), false, mount.destination)
    assert.equal(plan.entryPath, '/code-runtime/node_modules/@code-runtime/process/dist/src/guest/child-entry.js')
    assert.deepEqual(plan.readablePaths, ['/code-runtime/node_modules'])
  })
})

describe('buildBubblewrapCommand', () => {
  it('hands bubblewrap its options on a pipe, so its command line names no mount source', () => {
    const args = buildBubblewrapArgs(OPTIONS)
    const command = buildBubblewrapCommand('/usr/bin/bwrap', args)
    assert.deepEqual(command.args, ['--args', String(ARGUMENTS_FD), '--', ...OPTIONS.command])
    assert.deepEqual(command.pipedArguments, args.slice(0, args.indexOf('--')))
    assert.equal(
      command.args.some(arg => OPTIONS.mounts.some(mount => arg === mount.source)),
      false,
    )
  })
})
