/**
 * Approvals in Code Mode: calls that need a person wait for the `approve` hook while other calls
 * go on; a refusal is a failed call the program can catch; the wait costs no compute budget but
 * counts against the wall ceiling; an abort cancels the question; every decision is in the call
 * record. Real worker-thread runs throughout.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  createCodeMode,
  emitSdk,
  toolNeedsApproval,
  type ApproveToolCall,
  type CodeModeTool,
  type ToolApprovalRequest,
} from '@code-runtime/code-mode'
import { createDeferred, sleep, startRuntime } from './code-mode-runtime.js'

interface Ledger {
  readonly ran: string[]
  readonly tools: CodeModeTool[]
}

/** A read-only lookup, a destructive delete (needs approval by its annotations) and a send that says so itself. */
function ledgerTools(): Ledger {
  const ran: string[] = []
  const tools: CodeModeTool[] = [
    {
      name: 'lookup',
      inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
      annotations: { readOnlyHint: true },
      execute: async args => {
        await sleep(5)
        ran.push(`lookup ${(args as { key: string }).key}`)
        return `value of ${(args as { key: string }).key}`
      },
    },
    {
      name: 'delete-file',
      description: 'Deletes a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      annotations: { readOnlyHint: false, destructiveHint: true },
      execute: async args => {
        ran.push(`delete ${(args as { path: string }).path}`)
        return 'deleted'
      },
    },
    {
      name: 'send',
      inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      needsApproval: true,
      execute: async args => {
        ran.push(`send ${(args as { to: string }).to}`)
        return 'sent'
      },
    },
  ]
  return { ran, tools }
}

