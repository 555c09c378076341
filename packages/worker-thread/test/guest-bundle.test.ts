// A fresh worker loads its guest half from one CommonJS file built by scripts/bundle-guest.mjs:
// an ES module graph there would cost every spawn the ESM loader and a fetch per module.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { outcomeOf, startWorkerRuntime } from './start.js'

const BUNDLE = new URL('../src/guest/worker-entry.cjs', import.meta.url)

describe('the worker guest bundle', () => {
  it('is one file that loads nothing but Node built-ins, and no ES module', async () => {
    const source = await readFile(BUNDLE, 'utf8')
    const required = [...source.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map(match => match[1])
    assert.ok(required.includes('node:vm'), "the scan sees the bundle's requires")
    assert.deepEqual(
      required.filter(specifier => specifier?.startsWith('node:') !== true),
      [],
    )
    assert.doesNotMatch(source, /\bimport\s*\(/)
  })

  it('comes with code caches that a worker started like a substrate accepts', async () => {
    // A cache V8 rejects costs nothing but the speed it was built for; this catches a build that
    // writes them under other flags or for another source.
    const probe = `
      const { parentPort, workerData } = require('node:worker_threads')
      import(workerData.module).then(({ runBundle, readContextCodeCaches }) => {
        const { cacheRejected, exports } = runBundle(workerData.bundle, true)
        const contextScriptsOffered = readContextCodeCaches(workerData.bundle).size
        parentPort.postMessage({ cacheRejected, contextScriptsOffered, contextScriptsRejected: exports.rejectedContextScriptCodeCaches() })
      })`
    const workerData = {
      module: new URL('../src/guest/bundle-code-cache.js', import.meta.url).href,
      bundle: fileURLToPath(BUNDLE),
    }
    const worker = new Worker(probe, {
      eval: true,
      env: {},
      execArgv: [],
      argv: [],
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    })
    try {
      const report = await new Promise<{ contextScriptsOffered: number }>((resolve, reject) => {
        // The bundle's own guest says `guest-ready` first.
        worker.on('message', (message: { kind?: unknown; contextScriptsOffered: number }) => {
          if (message.kind === undefined) resolve(message)
        })
        worker.once('error', reject)
      })
      // Every section of a program context (stack traces, guards, each web-global family) has its cache.
      assert.ok(report.contextScriptsOffered >= 10, `${report.contextScriptsOffered} context-script caches`)
      assert.deepEqual(report, {
        cacheRejected: false,
        contextScriptsOffered: report.contextScriptsOffered,
        contextScriptsRejected: [],
      })
    } finally {
      await worker.terminate()
    }
  })

  it('runs a program that needs the lazily loaded randomness service', async () => {
    const { runtime, dispose } = await startWorkerRuntime({ spawnAhead: 0 })
    try {
      const result = await runtime.run({ program: 'return crypto.randomUUID().length', bindings: [] })
      assert.deepEqual(outcomeOf(result), { logs: [], value: 36 })
    } finally {
      await dispose()
    }
  })
})
