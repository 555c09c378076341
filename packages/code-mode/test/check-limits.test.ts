// The type check runs in a worker thread with limits of its own: a program built to keep the
// compiler busy ends its check at the time limit, the host's event loop keeps turning meanwhile,
// the program then runs unchecked and says why, and the next check works.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'
import { HOSTILE_CHECK_PROGRAM } from './hostile-check.js'

const TOOLS: CodeModeTool[] = [
  {
    name: 'echo',
    description: 'Returns its text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: async args => (args as { text: string }).text,
  },
]

/** The longest gap between ticks of a 10 ms interval while `work` runs. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now()
  let stallMs = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    stallMs = Math.max(stallMs, now - last)
    last = now
  }, 10)
  try {
    return { value: await work(), stallMs }
  } finally {
    clearInterval(ticker)
  }
}

describe('the type check off the host thread', () => {
  it('stops a check that keeps the compiler busy at its limit while the host stays responsive, then runs the program unchecked', async () => {
    const started = await startRuntime()
    try {
      const codeMode = createCodeMode({ runtime: started.runtime, tools: TOOLS })
      await codeMode.check('')
      const startedAt = performance.now()
      const { value: output, stallMs } = await longestStall(() => codeMode.run(HOSTILE_CHECK_PROGRAM))
      const tookMs = performance.now() - startedAt
      assert.equal(output.isError, false, output.text)
      assert.equal(
        output.structured.uncheckedBecause,
        'The type check took longer than 5000 ms and was stopped; the program was not checked.',
      )
      assert.equal(output.text, `ran\n${output.structured.uncheckedBecause}`)
      // Before: 37-55 s on the host's own thread. The limit is 5 s; the rest is a loaded machine.
      assert.ok(tookMs < 20_000, `took ${Math.round(tookMs)} ms`)
      // Ticks every 10 ms throughout; a second is far above any pause a loaded machine makes.
      assert.ok(stallMs < 1_000, `the event loop stalled ${Math.round(stallMs)} ms`)
      // The next check works (on a new thread when the old one was stopped).
      const refused = await codeMode.run('return tools.ech({ text: 1 })')
      assert.equal(refused.structured.error?.kind, 'refused')
    } finally {
      await started.dispose()
    }
  })

  it('makes check() reject with CODE_MODE_CHECK_FAILED for that program', async () => {
    const started = await startRuntime()
    try {
      const codeMode = createCodeMode({ runtime: started.runtime, tools: TOOLS })
      await assert.rejects(codeMode.check(HOSTILE_CHECK_PROGRAM), {
        code: 'CODE_MODE_CHECK_FAILED',
        message: 'The type check took longer than 5000 ms and was stopped; the program was not checked.',
      })
      assert.deepEqual(await codeMode.check('return 1'), { refused: false, errors: [], hints: [] })
    } finally {
      await started.dispose()
    }
  })
})
