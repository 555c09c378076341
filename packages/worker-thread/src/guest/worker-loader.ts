/**
 * The worker thread's main module: a small loader that runs the guest bundle (`worker-entry.cjs`,
 * the real entry) through the code cache the build left beside it; see bundle-code-cache.ts.
 */
import { fileURLToPath } from 'node:url'
import { runBundle } from './bundle-code-cache.js'

runBundle(fileURLToPath(new URL('./worker-entry.cjs', import.meta.url)), true)
