// The backend
export { WorkerThreadCodeRuntime, WorkerThreadCodeRuntime as default } from './worker-thread-runtime.js'

// Its config
export {
  DEFAULT_WORKER_THREAD_CONFIG,
  resolveWorkerThreadConfig,
  type WorkerThreadConfig,
  type WorkerThreadConfigInput,
} from './config.js'
