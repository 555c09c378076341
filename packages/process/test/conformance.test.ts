import { runConformanceSuite } from '@code-runtime/core/conformance'
import { startContainerRuntime, startProcessRuntime } from './start.js'

// The seam's behaviour, checked the same way for every backend.
runConformanceSuite({
  name: 'process',
  isolation: 'process',
  start: (config) => startProcessRuntime(config),
})

runConformanceSuite({
  name: 'container',
  isolation: 'container',
  start: (config) => startContainerRuntime(config),
})
