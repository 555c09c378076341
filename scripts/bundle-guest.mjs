// Bundles each backend's guest entry (built by `tsc -b`) with everything it imports into one
// CommonJS file beside it. A fresh worker that loads its guest half as ES modules pays for the
// ESM loader and ~30 module fetches on every spawn (measured: about 20 ms of a ~45 ms spawn on
// 2 cores); one CommonJS file is read and compiled in a single step. The same holds for a child
// process's guest half.
//
// Run by `npm run build` and by each package's prepack, so a packed tarball carries the bundle.
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Guest entries and their bundles, relative to the repository. */
const GUEST_BUNDLES = [
  { entry: 'packages/worker-thread/dist/src/guest/worker-entry.js', bundle: 'packages/worker-thread/dist/src/guest/worker-entry.cjs' },
  { entry: 'packages/process/dist/src/guest/child-entry.js', bundle: 'packages/process/dist/src/guest/child-entry.cjs' },
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
