import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  buildCgroupJoinCommand,
  buildNodeArgs,
  buildPrlimitArgs,
  cpuSecondsFor,
  detectPermissionFlag,
} from './child-command.js'

describe('buildNodeArgs', () => {
  const base = {
    entryPath: '/pkg/dist/src/guest/child-entry.js',
    maxOldGenerationSizeMb: 64,
    maxMessageBytes: 1_048_576,
    permissionFlag: '--experimental-permission',
    inheritedDescriptors: [],
  }

  it('grants reading only the listed paths, caps the heap and passes the frame cap and the descriptors to close last', () => {
    const args = buildNodeArgs({ ...base, readablePaths: ['/pkg/dist/src', '/pkg/package.json'] })
    assert.deepEqual(args, [
      '--experimental-permission',
      '--allow-fs-read=/pkg/dist/src',
      '--allow-fs-read=/pkg/package.json',
      '--max-old-space-size=64',
      '--disallow-code-generation-from-strings',
      '--no-warnings',
      '/pkg/dist/src/guest/child-entry.js',
      '1048576',
      'none',
    ])
  })

  it('names the inherited descriptors the child must close, as ranges', () => {
    const args = buildNodeArgs({ ...base, readablePaths: undefined, inheritedDescriptors: [41, 40, 100] })
    assert.equal(args.at(-1), '40-41,100')
  })

  it('grants nothing else: no writes, child processes, workers, addons, WASI, inspector or network', () => {
    const args = buildNodeArgs({ ...base, readablePaths: ['/pkg'] })
    assert.equal(
      args.some(arg => /allow-(fs-write|child-process|worker|addons|wasi|net|inspector|openssl-store)/.test(arg)),
      false,
    )
  })

  it('leaves the permission model off only when no readable paths are given', () => {
    const args = buildNodeArgs({ ...base, readablePaths: undefined })
    assert.equal(
      args.some(arg => arg.includes('permission') || arg.startsWith('--allow')),
      false,
    )
    assert.ok(args.includes('--max-old-space-size=64'))
  })
})

describe('detectPermissionFlag', () => {
  it('uses --permission where Node has it', () => {
    assert.equal(detectPermissionFlag(new Set(['--permission', '--experimental-permission'])), '--permission')
  })

  it('falls back to --experimental-permission on Node 20', () => {
    assert.equal(detectPermissionFlag(new Set(['--experimental-permission'])), '--experimental-permission')
  })

  it('names a flag the running Node accepts', () => {
    assert.ok(process.allowedNodeEnvironmentFlags.has(detectPermissionFlag()))
  })
})

describe('buildPrlimitArgs', () => {
  it('sets address space and CPU, then runs the command', () => {
    assert.deepEqual(buildPrlimitArgs({ addressSpaceMb: 2048, cpuSeconds: 3 }, ['/bin/node', 'entry.js']), [
      '--as=2147483648',
      '--cpu=3',
      '--',
      '/bin/node',
      'entry.js',
    ])
  })

  it('adds file size and process limits when given', () => {
    assert.deepEqual(
      buildPrlimitArgs({ addressSpaceMb: 1024, cpuSeconds: 62, fileSizeMb: 64, processes: 32 }, ['node']),
      ['--as=1073741824', '--cpu=62', '--fsize=67108864', '--nproc=32', '--', 'node'],
    )
  })
})

describe('cpuSecondsFor', () => {
  it('rounds the budget up and adds a margin', () => {
    assert.equal(cpuSecondsFor(1), 3)
    assert.equal(cpuSecondsFor(1000), 3)
    assert.equal(cpuSecondsFor(60_000), 62)
  })
})

describe('buildCgroupJoinCommand', () => {
  it('joins every group in a shell that then becomes the command', () => {
    const command = buildCgroupJoinCommand(['/cg/pids/s1/cgroup.procs', '/cg/memory/s1/cgroup.procs'], {
      file: '/usr/bin/bwrap',
      args: ['--unshare-all', '--', 'node'],
    })
    assert.equal(command.file, '/bin/sh')
    assert.deepEqual(command.args.slice(2), [
      'sh',
      '/cg/pids/s1/cgroup.procs',
      '/cg/memory/s1/cgroup.procs',
      '--',
      '/usr/bin/bwrap',
      '--unshare-all',
      '--',
      'node',
    ])
    assert.match(command.args[1] ?? '', /exec "\$@"$/)
  })
})
