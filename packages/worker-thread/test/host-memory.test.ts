import { describeHostMemory } from '@code-runtime/core/conformance'
import { startWorkerRuntime } from './start.js'

describeHostMemory({ name: 'worker-thread', start: config => startWorkerRuntime(config) })
