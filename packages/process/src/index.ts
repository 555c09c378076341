// The backends
export { ProcessCodeRuntime } from './process-runtime.js'
export { ContainerCodeRuntime } from './container-runtime.js'

// Their config
export {
  DEFAULT_CONTAINER_CONFIG,
  DEFAULT_PROCESS_CONFIG,
  NODE_BASELINE_MEMORY_MB,
  resolveContainerConfig,
  resolveProcessConfig,
  type ContainerConfig,
  type ContainerConfigInput,
  type ProcessConfig,
  type ProcessConfigInput,
} from './config.js'
