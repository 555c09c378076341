import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { McpProxyError } from './errors.js'
import { startBackend, startChosenBackend, type BackendName } from './runtime-backend.js'

// The default backend may not work on every machine (the process backend needs Linux's /proc and
// prlimit). The starter is replaced here so the machine need not lack anything.
function startWhereProcessIsUnavailable(name: BackendName, budgets: { readonly maxWallMs: number }): ReturnType<typeof startBackend> {
  if (name === 'process') {
    return Promise.reject(new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE', '--backend process: this host cannot run it.', { value: name }))
  }
  return startBackend(name, budgets)
}

describe('startChosenBackend', () => {
  it('falls back to worker threads, with a note, when the default backend cannot work here', async () => {
    const notes: string[] = []
    const started = await startChosenBackend('process', false, { maxWallMs: 5_000 }, (line) => notes.push(line), startWhereProcessIsUnavailable)
    try {
      assert.equal(started.runtime.isolation, 'worker-thread')
      assert.equal(notes.length, 1)
      assert.match(notes[0] ?? '', /^--backend process: this host cannot run it\. Running programs in worker threads instead/)
    } finally {
      await started.dispose()
    }
  })

  it('refuses instead when that backend was chosen explicitly', async () => {
    await assert.rejects(
      startChosenBackend('process', true, { maxWallMs: 5_000 }, () => assert.fail('no fallback note'), startWhereProcessIsUnavailable),
      (error: unknown) => McpProxyError.is(error) && error.code === 'MCP_PROXY_BACKEND_UNAVAILABLE',
    )
  })
})
