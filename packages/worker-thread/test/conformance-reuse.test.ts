import { runConformanceSuite } from '@code-runtime/core/conformance'
import { startWorkerRuntime } from './start.js'

// The opt-in high-throughput mode reuses workers across runs (a fresh context each time) and
// must still show the whole contract, no state across runs included.
runConformanceSuite({
  name: 'worker-thread (reuseWorkers)',
  isolation: 'worker-thread',
  start: config => startWorkerRuntime({ ...config, reuseWorkers: true }),
})
