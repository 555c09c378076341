// maxMessageBytes bounds each frame on the wire. Traffic over it never reaches the other side:
// each case fails where the program can read why, naming the limit.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { CodeBindingNamespace, CodeJsonValue } from '@code-runtime/core'
import { startProcessRuntime } from './start.js'

const LIMIT = 1_048_576
const TWO_MB = 2 * 1024 * 1024

const tools: CodeBindingNamespace = {
  global: 'tools',
  functions: {
    big: async (args: unknown) => 'x'.repeat((args as { bytes: number }).bytes),
    length: async (args: unknown) => (args as { text: string }).text.length as CodeJsonValue,
  },
}

describe("maxMessageBytes: the wire's frame limit", () => {
  let started: Awaited<ReturnType<typeof startProcessRuntime>>
  before(async () => {
    started = await startProcessRuntime({ maxMessageBytes: LIMIT })
  })
  after(() => started.dispose())
  const run = (program: string) => started.runtime.run({ program, bindings: [tools] })

  it('carries a binding result just under the limit', async () => {
    const result = await run(`return (await tools.big({ bytes: ${LIMIT - 1024} })).length`)
    assert.equal(result.value, LIMIT - 1024)
  })

  it('rejects the call in the program when a binding result is over the limit', async () => {
    const result = await run(
      `try { await tools.big({ bytes: ${TWO_MB} }); return 'delivered' } catch (error) { return error.message }`,
    )
    assert.match(
      String(result.value),
      /tool result of \d+ bytes is over the sandbox's message limit \(maxMessageBytes: 1048576 bytes\)/,
    )
  })

  it('rejects the call in the program when its arguments are over the limit', async () => {
    const result = await run(
      `try { return await tools.length({ text: 'y'.repeat(${TWO_MB}) }) } catch (error) { return error.message }`,
    )
    assert.match(
      String(result.value),
      /arguments of \d+ bytes is over the sandbox's message limit \(maxMessageBytes: 1048576 bytes\)/,
    )
  })

  it('fails the run as exception when the return value is over the limit', async () => {
    const result = await run(`return 'z'.repeat(${TWO_MB})`)
    assert.equal(result.error?.kind, 'exception')
    assert.match(
      result.error?.message ?? '',
      /return value of \d+ bytes is over the sandbox's message limit \(maxMessageBytes: 1048576 bytes\)/,
    )
  })

  it('fails the run as exception when one log entry is over the limit, keeping earlier logs', async () => {
    const result = await run(`console.log('first')\nconsole.log('w'.repeat(${TWO_MB}))\nreturn 1`)
    assert.equal(result.error?.kind, 'exception')
    assert.match(result.error?.message ?? '', /log entry of \d+ bytes is over the sandbox's message limit/)
    assert.deepEqual(result.logs, ['first'])
  })

  it('stays usable after each', async () => {
    assert.equal((await run('return 6 * 7')).value, 42)
  })
})

describe('the wire at its default limit', () => {
  it('returns a 5 MB binding result through a program', async () => {
    const started = await startProcessRuntime({})
    try {
      const result = await started.runtime.run({
        program: 'const text = await tools.big({ bytes: 5_000_000 })\nreturn text',
        bindings: [tools],
      })
      assert.equal(result.error, undefined)
      assert.equal((result.value as string).length, 5_000_000)
    } finally {
      await started.dispose()
    }
  })
})