describe('approvals: the policy and the SDK', () => {
  it('asks for destructive tools not marked read-only, and for tools that say so, unless they say otherwise', () => {
    assert.equal(toolNeedsApproval({ annotations: { destructiveHint: true } }), true)
    assert.equal(toolNeedsApproval({ annotations: { destructiveHint: true, readOnlyHint: false } }), true)
    assert.equal(toolNeedsApproval({ annotations: { destructiveHint: true, readOnlyHint: true } }), false)
    assert.equal(toolNeedsApproval({ annotations: { destructiveHint: false } }), false)
    assert.equal(toolNeedsApproval({}), false)
    assert.equal(toolNeedsApproval({ needsApproval: true, annotations: { readOnlyHint: true } }), true)
    assert.equal(toolNeedsApproval({ needsApproval: false, annotations: { destructiveHint: true } }), false)
  })

  it('marks members that need approval and tells the model a call may be declined', () => {
    const sdk = emitSdk(ledgerTools().tools)
    assert.match(
      sdk.declarations,
      /Deletes a file\. @tool delete-file @destructive @needsApproval \*\/\n {2}delete_file\(/,
    )
    assert.match(sdk.declarations, /@needsApproval \*\/\n {2}send\(/)
    assert.doesNotMatch(sdk.declarations, /@needsApproval \*\/\n {2}lookup\(/)
    assert.match(
      sdk.instructions,
      /A @needsApproval call waits for a person, who may decline it: it then throws ToolCallError/,
    )
    // An SDK without such tools reads as before.
    assert.doesNotMatch(emitSdk([ledgerTools().tools[0] as CodeModeTool]).instructions, /needsApproval/)
  })

  it('refuses a needsApproval that is not a boolean, and an approve that is not a function', async () => {
    assert.throws(
      () => emitSdk([{ name: 'x', inputSchema: {}, needsApproval: 'yes' as unknown as boolean }]),
      /tools\[0\]\.needsApproval must be a boolean/,
    )
    const started = await startRuntime()
    try {
      assert.throws(
        () => createCodeMode({ tools: [], runtime: started.runtime, approve: 'allow' as unknown as ApproveToolCall }),
        /approve must be a function/,
      )
    } finally {
      await started.dispose()
    }
  })
})

describe('approvals in a run', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime({ computeMs: 200, maxWallMs: 3_000 })
  })
  after(async () => {
    await started.dispose()
  })

  it('runs other calls while one waits for approval, then the allowed one', async () => {
    const { ran, tools } = ledgerTools()
    const asked: ToolApprovalRequest[] = []
    const answer = createDeferred()
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: async request => {
        asked.push(request)
        await answer.promise
        return { action: 'allow' }
      },
    })
    const running = codeMode.tool.execute({
      code: "const gone = tools.delete_file({ path: '/tmp/a' })\nconst looked = await Promise.all([tools.lookup({ key: 'x' }), tools.lookup({ key: 'y' })])\nreturn [...looked, await gone]",
      description: 'clean up after looking',
    })
    // Both lookups finish while the delete is still waiting for its answer.
    while (ran.length < 2) await sleep(5)
    assert.deepEqual([...ran].sort(), ['lookup x', 'lookup y'])
    assert.deepEqual(asked, [
      {
        tool: 'delete-file',
        member: 'delete_file',
        args: { path: '/tmp/a' },
        summary: 'path: "/tmp/a"',
        programDescription: 'clean up after looking',
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
    ])
    answer.resolve()
    const output = await running
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(output.structured.result, ['value of x', 'value of y', 'deleted'])
    assert.equal(ran.at(-1), 'delete /tmp/a')
    const [deleteCall] = output.structured.calls
    assert.equal(deleteCall?.member, 'delete_file')
    assert.equal(deleteCall?.outcome, 'ok')
    assert.equal(deleteCall?.approval?.decision, 'allowed')
    assert.equal(deleteCall?.approval?.decidedBy, 'approver')
    assert.ok((deleteCall?.approval?.waitMs ?? -1) >= 0)
    assert.equal(output.structured.calls[1]?.approval, undefined)
  })

  it("rejects a declined call in the program with the person's reason, and the program goes on", async () => {
    const { ran, tools } = ledgerTools()
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: () => ({ action: 'decline', reason: 'not this one' }),
    })
    const output = await codeMode.run(
      "let note = ''\ntry { await tools.send({ to: 'all' }) } catch (error) { note = `${error.name} ${error.toolName}: ${error.message}` }\nreturn [note, await tools.lookup({ key: 'z' })]",
    )
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(output.structured.result, [
      'ToolCallError send: tools.send: the person declined this call, so it was not made. Their reason: not this one',
      'value of z',
    ])
    assert.deepEqual(ran, ['lookup z'])
    const [sendCall] = output.structured.calls
    assert.equal(sendCall?.outcome, 'declined')
    assert.deepEqual(
      { ...sendCall?.approval, waitMs: 0 },
      { decision: 'declined', decidedBy: 'approver', reason: 'not this one', waitMs: 0 },
    )
  })

  it('asks once for a run answered "allow for the rest of this run", and again in the next run', async () => {
    const { ran, tools } = ledgerTools()
    let questions = 0
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: () => (questions++, { action: 'allow-run' }),
    })
    const program =
      "await tools.send({ to: 'a' })\nawait tools.delete_file({ path: 'b' })\nreturn await tools.send({ to: 'c' })"
    const first = await codeMode.run(program)
    assert.equal(first.structured.result, 'sent')
    assert.equal(questions, 1)
    assert.deepEqual(
      first.structured.calls.map(call => call.approval?.decidedBy),
      ['approver', 'allowed-for-run', 'allowed-for-run'],
    )
    await codeMode.run("await tools.send({ to: 'd' })")
    assert.equal(questions, 2)
    assert.deepEqual(ran, ['send a', 'delete b', 'send c', 'send d'])
  })

  it('declines without asking when the Code Mode has no approve hook: the tool never runs', async () => {
    const { ran, tools } = ledgerTools()
    const codeMode = createCodeMode({ tools, runtime: started.runtime })
    const output = await codeMode.run("await tools.delete_file({ path: '/etc' })")
    assert.equal(output.isError, true)
    assert.match(
      output.text,
      /tools\.delete_file needs a person's approval, and no one can give it here; the call was not made\./,
    )
    assert.deepEqual(ran, [])
    assert.equal(output.structured.calls[0]?.outcome, 'declined')
    assert.equal(output.structured.calls[0]?.approval?.decidedBy, 'no-approver')
  })

  // The program chooses the arguments: a call too large to show a person whole is never asked about.
  it('declines without asking a call whose arguments are too large to show in full: the tool never runs', async () => {
    const { ran, tools } = ledgerTools()
    let questions = 0
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: () => (questions++, { action: 'allow' }),
    })
    const output = await codeMode.run(
      "const extra = Object.fromEntries(Array.from({ length: 600 }, (_, i) => ['k' + i, i]))\ntry { await tools.send({ to: 'x', ...extra }) } catch (error) { return error.message }",
    )
    assert.equal(output.isError, false, output.text)
    assert.match(
      String(output.structured.result),
      /^tools\.send needs a person's approval and was declined without asking anyone: the arguments have more than 500 fields/,
    )
    assert.equal(questions, 0)
    assert.deepEqual(ran, [])
    assert.equal(output.structured.calls[0]?.outcome, 'declined')
    assert.equal(output.structured.calls[0]?.approval?.decidedBy, 'unshowable-arguments')
  })

  it('declines a call whose approver throws or answers nonsense, saying so', async () => {
    const { ran, tools } = ledgerTools()
    const throwing = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: () => {
        throw new Error('prompt crashed')
      },
    })
    let output = await throwing.run("try { await tools.send({ to: 'x' }) } catch (error) { return error.message }")
    assert.equal(
      output.structured.result,
      'tools.send was not approved: asking for approval failed, so the call was not made.',
    )
    assert.equal(output.structured.calls[0]?.approval?.decidedBy, 'approver-failed')
    const nonsense = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: () => ({ action: 'yes' }) as unknown as { action: 'allow' },
    })
    output = await nonsense.run("try { await tools.send({ to: 'x' }) } catch (error) { return error.message }")
    assert.equal(
      output.structured.result,
      'tools.send was not approved: the approver gave no valid answer, so the call was not made.',
    )
    assert.deepEqual(ran, [])
  })

  it('does not charge the wait to the compute budget', async () => {
    const { tools } = ledgerTools()
    // computeMs is 200: a wait three times as long still lets the run finish.
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: async () => (await sleep(600), { action: 'allow' }),
    })
    const output = await codeMode.run("return await tools.send({ to: 'slow' })")
    assert.equal(output.isError, false, output.text)
    assert.equal(output.structured.result, 'sent')
  })

  it('cancels the question when the run is aborted while it waits; the tool never runs', async () => {
    const { ran, tools } = ledgerTools()
    const controller = new AbortController()
    let questionSignal: AbortSignal | undefined
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: (_request, { signal }) => {
        questionSignal = signal
        setTimeout(() => controller.abort('the user pressed stop'), 20)
        return new Promise(() => {}) // a person who never answers
      },
    })
    const output = await codeMode.run("await tools.send({ to: 'x' })", { signal: controller.signal })
    assert.equal(output.structured.error?.kind, 'abort')
    assert.equal(questionSignal?.aborted, true)
    assert.deepEqual(ran, [])
    assert.equal(output.structured.calls[0]?.approval?.decision, 'cancelled')
  })
})

