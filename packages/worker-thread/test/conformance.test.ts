import { runConformanceSuite } from '@code-runtime/core/conformance'
import { startWorkerRuntime } from './start.js'

// The seam's behaviour, checked the same way for every backend.
runConformanceSuite({
  name: 'worker-thread',
  isolation: 'worker-thread',
  start: config => startWorkerRuntime(config),
})
