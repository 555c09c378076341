import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'
import { createDeferred, sleep, startRuntime, type Deferred } from './code-mode-runtime.js'

/**
 * How long a read or write call holds its slot unless a check says otherwise. The dispatch rules
 * are checked on the order of start and end events, never on times, so this length only gives a
 * broken scheduler the chance to let another call in while one is running.
 */
const HOLD_MS = 40
/**
 * Only a broken scheduler, one that never lets `maxParallel` calls run at once, ever waits this
 * long: the calls then go on and the checks fail instead of hanging.
 */
const BROKEN_SCHEDULER_MS = 10_000

/** What the tools saw: `start <call>` and `end <call>` events in order, and calls aborted. */
class ToolEvents {
  order: string[] = []
  aborted: string[] = []
  /** Most calls in flight at once since the last reset. */
  maxInFlight = 0
  /** Decides how long a read or write call runs; a check may replace it. */
  hold: (call: string, signal: AbortSignal) => Promise<void> = (_call, signal) => sleep(HOLD_MS, signal)
  /** Resolved when a `hang` call starts. */
  hangStarted: Deferred<void> = createDeferred()

  /** Forgets everything seen, before a check. */
  reset(): void {
    Object.assign(this, new ToolEvents())
  }
}

/** Tools that record when each call started and ended. */
function instrumentedTools(events: ToolEvents): CodeModeTool[] {
  let inFlight = 0
  const held = (name: string, readOnly: boolean): CodeModeTool => ({
    name,
    description: `${readOnly ? 'Reads' : 'Writes'} something slowly.`,
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: readOnly },
    async execute(args, { signal }) {
      const call = `${name}#${(args as { id: number }).id}`
      events.order.push(`start ${call}`)
      events.maxInFlight = Math.max(events.maxInFlight, ++inFlight)
      try {
        await events.hold(call, signal)
      } catch (error) {
        events.aborted.push(call)
        throw error
      } finally {
        inFlight--
      }
      events.order.push(`end ${call}`)
      return { id: (args as { id: number }).id }
    },
  })
  return [
    held('read-item', true),
    held('write-item', false),
    {
      name: 'hang',
      description: 'Never finishes unless cancelled.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      execute: (_args, { signal }) => {
        events.hangStarted.resolve()
        return sleep(1_000_000, signal).then(
          () => null,
          (error: unknown) => {
            events.aborted.push('hang')
            throw error
          },
        )
      },
    },
    {
      name: 'block',
      description: 'Holds the only slot until cancelled.',
      inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      // Returns the waiting promise itself: it settles in the same turn as the abort event, as
      // fast as any tool can.
      execute: (args, { signal }) => {
        events.order.push(`start block#${(args as { id: number }).id}`)
        return sleep(1_000_000, signal)
      },
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

/**
 * A hold that keeps every call until `count` calls are in flight together, then lets them all
 * go; calls that start later pass straight through.
 */
function holdUntilInFlight(count: number): ToolEvents['hold'] {
  const together = createDeferred<void>()
  let waiting = 0
  // Counted from the first call, not from now: the run's type check comes first, and on a loaded
  // machine the first one (the checker's start-up) took longer than this whole allowance.
  let brokenScheduler: NodeJS.Timeout | undefined
  void together.promise.then(() => clearTimeout(brokenScheduler))
  return async () => {
    brokenScheduler ??= setTimeout(() => together.resolve(), BROKEN_SCHEDULER_MS).unref()
    if (++waiting >= count) together.resolve()
    await together.promise
  }
}

describe('Code Mode dispatch', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  const events = new ToolEvents()
  let codeMode: ReturnType<typeof createCodeMode>
  before(async () => {
    started = await startRuntime()
    codeMode = createCodeMode({ tools: instrumentedTools(events), runtime: started.runtime, maxParallel: 3 })
  })
  after(() => started.dispose())

  it('overlaps read-only calls up to maxParallel and keeps submission order', async () => {
    events.reset()
    events.hold = holdUntilInFlight(3)
    const output = await codeMode.run('return await Promise.all([1, 2, 3, 4].map((id) => tools.read_item({ id })))')
    assert.equal(output.isError, false)
    assert.deepEqual(output.structured.result, [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }])
    assert.deepEqual(
      events.order.slice(0, 3),
      ['start read-item#1', 'start read-item#2', 'start read-item#3'],
      'the first three run together, in order',
    )
    assert.equal(events.maxInFlight, 3, 'never more than maxParallel at once')
    const firstEnd = events.order.findIndex(event => event.startsWith('end '))
    assert.ok(events.order.indexOf('start read-item#4') > firstEnd, 'the fourth waits for a free slot')
  })

  it('runs a call that is not concurrency-safe alone', async () => {
    events.reset()
    const output = await codeMode.run(
      'return await Promise.all([tools.read_item({ id: 1 }), tools.write_item({ id: 2 }), tools.read_item({ id: 3 })])',
    )
    assert.equal(output.isError, false)
    assert.deepEqual(
      events.order,
      [
        'start read-item#1',
        'end read-item#1',
        'start write-item#2',
        'end write-item#2',
        'start read-item#3',
        'end read-item#3',
      ],
      'the write waits for the read before it, and the read after it waits for the write',
    )
  })

  it('rejects invalid arguments before the tool runs, naming the field', async () => {
    events.reset()
    // The id comes through JSON.parse (type any), so the type check cannot know it fails and the
    // runtime's own argument check is what refuses it.
    const output = await codeMode.run(
      [
        'try { await tools.read_item({ id: JSON.parse(\'"seven"\') }) } catch (error) {',
        '  return [error instanceof ToolCallError, error.toolName, error.message]',
        '}',
      ].join('\n'),
    )
    assert.deepEqual(output.structured.result, [true, 'read_item', 'tools.read_item: args.id must be integer.'])
    assert.deepEqual(events.order, [])
    assert.deepEqual(
      output.structured.calls.map(call => [call.member, call.outcome]),
      [['read_item', 'error']],
    )
  })

  it('reports a failed tool as a ToolCallError carrying the tool message', async () => {
    const program =
      'try { await tools.explode({ why: "test" }) } catch (e) { return { is: e instanceof ToolCallError, name: e.toolName, message: e.message } }'
    const output = await codeMode.run(program)
    assert.deepEqual(output.structured.result, { is: true, name: 'explode', message: 'disk on fire' })
    assert.equal(output.structured.calls[0]?.outcome, 'error')
    assert.equal(output.structured.calls[0]?.error, undefined, 'values are kept only when asked for')
    const recorded = await codeMode.run(program, { recordCallValues: { maxBytes: 1_000 } })
    assert.deepEqual(recorded.structured.calls[0]?.args, { why: 'test' })
    assert.equal(recorded.structured.calls[0]?.error, 'disk on fire')
  })

  it('gives the program null for a tool that resolves nothing', async () => {
    const output = await codeMode.run('return await tools.nothing({})')
    assert.equal(output.structured.result, null)
  })

  it('aborts and drains in-flight calls when the run settles, and records them', async () => {
    events.reset()
    const output = await codeMode.run(
      'tools.hang({}); tools.hang({}); await tools.read_item({ id: 9 }); return "done early"',
    )
    assert.equal(output.structured.result, 'done early')
    const hangs = output.structured.calls.filter(call => call.member === 'hang')
    assert.equal(hangs.length, 2, 'both hanging calls are recorded')
    assert.ok(
      hangs.every(call => call.outcome === 'in-flight'),
      'the run ended before they settled: their side effects may still happen',
    )
    assert.deepEqual(events.aborted, ['hang', 'hang'])
  })

  it('passes the caller abort to the tools and reports abort', async () => {
    events.reset()
    const controller = new AbortController()
    // Abort once the tool is running, not after a fixed delay: on a loaded machine the run can
    // still be waiting for its worker when a timer fires, and the tool never starts at all.
    void events.hangStarted.promise.then(() => controller.abort('user cancelled'))
    const output = await codeMode.run('await tools.hang({}); return 1', { signal: controller.signal })
    assert.equal(output.isError, true)
    assert.equal(output.structured.error?.kind, 'abort')
    assert.match(output.text, /^code run failed \(abort\): user cancelled/)
    assert.deepEqual(events.aborted, ['hang'])
    assert.equal(output.structured.calls[0]?.outcome, 'in-flight')
  })

  it('starts no queued call once the caller aborted', async () => {
    events.reset()
    const controller = new AbortController()
    // The log line reaches the host after both calls (one channel, in order): the second call is
    // queued behind the first, which holds the only slot, when the abort fires.
    const output = await codeMode.run(
      "const first = tools.block({ id: 1 })\nconst second = tools.block({ id: 2 })\nconsole.log('both made')\nawait Promise.all([first, second])",
      { signal: controller.signal, onLog: () => controller.abort('user cancelled') },
    )
    assert.equal(output.structured.error?.kind, 'abort')
    assert.deepEqual(events.order, ['start block#1'])
  })

  it('starts no call after the run settled', async () => {
    events.reset()
    const output = await codeMode.run('setTimeout(() => tools.read_item({ id: 77 }), 5); return "quick"')
    assert.equal(output.structured.result, 'quick')
    // Room for the program's 5 ms timer to fire if the run had left it armed; the check holds
    // however long this takes, a slow machine only gives a bug less chance to show.
    await sleep(60)
    assert.deepEqual(events.order, [])
  })
})
