import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { McpProxyError } from './errors.js'
import {
  DEFAULT_BACKEND,
  loadProcessBackend,
  PROCESS_PACKAGE,
  startBackend,
  startChosenBackend,
  type BackendName,
} from './runtime-backend.js'

// The default backend may not work on every machine (the process backend needs Linux's /proc and
// prlimit). The starter is replaced here so the machine need not lack anything.
function startWhereProcessIsUnavailable(
  name: BackendName,
  budgets: { readonly maxWallMs: number },
): ReturnType<typeof startBackend> {
  if (name === 'process') {
    return Promise.reject(
      new McpProxyError('MCP_PROXY_BACKEND_UNAVAILABLE', '--backend process: this host cannot run it.', {
        value: name,
      }),
    )
  }
  return startBackend(name, budgets)
}

/** A host without a working bubblewrap: the container backend refuses as it does there. */
function startWhereContainerIsUnavailable(
  name: BackendName,
  budgets: { readonly maxWallMs: number },
): ReturnType<typeof startBackend> {
  if (name === 'container') {
    return Promise.reject(
      new McpProxyError(
        'MCP_PROXY_BACKEND_UNAVAILABLE',
        '--backend container: bubblewrap could not start a sandbox on this machine.',
        { value: name },
      ),
    )
  }
  return startBackend(name, budgets)
}

describe('the default backend', () => {
  // Node's permission model is not a security boundary against malicious code; bubblewrap is.
  it('is the container on Linux', () => {
    assert.equal(DEFAULT_BACKEND, process.platform === 'linux' ? 'container' : 'worker-thread')
  })

  it('starts the container where bubblewrap works, with no note', { skip: process.platform !== 'linux' }, async () => {
    const notes: string[] = []
    const started = await startChosenBackend(DEFAULT_BACKEND, false, { maxWallMs: 5_000 }, line => notes.push(line))
    try {
      assert.equal(started.backend, 'container')
      assert.equal(started.runtime.isolation, 'container')
      assert.deepEqual(notes, [])
    } finally {
      await started.dispose()
    }
  })

  it(
    'falls back to child processes where bubblewrap cannot run, saying in one line what that means',
    { skip: process.platform !== 'linux' },
    async () => {
      const notes: string[] = []
      const started = await startChosenBackend(
        'container',
        false,
        { maxWallMs: 5_000 },
        line => notes.push(line),
        startWhereContainerIsUnavailable,
      )
      try {
        assert.equal(started.backend, 'process')
        assert.equal(started.runtime.isolation, 'process')
        assert.equal(notes.length, 1)
        assert.match(
          notes[0] ?? '',
          /^--backend container: bubblewrap could not start a sandbox on this machine\. Running programs in child processes under Node's permission model instead, which by Node's own account is not a security boundary against malicious code; make bubblewrap work/,
        )
      } finally {
        await started.dispose()
      }
    },
  )
})

describe('startChosenBackend', () => {
  it('falls back to worker threads, with a note, when the default backend cannot work here', async () => {
    const notes: string[] = []
    const started = await startChosenBackend(
      'process',
      false,
      { maxWallMs: 5_000 },
      line => notes.push(line),
      startWhereProcessIsUnavailable,
    )
    try {
      assert.equal(started.runtime.isolation, 'worker-thread')
      assert.equal(notes.length, 1)
      assert.match(
        notes[0] ?? '',
        /^--backend process: this host cannot run it\. Running programs in worker threads instead/,
      )
    } finally {
      await started.dispose()
    }
  })

  it('refuses instead when that backend was chosen explicitly', async () => {
    await assert.rejects(
      startChosenBackend(
        'process',
        true,
        { maxWallMs: 5_000 },
        () => assert.fail('no fallback note'),
        startWhereProcessIsUnavailable,
      ),
      (error: unknown) => McpProxyError.is(error) && error.code === 'MCP_PROXY_BACKEND_UNAVAILABLE',
    )
  })
})

/** What Node rejects `import(specifier)` with when no such package is installed. */
function packageNotFound(specifier: string): Error {
  return Object.assign(
    new Error(
      `Cannot find package '${specifier}' imported from /app/node_modules/@code-runtime/mcp/dist/src/runtime-backend.js`,
    ),
    { code: 'ERR_MODULE_NOT_FOUND' },
  )
}

describe('loadProcessBackend', () => {
  it('fails as Node does for a package that is not installed (the form the loader reads)', async () => {
    const specifier: string = '@code-runtime/not-installed-anywhere'
    await assert.rejects(import(specifier), (error: unknown) => {
      assert.equal((error as { code?: unknown }).code, 'ERR_MODULE_NOT_FOUND')
      assert.ok(
        (error as Error).message.startsWith(`Cannot find package '${specifier}' imported from `),
        (error as Error).message,
      )
      return true
    })
  })

  it('names the package to install when @code-runtime/process is missing', async () => {
    await assert.rejects(
      loadProcessBackend('container', specifier => Promise.reject(packageNotFound(specifier))),
      (error: unknown) => {
        assert.ok(McpProxyError.is(error))
        assert.equal(error.code, 'MCP_PROXY_BACKEND_UNAVAILABLE')
        assert.equal(
          error.message,
          `--backend container needs ${PROCESS_PACKAGE}, which is not installed: run \`npm install ${PROCESS_PACKAGE}\` beside @code-runtime/mcp, or use --backend worker-thread.`,
        )
        return true
      },
    )
  })

  it('tells a broken installation from a missing one', async () => {
    // Installed, but one of its own dependencies is not: reinstalling is the fix, not installing.
    await assert.rejects(
      loadProcessBackend('process', () => Promise.reject(packageNotFound('@code-runtime/worker-thread'))),
      (error: unknown) => {
        assert.ok(McpProxyError.is(error))
        assert.match(
          error.message,
          /^--backend process: @code-runtime\/process is installed but failed to load \(Cannot find package '@code-runtime\/worker-thread'/,
        )
        return true
      },
    )
  })

  it('loads the backend class from the installed package', async () => {
    assert.equal(typeof (await loadProcessBackend('process')), 'function')
  })
})
