import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { emitSdk } from '../sdk/sdk-emitter.js'
import { createProgramChecker } from './program-checker.js'

describe('program checker', () => {
  const tools = [
    { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } },
  ]
  const options = {
    declarations: emitSdk(tools).declarations,
    namespace: 'tools',
    schemas: new Map(tools.map(tool => [tool.name, tool.inputSchema])),
  }
  const program = 'const x = 1\nfunction f(n: number) { return n * 2 }\nreturn await tools.add({ a: f(x) })'

  it('gives the host thread back at its time limit, saying the program was not checked', async () => {
    const checker = await createProgramChecker({ ...options, timeLimitMs: 0 })
    assert.throws(
      () => checker.check(program, 'calls'),
      /took longer than 0 ms and was stopped; the program was not checked/,
    )
  })

  it('checks within the default limit', async () => {
    const checker = await createProgramChecker(options)
    assert.deepEqual(checker.check(program, 'calls'), { refused: false, errors: [], hints: [] })
    assert.equal(checker.check('return await tools.add({ a: "1" })', 'calls').errors[0]?.category, 'wrong-type')
  })
})
