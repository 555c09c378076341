import { describeHostMemory } from '@code-runtime/core/conformance'
import { startContainerRuntime, startProcessRuntime } from './start.js'

describeHostMemory({ name: 'process', start: config => startProcessRuntime(config) })
describeHostMemory({ name: 'container', start: config => startContainerRuntime(config) })
