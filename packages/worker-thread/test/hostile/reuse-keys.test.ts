// Reuse mode with reuse keys: runs of one key share a worker, runs of different keys never do.
// Which worker serves a run is counted on the host (Node announces every new worker on
// `process`), never through anything a program can see. One tenant (key) poisons everything it
// can reach and arms work that would surface later; another tenant's run then looks for any of it.
// With spawnAhead 0 every worker is spawned on demand, so the spawn count tells exactly when a
// run got a worker of its own.
import { afterEach, beforeEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { countWorkerSpawns, echoTools, outcomeOf, startWorkerRuntime } from '../start.js'

/** Objects a program can reach whose constructor chain the escapes in escapes.test.ts try. */
const ESCAPE_TARGETS = ['this', 'globalThis', 'tools.echo', 'tools.echo(1)', 'console.log', 'setTimeout(() => {}, 1)', 'process.stdout.write', 'structuredClone']

/** Runs `body` (a function body) through each target's realm Function; yields each outcome. */
function throughEveryEscape(body: string): string {
  return `const escapes = []
for (const reach of [${ESCAPE_TARGETS.map((target) => `() => ${target}`).join(', ')}]) {
  try {
    const target = reach()
    const realmFunction = Object.getPrototypeOf(target) === null ? target.constructor : target.constructor.constructor
    escapes.push(String(realmFunction(${JSON.stringify(body)})()))
  } catch (error) { escapes.push(error.name) }
}`
}

/**
 * What one tenant leaves behind: globals, poisoned built-ins and prototypes, a marker in any
 * realm an escape reaches, and timers and a promise chain that would log into whichever run
 * holds the worker when they fire.
 */
function poisonProgram(tenant: string): string {
  return `globalThis.leftBy = ${JSON.stringify(tenant)}
Object.prototype.pollutedBy = ${JSON.stringify(tenant)}
Array.prototype.push = function () { return -1 }
JSON.stringify = () => '"poisoned"'
Math.max = () => -1
Function.prototype.toString = () => 'function () { [native code] }'
setTimeout(() => console.log('timer of ${tenant}'), 40)
setInterval(() => console.log('interval of ${tenant}'), 20)
new Promise((resolve) => setTimeout(resolve, 60)).then(() => console.log('promise of ${tenant}'))
${throughEveryEscape(`globalThis.markedBy = ${JSON.stringify(tenant)}; return "marked"`)}
return "poisoned"`
}

/** Waits past every moment the poison was armed for, then reports what it finds. */
const PROBE = `await new Promise((resolve) => setTimeout(resolve, 120))
${throughEveryEscape('return typeof globalThis.markedBy')}
const list = [1]
return {
  globals: ['leftBy', 'markedBy'].filter((name) => name in globalThis),
  prototype: ({}).pollutedBy ?? null,
  push: list.push(2),
  stringify: JSON.stringify({ a: 1 }),
  max: Math.max(1, 2),
  toString: Function.prototype.toString.call(() => 1),
  escapes,
}`

const PRISTINE = {
  logs: [],
  value: {
    globals: [],
    prototype: null,
    push: 2,
    stringify: '{"a":1}',
    max: 2,
    toString: '() => 1',
    escapes: ESCAPE_TARGETS.map(() => 'EvalError'),
  },
}

describe('hostile program: reuse keys keep tenants apart in reuse mode', () => {
  let started: Awaited<ReturnType<typeof startWorkerRuntime>>
  // A runtime per test, so no test finds a worker an earlier one left idle.
  beforeEach(async () => {
    started = await startWorkerRuntime({ reuseWorkers: true, spawnAhead: 0 })
  })
  afterEach(() => started.dispose())

  /** Runs `program` for `reuseKey` and returns its outcome with the workers spawned for it. */
  async function runFor(reuseKey: string | undefined, program: string): Promise<{ outcome: ReturnType<typeof outcomeOf>; spawned: number }> {
    const spawns = countWorkerSpawns()
    try {
      const request = { program, bindings: [echoTools], ...(reuseKey === undefined ? {} : { reuseKey }) }
      const outcome = outcomeOf(await started.runtime.run(request))
      return { outcome, spawned: spawns.count }
    } finally {
      spawns.stop()
    }
  }

  it('serves the runs of one key from one worker', async () => {
    const key = 'tenant-a'
    assert.equal((await runFor(key, 'return 1')).spawned, 1, 'the first run of a key starts a worker')
    for (let run = 0; run < 4; run++) {
      const { outcome, spawned } = await runFor(key, 'return 1')
      assert.deepEqual(outcome, { logs: [], value: 1 })
      assert.equal(spawned, 0, `run ${run + 2} of the key reuses its worker`)
    }
  })

  it('gives another key, and a run without a key, a worker of its own', async () => {
    assert.equal((await runFor('tenant-a', 'return 1')).spawned, 1)
    assert.equal((await runFor('tenant-b', 'return 1')).spawned, 1, 'key B never gets the worker key A used')
    assert.equal((await runFor(undefined, 'return 1')).spawned, 1, 'a keyless run never gets a keyed worker')
    assert.equal((await runFor('tenant-c', 'return 1')).spawned, 1, 'a keyed run never gets the keyless worker')
    // Each of them kept its own worker.
    for (const key of ['tenant-a', 'tenant-b', undefined, 'tenant-c']) {
      assert.equal((await runFor(key, 'return 1')).spawned, 0, `${String(key)} reuses its own worker`)
    }
  })

  it("shows a run of key B nothing of key A's runs, and A nothing of B's", async () => {
    const [a, b] = ['tenant-a', 'tenant-b']
    assert.deepEqual(await runFor(a, poisonProgram(a)), { outcome: { logs: [], value: 'poisoned' }, spawned: 1 })
    assert.deepEqual(await runFor(b, PROBE), { outcome: PRISTINE, spawned: 1 }, "B's run on a worker of its own")
    assert.deepEqual(await runFor(b, poisonProgram(b)), { outcome: { logs: [], value: 'poisoned' }, spawned: 0 })
    assert.deepEqual(await runFor(a, PROBE), { outcome: PRISTINE, spawned: 0 }, "A's run back on A's worker")
    assert.deepEqual(await runFor(undefined, PROBE), { outcome: PRISTINE, spawned: 1 }, 'a keyless run on a worker of its own')
  })

  it('keeps tenants apart when their runs overlap', { timeout: 60_000 }, async () => {
    const keys = ['tenant-a', 'tenant-b', 'tenant-c', 'tenant-d']
    const rounds = 3
    const spawns = countWorkerSpawns()
    try {
      // Each caller poisons as its own tenant, then probes, while the other three do the same.
      await Promise.all(keys.map(async (key) => {
        for (let round = 0; round < rounds; round++) {
          assert.deepEqual(outcomeOf(await started.runtime.run({ program: poisonProgram(key), bindings: [echoTools], reuseKey: key })), { logs: [], value: 'poisoned' })
          assert.deepEqual(outcomeOf(await started.runtime.run({ program: PROBE, bindings: [echoTools], reuseKey: key })), PRISTINE, `${key} round ${round}`)
        }
      }))
      // Isolation is what the probes above assert. How many workers it took depends on timing: a
      // run waits only briefly for its key's recycled worker, so on a loaded machine some runs get
      // a fresh one. Never fewer than one per tenant, never more than one per run.
      const runs = keys.length * rounds * 2
      assert.ok(spawns.count >= keys.length && spawns.count <= runs, `${spawns.count} workers for ${runs} runs of ${keys.length} tenants`)
    } finally {
      spawns.stop()
    }
  })
})