describe('approvals under the wall ceiling', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime({ maxWallMs: 300 })
  })
  after(async () => {
    await started.dispose()
  })

  it('times out a run whose call waits past maxWallMs, naming the approval it waited for', async () => {
    const { ran, tools } = ledgerTools()
    let questionSignal: AbortSignal | undefined
    const codeMode = createCodeMode({
      tools,
      runtime: started.runtime,
      approve: (_request, { signal }) => {
        questionSignal = signal
        return new Promise(() => {})
      },
    })
    const output = await codeMode.run("await tools.delete_file({ path: 'x' })")
    assert.equal(output.structured.error?.kind, 'timeout')
    assert.match(output.structured.error?.message ?? '', /maxWallMs/)
    assert.deepEqual(output.structured.waitingForApproval, ['tools.delete_file'])
    assert.doesNotMatch(output.structured.error?.message ?? '', /approval/, "the runtime's own message")
    assert.match(output.text, /while tools\.delete_file waited for a person's approval/)
    assert.equal(questionSignal?.aborted, true)
    assert.deepEqual(ran, [])
  })
})

describe('approvals: a run with its own approver', () => {
  it("asks the run's approver instead of the Code Mode's", async () => {
    const started = await startRuntime()
    try {
      const { ran, tools } = ledgerTools()
      const codeMode = createCodeMode({ tools, runtime: started.runtime, approve: () => ({ action: 'decline' }) })
      const output = await codeMode.run("return await tools.send({ to: 'x' })", {
        approve: () => ({ action: 'allow' }),
      })
      assert.equal(output.structured.result, 'sent')
      assert.deepEqual(ran, ['send x'])
    } finally {
      await started.dispose()
    }
  })
})

describe('approvals: a refusal made without asking anyone', () => {
  it('tells the program nobody was asked, not that a person declined', async () => {
    const started = await startRuntime()
    try {
      const { ran, tools } = ledgerTools()
      const codeMode = createCodeMode({
        tools,
        runtime: started.runtime,
        approve: () => ({ action: 'decline', unasked: true, reason: 'no one is at the terminal' }),
      })
      const output = await codeMode.run("try { await tools.send({ to: 'x' }) } catch (error) { return error.message }")
      assert.equal(
        output.structured.result,
        "tools.send needs a person's approval and was declined without asking anyone: no one is at the terminal. The call was not made.",
      )
      assert.deepEqual(ran, [])
    } finally {
      await started.dispose()
    }
  })
})
