// No path of the project may be visible inside the container, not even to a program that
// escaped to the child's main realm with Node's full authority: the program reads everything
// /proc shows it about every process it can see (command lines, environments, mount tables,
// memory maps, working directories, open files) and what Node tells it about itself. The
// process backend after a native escape is the probe's own check: the same reads find the
// project's paths there.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { realpathSync } from 'node:fs'
import { startHookedRuntime, type HookedRuntime } from '../start.js'
import { findRepositoryRoot } from './host-probes.js'

/** Every text the program can find about itself and its neighbours, keyed by where it came from. */
const PROBE_PROGRAM = `
  const fs = require('node:fs')
  const found = {}
  const keep = (source, read) => { try { found[source] = String(read()) } catch (error) { found[source] = 'refused: ' + error.code } }
  let pids = []
  // The sandbox holds a few processes; the bound keeps the output small where the whole host shows.
  try { pids = fs.readdirSync('/proc').filter((entry) => /^[0-9]+$/.test(entry)).slice(0, 64) } catch {}
  for (const pid of ['self', 'thread-self', ...pids]) {
    const base = '/proc/' + pid + '/'
    for (const file of ['cmdline', 'environ', 'mountinfo', 'mounts', 'mountstats', 'maps', 'status', 'stat', 'cgroup', 'comm', 'sched', 'limits']) {
      keep(base + file, () => fs.readFileSync(base + file, 'latin1'))
    }
    for (const link of ['cwd', 'root', 'exe']) keep(base + link, () => fs.readlinkSync(base + link))
    let descriptors = []
    try { descriptors = fs.readdirSync(base + 'fd') } catch {}
    for (const fd of descriptors) keep(base + 'fd/' + fd, () => fs.readlinkSync(base + 'fd/' + fd))
  }
  for (const file of ['/proc/mounts', '/proc/cmdline']) keep(file, () => fs.readFileSync(file, 'latin1'))
  keep('process.cwd()', () => process.cwd())
  keep('process.argv', () => process.argv.join(' '))
  keep('process.execPath', () => process.execPath)
  keep('process.env', () => JSON.stringify(process.env))
  keep('module paths', () => require.resolve.paths('anything').join(' '))
  keep('a stack', () => new Error('where am I').stack)
  keep('os.homedir()', () => require('node:os').homedir())
  return found`

/** The sources whose text holds any of `paths`. */
function sourcesNaming(found: Readonly<Record<string, string>>, paths: readonly string[]): string[] {
  return Object.entries(found)
    .filter(([, text]) => paths.some(path => text.includes(path)))
    .map(([source]) => source)
}

describe('hostile escaped program: no host path of the project inside the container', () => {
  let container: HookedRuntime
  let processNative: HookedRuntime
  let projectPaths: string[]

  before(async () => {
    const root = findRepositoryRoot()
    // The project as the host names it, and the host's working directory (bubblewrap's own PWD).
    projectPaths = [...new Set([root, realpathSync(root), process.cwd()].filter(path => path !== '/'))]
    const config = { computeMs: 20_000, maxWallMs: 60_000, spawnAhead: 0 }
    container = await startHookedRuntime('container', 'escaped-child-entry', { config, withoutPermissionModel: true })
    processNative = await startHookedRuntime('process', 'escaped-child-entry', { config, withoutPermissionModel: true })
  })

  after(() => Promise.all([container.dispose(), processNative.dispose()]))

  it("container: nothing it reads names the project or the host's working directory", async () => {
    const result = await container.run({ program: PROBE_PROGRAM, bindings: [] })
    assert.equal(result.error, undefined, result.error?.message)
    const found = result.value as Record<string, string>
    // The probe did read the sandbox: its mount table, its init's command line.
    assert.match(found['/proc/self/mountinfo'] ?? '', /\/code-runtime\/node_modules/)
    assert.match(found['/proc/1/cmdline'] ?? '', /bwrap/)
    assert.deepEqual(sourcesNaming(found, projectPaths), [])
  })

  it('process, native: the same reads do find the project (the probe works; not contained, as documented)', async () => {
    const result = await processNative.run({ program: PROBE_PROGRAM, bindings: [] })
    assert.equal(result.error, undefined, result.error?.message)
    const leaks = sourcesNaming(result.value as Record<string, string>, projectPaths)
    for (const source of ['/proc/self/cmdline', 'process.argv'])
      assert.ok(leaks.includes(source), `${source} in ${JSON.stringify(leaks)}`)
  })
})
