import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'
import { sleep, startRuntime } from './code-mode-runtime.js'

interface Span { readonly tool: string; readonly start: number; readonly end: number }

/** Tools that record when each call started and ended. */
function instrumentedTools(spans: Span[], aborted: string[]): CodeModeTool[] {
  const timed = (name: string, readOnly: boolean): CodeModeTool => ({
    name,
    description: `${readOnly ? 'Reads' : 'Writes'} something slowly.`,
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
    annotations: { readOnlyHint: readOnly },
    async execute(args, { signal }) {
      const start = performance.now()
      try {
        await sleep(40, signal)
      } catch (error) {
        aborted.push(`${name}#${(args as { id: number }).id}`)
        throw error
      }
      spans.push({ tool: `${name}#${(args as { id: number }).id}`, start, end: performance.now() })
      return { id: (args as { id: number }).id }
    },
  })
  return [
    timed('read-item', true),
    timed('write-item', false),
    {
      name: 'hang',
      description: 'Never finishes unless cancelled.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      execute: (_args, { signal }) => sleep(1_000_000, signal).then(() => null, (error: unknown) => {
        aborted.push('hang')
        throw error
      }),
    },
    {
      name: 'explode',
      description: 'Always fails.',
      inputSchema: { type: 'object' },
      execute: async () => {
        throw new Error('disk on fire')
      },
    },
    {
      name: 'nothing',
      description: 'Resolves nothing.',
      inputSchema: { type: 'object' },
      execute: async () => undefined,
    },
  ]
}

const overlaps = (a: Span, b: Span): boolean => a.start < b.end && b.start < a.end

describe('Code Mode dispatch', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  const spans: Span[] = []
  const aborted: string[] = []
  let codeMode: ReturnType<typeof createCodeMode>
  before(async () => {
    started = await startRuntime()
    codeMode = createCodeMode({ tools: instrumentedTools(spans, aborted), runtime: started.runtime, maxParallel: 3 })
  })
  after(() => started.dispose())

  it('overlaps read-only calls up to maxParallel and keeps submission order', async () => {
    spans.length = 0
    const output = await codeMode.run('return await Promise.all([1, 2, 3, 4].map((id) => tools.read_item({ id })))')
    assert.equal(output.isError, false)
    assert.deepEqual(output.structured.result, [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }])
    const byName = new Map(spans.map((span) => [span.tool, span]))
    const [one, two, three, four] = [1, 2, 3, 4].map((id) => byName.get(`read-item#${id}`) as Span)
    assert.ok(one && two && three && four)
    assert.ok(overlaps(one, two) && overlaps(two, three) && overlaps(one, three), 'the first three overlap')
    assert.ok(four.start >= Math.min(one.end, two.end, three.end), 'the fourth waits for a free slot')
    assert.ok(one.start <= two.start && two.start <= three.start)
  })

  it('runs a call that is not concurrency-safe alone', async () => {
    spans.length = 0
    const output = await codeMode.run(
      'return await Promise.all([tools.read_item({ id: 1 }), tools.write_item({ id: 2 }), tools.read_item({ id: 3 })])',
    )
    assert.equal(output.isError, false)
    const write = spans.find((span) => span.tool === 'write-item#2') as Span
    for (const read of spans.filter((span) => span.tool.startsWith('read-item'))) {
      assert.ok(!overlaps(read, write), `${read.tool} overlaps the write`)
    }
    const readThree = spans.find((span) => span.tool === 'read-item#3') as Span
    assert.ok(readThree.start >= write.end, 'calls made after the write start after it')
  })

  it('rejects invalid arguments before the tool runs, naming the field', async () => {
    spans.length = 0
    const output = await codeMode.run([
      'try { await tools.read_item({ id: "seven" }) } catch (error) {',
      '  return [error instanceof ToolCallError, error.toolName, error.message]',
      '}',
    ].join('\n'))
    assert.deepEqual(output.structured.result, [true, 'read_item', 'tools.read_item: args.id must be integer.'])
    assert.equal(spans.length, 0)
    assert.deepEqual(output.structured.calls, [])
  })

  it('reports a failed tool as a ToolCallError carrying the tool message', async () => {
    const output = await codeMode.run('try { await tools.explode({}) } catch (e) { return { is: e instanceof ToolCallError, name: e.toolName, message: e.message } }')
    assert.deepEqual(output.structured.result, { is: true, name: 'explode', message: 'disk on fire' })
    assert.equal(output.structured.calls[0]?.ok, false)
    assert.equal(output.structured.calls[0]?.error, 'disk on fire')
  })

  it('gives the program null for a tool that resolves nothing', async () => {
    const output = await codeMode.run('return await tools.nothing({})')
    assert.equal(output.structured.result, null)
  })

  it('aborts and drains in-flight calls when the run settles, and records them', async () => {
    const output = await codeMode.run('tools.hang({}); tools.hang({}); await tools.read_item({ id: 9 }); return "done early"')
    assert.equal(output.structured.result, 'done early')
    const hangs = output.structured.calls.filter((call) => call.tool === 'hang')
    assert.equal(hangs.length, 2, 'both hanging calls are drained before run_code returns')
    assert.ok(hangs.every((call) => !call.ok))
  })

  it('passes the caller abort to the tools and reports abort', async () => {
    aborted.length = 0
    const controller = new AbortController()
    setTimeout(() => controller.abort('user cancelled'), 50)
    const output = await codeMode.run('await tools.hang({}); return 1', { signal: controller.signal })
    assert.equal(output.isError, true)
    assert.equal(output.structured.error?.kind, 'abort')
    assert.match(output.text, /^code run failed \(abort\): user cancelled/)
    assert.deepEqual(aborted, ['hang'])
    assert.equal(output.structured.calls[0]?.ok, false)
  })

  it('starts no call after the run settled', async () => {
    spans.length = 0
    const output = await codeMode.run('setTimeout(() => tools.read_item({ id: 77 }), 5); return "quick"')
    assert.equal(output.structured.result, 'quick')
    await sleep(60)
    assert.equal(spans.some((span) => span.tool === 'read-item#77'), false)
  })
})
