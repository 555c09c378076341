import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { McpProxyError } from '../errors.js'
import { parseKeysFile, readKeysFile } from './keys-file.js'
import { TokenRefusal } from './principal.js'

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

function setupFailure(run: () => unknown): McpProxyError {
  try {
    run()
  } catch (error) {
    assert.ok(McpProxyError.is(error), String(error))
    assert.equal(error.code, 'MCP_PROXY_AUTH_SETUP')
    return error
  }
  assert.fail('it was accepted')
}

describe('the keys file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'keys-file-'))
  after(() => rmSync(folder, { recursive: true, force: true }))

  function keysFile(text: string, mode = 0o600): string {
    const path = join(folder, `keys-${Math.random().toString(36).slice(2)}`)
    writeFileSync(path, text)
    chmodSync(path, mode)
    return path
  }

  it("names the principal of a known key, and refuses an unknown one, a key's hash and an empty token", async () => {
    const verifier = readKeysFile(
      keysFile(`# the team\nalice ${sha256('alice-key')}\n\nbob   ${sha256('bob-key').toUpperCase()}\n`),
    )
    assert.deepEqual(await verifier.verify('alice-key'), { name: 'alice', scopes: [], via: 'key' })
    assert.equal((await verifier.verify('bob-key')).name, 'bob')
    for (const token of ['carol-key', sha256('alice-key'), '', 'alice-key ']) {
      await assert.rejects(verifier.verify(token), (error: unknown) => {
        assert.ok(error instanceof TokenRefusal)
        assert.equal(error.reason, 'invalid_token')
        return true
      })
    }
  })

  it('is refused when others may read or write it, with the fix', () => {
    for (const mode of [0o644, 0o640, 0o620, 0o604]) {
      const failure = setupFailure(() => readKeysFile(keysFile(`alice ${sha256('k')}\n`, mode)))
      assert.match(failure.message, /chmod 600/)
    }
  })

  it('is refused when it cannot be read', () => {
    assert.match(setupFailure(() => readKeysFile(join(folder, 'missing'))).message, /cannot be read \(ENOENT\)/)
  })

  it('names the first line that breaks the format', () => {
    const cases: [string, RegExp][] = [
      ['alice', /line 1 is not "name sha256-hex-of-key"/],
      [`alice ${sha256('k')} extra`, /line 1 is not/],
      [`# ok\nalice abc`, /line 2: the key's hash must be 64 hex digits/],
      [`-alice ${sha256('k')}`, /line 1: a name is 1 to 64/],
      [`alice ${sha256('a')}\nalice ${sha256('b')}`, /line 2: "alice" is named twice/],
      ['# nobody\n', /names no principal/],
    ]
    for (const [text, message] of cases) assert.match(setupFailure(() => parseKeysFile(text, 'keys')).message, message)
  })
})
