// What each backend contains once the JavaScript sandbox is gone. Every attack runs through the
// test-only entry (test/fixtures/escaped-child-entry.ts), which executes the program in the
// child's main realm with `process` and `require`, as an escaped program would, in three
// settings:
//   process          the process backend after an escape to the child's main realm: Node's
//                    permission model still applies
//   process, native  the process backend after an escape through native code (a V8 bug),
//                    which the in-process permission model cannot stop: only the OS applies
//   container        the container backend after the same native escape: only bubblewrap,
//                    rlimits and cgroups apply
// Each attack states its expected outcome per setting; afterwards the runtime runs a normal
// program, and the test process (the host) is still here to check.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { CodeRunResult } from '@code-runtime/core'
import { NODE_BASELINE_MEMORY_MB } from '@code-runtime/process'
import { startHookedRuntime, type HookedRuntime } from '../start.js'
import { findRepositoryRoot, findSurvivorsMarked, listenOnLoopback } from './host-probes.js'

type Setting = 'process' | 'process, native' | 'container'
const SETTINGS: readonly Setting[] = ['process', 'process, native', 'container']

/** What a program can refer to: facts of the host, pasted into its source. */
interface Host {
  readonly pid: number
  readonly port: number
  readonly projectFile: string
  readonly writeTarget: string
  /** Digits only, so it can also be a number in a command line (`sleep 1000.<marker>`). */
  readonly marker: string
}

/** The completion value expected in one setting, or a check of the whole result. */
type Expectation = unknown | ((result: CodeRunResult) => void)

interface Attack {
  readonly name: string
  readonly program: (host: Host) => string
  readonly expected: Readonly<Record<Setting, Expectation>>
  /** What the host checks afterwards, per setting. */
  readonly afterwards?: (setting: Setting, host: Host) => void | Promise<void>
}

const signalsReceived: NodeJS.Signals[] = []

/** True on a Node whose permission model refuses network access unless granted (Node 25 on). */
const PERMISSION_MODEL_CONTAINS_NETWORK = process.allowedNodeEnvironmentFlags.has('--allow-net')

const readFileProgram = (path: string): string => `
  try { return require('node:fs').readFileSync(${JSON.stringify(path)}, 'utf8').length > 0 ? 'read' : 'empty' }
  catch (error) { return error.code }`

