// A host run with a V8 flag that V8 folds into its cache check (on every version `--expose-gc`;
// on Node 20 even `--max-old-space-size`) makes V8 refuse the code caches the build wrote; the
// first worker then hands the caches it made to the host, and the next workers start from those.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const PROBE = fileURLToPath(new URL('./fixtures/code-cache-handoff-probe.js', import.meta.url))

describe('code caches handed over within a process', () => {
  it(
    'let later workers skip the compile the build cache no longer saves under a V8 flag',
    { timeout: 60_000 },
    async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', PROBE], { env: {} })
      const report = JSON.parse(stdout) as {
        first: unknown
        held: boolean
        contextCaches: number
        second: unknown
        values: unknown[]
      }
      const first = report.first as { bundleRejected: boolean; rejectedContextScripts: string[] }
      assert.equal(first.bundleRejected, true, 'the flag makes V8 refuse the build cache of the bundle')
      assert.ok(first.rejectedContextScripts.length > 0, 'and those of the in-context scripts')
      assert.equal(report.held, true, 'the first worker handed its caches over')
      assert.ok(report.contextCaches >= 10, `${report.contextCaches} in-context script caches`)
      assert.deepEqual(report.second, { bundleRejected: false, rejectedContextScripts: [] })
      assert.deepEqual(report.values, [
        [0, 36],
        [1, 36],
        [2, 36],
      ])
    },
  )
})
