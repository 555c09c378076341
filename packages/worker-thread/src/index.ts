// The backend
export { WorkerThreadCodeRuntime, WorkerThreadCodeRuntime as default } from './worker-thread-runtime.js'

// Its config
export {
  DEFAULT_WORKER_THREAD_CONFIG,
  MAX_TIMER_MS,
  resolveWorkerThreadConfig,
  type WorkerThreadConfig,
  type WorkerThreadConfigInput,
} from './config.js'

// The transform step, usable on its own (for example to check a program before running it)
export { transformProgram, type TransformResult } from '@code-runtime/engine'
