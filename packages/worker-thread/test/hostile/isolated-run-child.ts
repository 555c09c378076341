// Child half of isolated-run.ts: starts a worker-thread runtime in this process, runs one program,
// disposes the runtime and prints the outcome as one JSON line. A V8 abort kills only this process.
import { startCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'
import type { IsolatedRequest } from './isolated-run.js'

const request = JSON.parse(process.argv[2] ?? '{}') as IsolatedRequest
const { runtime, dispose } = await startCodeRuntime(WorkerThreadCodeRuntime, request.config)
const result = await runtime.run({ program: request.program, bindings: [] })
// dispose() waits for the worker to exit: it never returns while the thread is stuck in native code.
await dispose()
process.stdout.write(
  `${JSON.stringify({ error: result.error, value: 'value' in result ? result.value : undefined })}\n`,
)