const ATTACKS: readonly Attack[] = [
  {
    // Confidentiality: the host's account database.
    name: 'reads /etc/passwd',
    program: () => readFileProgram('/etc/passwd'),
    expected: { process: 'ERR_ACCESS_DENIED', 'process, native': 'read', container: 'ENOENT' },
  },
  {
    // Confidentiality: the project's own files (this repository's root package.json).
    name: "reads the project's files",
    program: host => readFileProgram(host.projectFile),
    expected: { process: 'ERR_ACCESS_DENIED', 'process, native': 'read', container: 'ENOENT' },
  },
  {
    // Confidentiality: whether a host path exists, where reading it is refused. Node's permission
    // model (20 to 25) does not check fs.realpathSync or module resolution: in the process
    // backend they answer (the README's containment table says so); the container has no host path.
    name: 'learns whether a host path exists',
    program: host => `
      const probe = (find) => { try { find(); return 'exists' } catch (error) { return error.code } }
      const existing = ${JSON.stringify(host.projectFile)}, missing = ${JSON.stringify(`${host.projectFile}.missing`)}
      return {
        realpath: [probe(() => require('node:fs').realpathSync(existing)), probe(() => require('node:fs').realpathSync(missing))],
        resolve: [probe(() => require.resolve(existing)), probe(() => require.resolve(missing))],
      }`,
    expected: {
      process: { realpath: ['exists', 'ENOENT'], resolve: ['exists', 'MODULE_NOT_FOUND'] },
      'process, native': { realpath: ['exists', 'ENOENT'], resolve: ['exists', 'MODULE_NOT_FOUND'] },
      container: { realpath: ['ENOENT', 'ENOENT'], resolve: ['MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'] },
    },
  },
  {
    // Confidentiality: the host's environment, inherited (the test set a secret in it) or read
    // through /proc/<host pid>/environ (the environment the host started with).
    name: "reads the host's environment",
    program: host => `
      let hostEnvironment
      try { hostEnvironment = require('node:fs').readFileSync('/proc/${host.pid}/environ', 'utf8').includes('PATH=') ? 'read' : 'empty' }
      catch (error) { hostEnvironment = error.code }
      return { inherited: Object.keys(process.env), hostEnvironment }`,
    expected: {
      process: { inherited: [], hostEnvironment: 'ERR_ACCESS_DENIED' },
      'process, native': { inherited: [], hostEnvironment: 'read' },
      // bubblewrap always sets PWD (to the sandbox's /tmp); nothing of the host's.
      container: { inherited: ['PWD'], hostEnvironment: 'ENOENT' },
    },
  },
  {
    // Integrity: a file outside /tmp, in a folder of the host the test made for it.
    name: 'writes a file outside /tmp',
    program: host => `
      const fs = require('node:fs')
      let outside, tmp
      try { fs.writeFileSync(${JSON.stringify(host.writeTarget)}, 'escaped'); outside = 'written' } catch (error) { outside = error.code }
      try { fs.writeFileSync('/tmp/scratch.txt', 'x'); tmp = 'written' } catch (error) { tmp = error.code }
      return { outside, tmp }`,
    expected: {
      process: { outside: 'ERR_ACCESS_DENIED', tmp: 'ERR_ACCESS_DENIED' },
      'process, native': { outside: 'written', tmp: 'written' },
      container: { outside: 'ENOENT', tmp: 'written' },
    },
    afterwards: (setting, host) => {
      assert.equal(existsSync(host.writeTarget), setting === 'process, native')
      rmSync(host.writeTarget, { force: true })
    },
  },
  {
    // Integrity: the bootstrap mounted into the sandbox, and the sandbox's root.
    name: 'overwrites its own bootstrap and the sandbox root',
    program: () => `
      const fs = require('node:fs')
      const attempt = (path) => { try { fs.writeFileSync(path, 'x'); return 'written' } catch (error) { return error.code } }
      let inSandbox = false
      try { inSandbox = fs.existsSync('/code-runtime') } catch {}
      return inSandbox
        ? { bootstrap: attempt('/code-runtime/node_modules/@code-runtime/core/package.json'), root: attempt('/escaped.txt') }
        : { bootstrap: 'not here', root: 'not here' }`,
    // Outside the container the bootstrap is the host's own tree; the test does not touch it.
    expected: {
      process: { bootstrap: 'not here', root: 'not here' },
      'process, native': { bootstrap: 'not here', root: 'not here' },
      container: { bootstrap: 'EROFS', root: 'EROFS' },
    },
  },
  {
    // Execution: start a program; in the container only what is mounted exists.
    name: 'spawns a child process and a shell',
    program: () => `
      const { execFileSync } = require('node:child_process')
      const attempt = (file, args) => { try { return String(execFileSync(file, args, { env: {}, stdio: ['ignore', 'pipe', 'ignore'] })) } catch (error) { return error.code } }
      return { node: attempt(process.execPath, ['-e', 'process.stdout.write("child ran")']), shell: attempt('/bin/sh', ['-c', 'echo shell ran']) }`,
    expected: {
      process: { node: 'ERR_ACCESS_DENIED', shell: 'ERR_ACCESS_DENIED' },
      'process, native': { node: 'child ran', shell: 'shell ran\n' },
      container: { node: 'child ran', shell: 'ENOENT' },
    },
  },
  {
    // Denial of service: a fork bomb, bounded by the test at 40 children, each kept alive.
    name: 'runs a fork bomb',
    program: host => `
      const { spawn } = require('node:child_process')
      let sleeper = false
      try { sleeper = require('node:fs').existsSync('/bin/sleep') } catch {}
      let started = 0, stopped = null
      while (started < 40 && stopped === null) {
        try {
          const child = sleeper
            ? spawn('/bin/sleep', ['1000.${host.marker}'], { stdio: 'ignore' })
            : spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(host.marker)}], { stdio: 'ignore' })
          stopped = await new Promise((resolve) => { child.once('spawn', () => resolve(null)); child.once('error', (error) => resolve(error.code)) })
        } catch (error) { stopped = error.code }
        if (stopped === null) started++
      }
      return { started, stopped }`,
    expected: {
      process: { started: 0, stopped: 'ERR_ACCESS_DENIED' },
      // Not contained: only the test's own bound stops it. The group kill ends them all (below).
      'process, native': { started: 40, stopped: null },
      // The sandbox's task limit (pids cgroup here; RLIMIT_NPROC for a non-root host) stops it,
      // or takes the escaped Node itself down when it cannot start a thread.
      container: (result: CodeRunResult) => {
        if (result.error !== undefined) {
          assert.equal(result.error.kind, 'worker-exit')
          return
        }
        const value = result.value as { started: number; stopped: string | null }
        assert.ok(value.started < 40, `started ${value.started}`)
        assert.equal(value.stopped, 'EAGAIN')
      },
    },
    afterwards: async (_setting, host) => {
      assert.deepEqual(await findSurvivorsMarked(host.marker), [])
    },
  },
  {
    // Network: a TCP connection to a server the host listens on at 127.0.0.1.
    name: "opens a TCP connection to the host's loopback",
    program: host => `
      return await new Promise((resolve) => {
        const socket = require('node:net').connect(${host.port}, '127.0.0.1')
        socket.once('connect', () => { socket.destroy(); resolve('connected') })
        socket.once('error', (error) => resolve(error.code))
      })`,
    // Node's permission model has a network permission from Node 25 on (`--allow-net`, which the
    // child is not given); on Node 20, 22 and 24 the process backend cannot stop this.
    expected: {
      process: PERMISSION_MODEL_CONTAINS_NETWORK ? 'ERR_ACCESS_DENIED' : 'connected',
      'process, native': 'connected',
      container: 'ECONNREFUSED',
    },
  },
  {
    // Signals: the host's pid (SIGUSR2, which the test counts instead of dying).
    name: "sends a signal to the host's pid",
    program: host => `try { process.kill(${host.pid}, 'SIGUSR2'); return 'sent' } catch (error) { return error.code }`,
    expected: { process: 'sent', 'process, native': 'sent', container: 'ESRCH' },
  },
]

