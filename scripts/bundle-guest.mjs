// Bundles each backend's guest entry (built by `tsc -b`) with everything it imports into one
// CommonJS file beside it. A fresh worker that loads its guest half as ES modules pays for the
// ESM loader and ~30 module fetches on every spawn (measured: about 20 ms of a ~45 ms spawn on
// 2 cores); one CommonJS file is read and compiled in a single step. The same holds for a child
// process's guest half.
//
// The worker's bundle also gets V8 code caches beside it, made by running the bundle once in a
// worker as a fresh substrate would: the bundle's own (`worker-entry.cjs.v8cache`), which a small
// loader (`worker-loader.cjs`, the worker's main module) compiles the bundle with, and its
// in-context scripts' (`worker-entry.cjs.contexts.v8cache`), which the bundle reads. See
// packages/worker-thread/src/guest/bundle-code-cache.ts.
//
// Run by `npm run build` and by each package's prepack, so a packed tarball carries the bundle.
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Guest entries and their bundles, relative to the repository. */
const GUEST_BUNDLES = [
  {
    entry: 'packages/worker-thread/dist/src/guest/worker-entry.js',
    bundle: 'packages/worker-thread/dist/src/guest/worker-entry.cjs',
  },
  {
    entry: 'packages/worker-thread/dist/src/guest/worker-loader.js',
    bundle: 'packages/worker-thread/dist/src/guest/worker-loader.cjs',
  },
  {
    entry: 'packages/process/dist/src/guest/child-entry.js',
    bundle: 'packages/process/dist/src/guest/child-entry.cjs',
  },
]

for (const { entry, bundle } of GUEST_BUNDLES) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // The guest's lazy loading of node:crypto asks for its own URL; a CommonJS file has none.
    define: { 'import.meta.url': '__guestBundleUrl' },
    banner: { js: "const __guestBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'silent',
  })
  // A warning (say, an import the bundle cannot resolve) would be a broken guest at run time.
  if (result.warnings.length > 0) {
    for (const warning of result.warnings) console.error(`${bundle}: ${warning.text}`)
    process.exit(1)
  }
}

/**
 * Runs the worker bundle once in a worker started as the substrate starts its workers (no flags,
 * an empty environment: V8 rejects a cache made under other flags), then saves the code cache of
 * everything that run compiled. The worker's own guest posts `guest-ready` on the way; the
 * producer's `cache-written` follows once the file is there.
 */
async function writeWorkerCodeCache() {
  const cacheModule = new URL('../packages/worker-thread/dist/src/guest/bundle-code-cache.js', import.meta.url).href
  const bundlePath = fileURLToPath(
    new URL('../packages/worker-thread/dist/src/guest/worker-entry.cjs', import.meta.url),
  )
  const producer = `
    const { parentPort } = require('node:worker_threads')
    const { writeFileSync } = require('node:fs')
    const { serialize } = require('node:v8')
    import(${JSON.stringify(cacheModule)}).then(({ runBundle, codeCachePath, contextCodeCachePath }) => {
      const bundlePath = ${JSON.stringify(bundlePath)}
      const { script, exports } = runBundle(bundlePath, false)
      writeFileSync(codeCachePath(bundlePath), script.createCachedData())
      writeFileSync(contextCodeCachePath(bundlePath), serialize(exports.contextScriptCodeCaches()))
      parentPort.postMessage({ kind: 'cache-written' })
    })`
  // A stale cache must not be read by the run that makes the new one.
  rmSync(`${bundlePath}.v8cache`, { force: true })
  rmSync(`${bundlePath}.contexts.v8cache`, { force: true })
  await new Promise((resolve, reject) => {
    const worker = new Worker(producer, {
      eval: true,
      env: {},
      execArgv: [],
      argv: [],
      workerData: { maxArrayBufferBytes: 256 * 1024 * 1024 },
    })
    let written = false
    worker.on('message', message => {
      if (message?.kind !== 'cache-written') return
      written = true
      void worker.terminate()
    })
    worker.on('error', reject)
    worker.on('exit', code => {
      if (written) resolve()
      else reject(new Error(`the code-cache worker exited (${code}) before writing the cache`))
    })
  })
}

await writeWorkerCodeCache()
