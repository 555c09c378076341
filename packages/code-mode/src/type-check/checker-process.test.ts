// The checker's own limits, in a child process of its own: a check that grows the compiler's heap
// past the child's cap ends as that check's failure (the host process lives on), and the next
// check gets a new child.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CheckerProcess } from './checker-process.js'
import { KeptNames } from './kept-names.js'
import { HOSTILE_CHECK_PROGRAM } from '../../test/hostile-check.js'

const SDK = 'declare const tools: { add(args: { a: number; b: number }): Promise<number> }'
describe('CheckerProcess', () => {
  const checkerProcess = new CheckerProcess({ maxHeapMb: 192 })
  after(() => checkerProcess.close())
  const checker = checkerProcess.checkerFor({
    declarations: SDK,
    namespace: 'tools',
    schemas: new Map(),
    timeLimitMs: 120_000,
  })

  it('checks programs and sessions in the child', async () => {
    const refused = await checker.check('return tools.ad({ a: 1, b: 2 })', 'calls')
    assert.equal(refused.refused, true)
    assert.equal(refused.errors[0]?.category, 'unknown-member')
    const names = new KeptNames()
    const first = await checker.checkInSession('const total = await tools.add({ a: 1, b: 2 })', 'calls', names)
    assert.deepEqual([...first.kept], [['total', 'number']])
    names.merge(first.kept)
    const second = await checker.checkInSession('return total.toFixed(1)', 'strict', names)
    assert.equal(second.check.refused, false)
    const third = await checker.checkInSession('return total.nope', 'strict', names)
    assert.equal(third.check.refused, true)
  })

  it('ends a check that grows the heap past the cap, and the next check runs in a new child', async () => {
    await assert.rejects(checker.check(HOSTILE_CHECK_PROGRAM, 'calls'), {
      message: 'The type check ran out of memory (192 MB) and was stopped; the program was not checked.',
    })
    assert.deepEqual(await checker.check('return await tools.add({ a: 1, b: 2 })', 'calls'), {
      refused: false,
      errors: [],
      hints: [],
    })
  })
})