function check(expectation: Expectation, result: CodeRunResult): void {
  if (typeof expectation === 'function') {
    ;(expectation as (result: CodeRunResult) => void)(result)
    return
  }
  assert.equal(result.error, undefined, result.error?.message)
  assert.deepEqual(result.value, expectation)
}

describe('hostile escaped program: the OS boundary of each backend', () => {
  const runtimes = new Map<Setting, HookedRuntime>()
  let server: Awaited<ReturnType<typeof listenOnLoopback>>
  let writeFolder: string
  let host: Omit<Host, 'marker'>
  let reportOnSignal = false
  const onSignal = (signal: NodeJS.Signals): void => {
    signalsReceived.push(signal)
  }

  before(async () => {
    process.env['CODE_RUNTIME_HOSTILE_SECRET'] = `secret-${Math.random().toString(36).slice(2)}`
    process.on('SIGUSR2', onSignal)
    // Node 24's test runner turns on diagnostic reports on SIGUSR2: each signal would write a
    // report file into the working directory (the checkout).
    reportOnSignal = process.report.reportOnSignal
    process.report.reportOnSignal = false
    server = await listenOnLoopback()
    const root = findRepositoryRoot()
    writeFolder = join(root, 'packages', 'process', 'dist', 'hostile-writes')
    mkdirSync(writeFolder, { recursive: true })
    host = {
      pid: process.pid,
      port: server.port,
      projectFile: join(root, 'package.json'),
      writeTarget: join(writeFolder, 'escaped.txt'),
    }
    assert.ok(readFileSync(host.projectFile, 'utf8').length > 0)
    const config = {
      computeMs: 10_000,
      maxWallMs: 20_000,
      maxOldGenerationSizeMb: 64,
      maxMemoryMb: 64 + NODE_BASELINE_MEMORY_MB,
    }
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

  after(async () => {
    await Promise.all([...runtimes.values()].map(runtime => runtime.dispose()))
    await server.close()
    process.off('SIGUSR2', onSignal)
    process.report.reportOnSignal = reportOnSignal
    delete process.env['CODE_RUNTIME_HOSTILE_SECRET']
    rmSync(writeFolder, { recursive: true, force: true })
  })

  for (const attack of ATTACKS) {
    describe(attack.name, () => {
      for (const setting of SETTINGS) {
        it(`${setting}: ${describeExpectation(attack.expected[setting])}`, async () => {
          const runtime = runtimes.get(setting) as HookedRuntime
          const marker = `${Math.floor(Math.random() * 1e9)}${process.pid}`
          const connectionsBefore = server.connections()
          const signalsBefore = signalsReceived.length
          rmSync(host.writeTarget, { force: true })
          const result = await runtime.run({ program: attack.program({ ...host, marker }), bindings: [] })
          check(attack.expected[setting], result)
          await attack.afterwards?.(setting, { ...host, marker })
          if (attack.name.includes('TCP'))
            assert.equal(server.connections() - connectionsBefore, attack.expected[setting] === 'connected' ? 1 : 0)
          if (attack.name.includes('signal')) {
            // A signal reaches the host's handler a moment after the sender's kill() returned.
            const expected = setting === 'container' ? 0 : 1
            for (let attempt = 0; attempt < 100 && signalsReceived.length - signalsBefore < expected; attempt++) {
              await new Promise(resolve => setTimeout(resolve, 20))
            }
            assert.equal(signalsReceived.length - signalsBefore, expected)
          }
          // The host is fine and the runtime serves the next program.
          assert.equal((await runtime.run({ program: 'return 6 * 7', bindings: [] })).value, 42)
        })
      }
    })
  }
})

function describeExpectation(expectation: Expectation): string {
  return typeof expectation === 'function' ? 'bounded by the sandbox' : JSON.stringify(expectation)
}
