// A subverted child speaking garbage on the wire. The host's decoder refuses it without
// throwing, kills the child, and settles the run as worker-exit; no message shows a host path.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startHookedRuntime, type BackendName, type HookedRuntime } from '../start.js'
import { findRepositoryRoot } from './host-probes.js'

const FORGERIES = [
  // Framing: bytes that are not a frame of UTF-8 JSON.
  { name: 'garbage', what: 'a frame that is not UTF-8' },
  // Framing: a length header far over maxMessageBytes, refused before any body is buffered.
  { name: 'oversize', what: 'a length header of 4 GiB' },
  { name: 'not-json', what: 'a frame whose body is not JSON' },
  // Protocol: well-formed JSON of no known message kind.
  { name: 'unknown-kind', what: 'a message of an unknown kind' },
  // The child dies without a word.
  { name: 'exit', what: 'nothing, then exits' },
] as const

for (const backend of ['process', 'container'] as const satisfies readonly BackendName[]) {
  describe(`hostile child on the ${backend} backend: forged wire traffic`, () => {
    let runtime: HookedRuntime
    const repositoryRoot = findRepositoryRoot()
    before(async () => {
      runtime = await startHookedRuntime(backend, 'garbage-child-entry', {
        config: { maxWallMs: 10_000, maxMessageBytes: 1_048_576 },
      })
    })
    after(() => runtime.dispose())

    for (const forgery of FORGERIES) {
      it(`stops a child that sends ${forgery.what}: worker-exit`, async () => {
        const result = await runtime.run({ program: `/*${forgery.name}*/ return 1`, bindings: [] })
        assert.equal(result.error?.kind, 'worker-exit')
        assert.equal(result.value, undefined)
        assert.equal(result.error.message.includes(repositoryRoot), false)
        assert.match(result.error.message, /^The sandbox /)
      })
    }
  })
}
