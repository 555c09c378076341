/**
 * The suite must fail a backend that breaks the seam, not only pass a correct one. This runs it
 * against `broken-stub.fixture.ts` in a child test process and checks which checks failed.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'node:test'

const FIXTURE = fileURLToPath(new URL('./broken-stub.fixture.js', import.meta.url))

/** Runs the fixture with the TAP reporter and returns each check's name and whether it passed. */
function runFixture(): Map<string, boolean> {
  const env = { ...process.env }
  // Set by the parent test runner; the child would otherwise report in the parent's wire format.
  delete env['NODE_TEST_CONTEXT']
  const child = spawnSync(process.execPath, ['--test', '--test-reporter=tap', FIXTURE], { env, encoding: 'utf8' })
  assert.notEqual(child.status, 0, 'the suite fails the broken stub')
  const outcomes = new Map<string, boolean>()
  for (const line of child.stdout.split('\n')) {
    const match = /^\s*(not ok|ok) \d+ - (.*)$/.exec(line)
    if (match !== null) outcomes.set(match[2] ?? '', match[1] === 'ok')
  }
  return outcomes
}

void describe('the conformance suite against a broken stub', () => {
  const outcomes = runFixture()

  const expectFailed = [
    "reports language 'typescript'",
    'rejects the global "$tools" (has a $ (refused for portability)) as CODE_RUNTIME_INVALID_BINDINGS',
    'rejects a duplicate global',
    'rejects the memberNameProperty "name"',
    'rejects a program that is not a string as CODE_RUNTIME_INVALID_REQUEST',
    'rejects run() after disposal as CODE_RUNTIME_DISPOSED',
  ]
  for (const name of expectFailed) {
    void it(`fails the check "${name}"`, () => {
      assert.equal(
        outcomes.get(name),
        false,
        `the check ${JSON.stringify(name)} ${outcomes.has(name) ? 'passed' : 'did not run'}`,
      )
    })
  }

  void it("passes the check the stub gets right: reports isolation 'process'", () => {
    assert.equal(outcomes.get("reports isolation 'process'"), true)
  })
})
