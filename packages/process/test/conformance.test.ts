import { runConformanceSuite } from '@code-runtime/core/conformance'
import { startContainerRuntime, startProcessRuntime } from './start.js'

// Children start in tens of milliseconds; three spawned ahead keep hundreds of short runs in a
// row from waiting on each spawn. Behaviour is the same with one.
const SPAWN_AHEAD = 3

// The seam's behaviour, checked the same way for every backend.
runConformanceSuite({
  name: 'process',
  isolation: 'process',
  start: config => startProcessRuntime({ ...config, spawnAhead: SPAWN_AHEAD }),
})

runConformanceSuite({
  name: 'container',
  isolation: 'container',
  start: config => startContainerRuntime({ ...config, spawnAhead: SPAWN_AHEAD }),
})
