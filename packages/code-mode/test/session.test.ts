// run_code bound to a session, on the worker-thread backend: variables persist between runs, the
// type check knows their names and types, reset and dispose forget them, a lost or expired
// sandbox is said to the model and replaced, and sessions never see each other's variables.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { CodeRuntimeError, type CodeRunRequest, type CodeRunResult } from '@code-runtime/core'
import {
  CodeModeError,
  createCodeMode,
  createCodeModeSession,
  RUN_CODE_SESSION_SENTENCE,
  type CodeModeTool,
} from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

let fetches = 0
const orders: CodeModeTool = {
  name: 'list-orders',
  description: 'Every order.',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: {
    type: 'array',
    items: {
      type: 'object',
      properties: { id: { type: 'number' }, total: { type: 'number' } },
      required: ['id', 'total'],
    },
  },
  execute: async () => {
    fetches++
    return [
      { id: 1, total: 30 },
      { id: 2, total: 12 },
    ]
  },
}

/** A rejection of `promise`, for `assert.rejects` with a predicate over the error's code. */
function withCode(code: string): (error: unknown) => boolean {
  return error => CodeModeError.is(error) && error.code === code
}

describe('run_code bound to a session', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime({ computeMs: 2_000 })
  })
  after(() => started.dispose())

  it('keeps a fetched result for the next run, which uses it without calling the tool again', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true })
    try {
      fetches = 0
      const first = await codeMode.tool.execute({
        code: 'const rows = await tools.list_orders()\nfunction total() { return rows.reduce((sum, row) => sum + row.total, 0) }',
        description: 'fetch',
      })
      assert.equal(first.isError, false, first.text)
      const second = await codeMode.tool.execute({ code: 'total() + rows.length', description: 'use' })
      assert.equal(second.text, '44')
      assert.equal(second.structured.calls.length, 0)
      assert.equal(fetches, 1)
      assert.match(codeMode.session?.id ?? '', /./)
    } finally {
      await codeMode.dispose()
    }
  })

  it('says so in run_code: the sentence in the description and `reset` in the schema, only with a session', () => {
    const bound = createCodeMode({ tools: [orders], runtime: started.runtime, session: true })
    const plain = createCodeMode({ tools: [orders], runtime: started.runtime })
    assert.ok(bound.tool.description.includes(RUN_CODE_SESSION_SENTENCE))
    assert.ok(!plain.tool.description.includes(RUN_CODE_SESSION_SENTENCE))
    assert.deepEqual(Object.keys(bound.tool.inputSchema.properties as object), ['code', 'description', 'reset'])
    assert.deepEqual(Object.keys(plain.tool.inputSchema.properties as object), ['code', 'description'])
    assert.equal(bound.session !== undefined && plain.session === undefined, true)
  })

  it('types the kept names for the check: strict mode passes on them and refuses a wrong member with the real type', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true, typeCheck: 'strict' })
    try {
      assert.equal(
        (
          await codeMode.run(
            'const rows = await tools.list_orders()\nconst label = "total"\nconst twice = (n: number) => n * 2',
          )
        ).isError,
        false,
      )
      assert.deepEqual(await codeMode.check('rows.length + twice(1)'), { refused: false, errors: [], hints: [] })
      const used = await codeMode.run('`${label}: ${twice(rows[0]!.total)}`')
      assert.equal(used.text, 'total: 60')
      const wrong = await codeMode.run('rows[0]!.totl')
      assert.equal(wrong.structured.error?.kind, 'refused')
      assert.match(wrong.text, /Property 'totl' does not exist on type '\{ id: number; total: number; \}'/)
      const wrongArgument = await codeMode.run('twice(label)')
      assert.match(wrongArgument.text, /Argument of type 'string' is not assignable to parameter of type 'number'/)
    } finally {
      await codeMode.dispose()
    }
  })

  it('runs a call with a kept var a later run gave another type, as it runs unchecked', async () => {
    const echo: CodeModeTool = {
      name: 'echo',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      execute: async args => (args as { a: string }).a,
    }
    const codeMode = createCodeMode({ tools: [echo], runtime: started.runtime, session: true })
    try {
      await codeMode.run('var n = 5')
      await codeMode.run('n = String(n)')
      const called = await codeMode.run('return await tools.echo({ a: n })')
      assert.equal(called.isError, false, called.text)
      assert.equal(called.text, '5')
    } finally {
      await codeMode.dispose()
    }
  })

  it('without a session, the same second program is refused in strict mode for the names it lacks', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, typeCheck: 'strict' })
    await codeMode.run('const rows = await tools.list_orders()')
    const output = await codeMode.run('rows.length')
    assert.equal(output.structured.error?.kind, 'refused')
    assert.match(output.text, /Cannot find name 'rows'/)
  })

  it('gives no "Cannot find name" hint for a kept name when a later run fails, and does for a name never kept', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true })
    try {
      await codeMode.run('var count = 2')
      const failed = await codeMode.run('if (count === 2) throw new Error("stop")')
      assert.equal(failed.structured.error?.kind, 'exception')
      assert.equal(failed.structured.diagnostics, undefined)
      const unknown = await codeMode.run('if (count === 2) throw new Error(String(countt))')
      assert.match(unknown.text, /Cannot find name 'countt'/)
    } finally {
      await codeMode.dispose()
    }
  })

  it('declares `any` what cannot be printed for the next program: a program-local type, a class, a global name', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true, typeCheck: 'strict' })
    try {
      const first = await codeMode.run(
        'interface Row { id: number }\nconst picked: Row[] = [{ id: 7 }]\nclass Box { constructor(public readonly size: number) {} }\nconst box = 1',
      )
      // Parameter properties do not run here: the class is refused by the check; a plain class is kept.
      assert.equal(first.structured.error?.kind, 'refused')
      assert.equal(
        (
          await codeMode.run(
            'interface Row { id: number }\nconst picked: Row[] = [{ id: 7 }]\nclass Box { size = 3 }\nconst box = new Box()',
          )
        ).isError,
        false,
      )
      const used = await codeMode.run('[picked[0].id, new Box().size, box.size, picked[0].anything ?? null]')
      assert.equal(used.isError, false, used.text)
      assert.equal(used.text.replace(/\s+/g, ''), '[7,3,3,null]')
    } finally {
      await codeMode.dispose()
    }
  })

  it('resetSession and reset: true forget every variable; later runs start clean', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true })
    try {
      await codeMode.run('let kept = 1')
      assert.equal((await codeMode.run('kept')).text, '1')
      await codeMode.resetSession()
      assert.equal((await codeMode.run('typeof kept')).text, 'undefined')
      await codeMode.run('let kept = 2')
      const reset = await codeMode.tool.execute({ code: 'typeof kept', description: 'after reset', reset: true })
      assert.equal(reset.text, 'undefined')
      const refused = await codeMode.tool.execute({ code: '1', description: 'bad reset', reset: 'yes' })
      assert.match(refused.text, /`reset` as true or false/)
    } finally {
      await codeMode.dispose()
    }
  })

  it('runs one program at a time: a second run called during the first sees what the first kept', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true, typeCheck: 'strict' })
    try {
      const [first, second] = await Promise.all([
        codeMode.run('await new Promise((resolve) => setTimeout(resolve, 100))\nconst late = 41'),
        codeMode.run('late + 1'),
      ])
      assert.equal(first.isError, false)
      assert.equal(second.text, '42')
    } finally {
      await codeMode.dispose()
    }
  })

  it('tells the model when a run lost the sandbox, and the next run opens a fresh session', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: { computeMs: 200 } })
    try {
      await codeMode.run('const before = 1')
      const lost = await codeMode.run('for (;;) {}')
      assert.equal(lost.structured.error?.kind, 'timeout')
      assert.match(
        lost.text,
        /The session's variables are gone: its sandbox stopped\. The next run starts a new session\.$/,
      )
      assert.equal(lost.structured.sessionEnded, 'lost')
      const fresh = await codeMode.run('typeof before')
      assert.equal(fresh.text, 'undefined')
      assert.equal(fresh.structured.diagnostics, undefined)
    } finally {
      await codeMode.dispose()
    }
  })

  it('tells the model when the session expired while idle', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: { idleMs: 100 } })
    try {
      await codeMode.run('const soon = 1')
      await new Promise(resolve => setTimeout(resolve, 400))
      const expired = await codeMode.run('soon')
      assert.equal(expired.structured.error?.kind, 'worker-exit')
      assert.match(expired.text, /its sandbox expired after sitting idle\. The next run starts a new session\.$/)
      assert.equal((await codeMode.run('typeof soon')).text, 'undefined')
    } finally {
      await codeMode.dispose()
    }
  })

  it('keeps a session made apart from the Code Mode across Code Modes, and apart from another session', async () => {
    const alice = createCodeModeSession(started.runtime)
    const bob = createCodeModeSession(started.runtime)
    try {
      const before = createCodeMode({ tools: [orders], runtime: started.runtime, typeCheck: 'strict' })
      await before.run('const secret = "alice"', { session: alice })
      await before.run('const secret = "bob"', { session: bob })
      // The tools changed: a new Code Mode, the same sessions, their names still known to the check.
      const rebuilt = createCodeMode({ tools: [orders], runtime: started.runtime, typeCheck: 'strict' })
      assert.equal((await rebuilt.run('secret', { session: alice })).text, 'alice')
      assert.equal((await rebuilt.run('secret', { session: bob })).text, 'bob')
      // A one-shot run of the same Code Mode knows no session's names, and has none of their values.
      assert.match((await rebuilt.run('typeof secret')).text, /Cannot find name 'secret'/)
      await alice.reset()
      assert.match((await rebuilt.run('typeof secret', { session: alice })).text, /Cannot find name 'secret'/)
      assert.equal((await rebuilt.run('secret', { session: bob })).text, 'bob')
    } finally {
      await alice.dispose()
      await bob.dispose()
    }
  })

  it('hands the names a session kept to another Code Mode session over the same runtime session (a takeover)', async () => {
    const runtimeSession = await started.runtime.openSession()
    // The runtime a second process sees: the session it took over, never a fresh one.
    const takenOver = {
      run: started.runtime.run.bind(started.runtime),
      openSession: () => Promise.resolve(runtimeSession),
    }
    const first = createCodeModeSession(takenOver)
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, typeCheck: 'strict' })
    try {
      await codeMode.run('const rows = await tools.list_orders()\nlet label = "orders"', { session: first })
      const kept = first.keptNames()
      assert.deepEqual(
        kept.map(([name]) => name),
        ['rows', 'label'],
      )
      const second = createCodeModeSession(takenOver)
      // Without the names, the strict check refuses what the sandbox would run.
      assert.match((await codeMode.run('label.toUpperCase()', { session: second })).text, /Cannot find name 'label'/)
      second.restoreKeptNames(kept)
      assert.equal((await codeMode.run('label.toUpperCase() + rows[1].total', { session: second })).text, 'ORDERS12')
      // A type the check knows refuses a wrong use, as in the session that kept it.
      assert.match((await codeMode.run('rows[0].missing', { session: second })).text, /missing/)
      // What is not a name and a one-line type is skipped or declared any: nothing breaks the check.
      const third = createCodeModeSession(takenOver)
      third.restoreKeptNames([
        ['label', 'string\ndeclare let injected: number'],
        ['not a name', 'number'],
        ['rows', 'x'.repeat(5_000)],
        ['odd'] as unknown as readonly [string, string],
      ])
      assert.deepEqual(
        third.keptNames().map(([name, type]) => [name, type]),
        [
          ['label', 'any'],
          ['rows', 'any'],
        ],
      )
      assert.equal((await codeMode.run('label.length', { session: third })).text, '6')
    } finally {
      await runtimeSession.dispose()
    }
  })

  it('refuses a program that would keep more names than maxKeptNames, saying to reset; with reset: true it runs', async () => {
    for (const typeCheck of ['calls', 'off'] as const) {
      const codeMode = createCodeMode({
        tools: [orders],
        runtime: started.runtime,
        session: { maxKeptNames: 2 },
        typeCheck,
      })
      try {
        assert.equal((await codeMode.tool.execute({ code: 'const a = 1', description: 'one' })).isError, false)
        const refused = await codeMode.tool.execute({
          code: 'const b = 2\nconst c = 3\na = 9',
          description: 'two more',
        })
        assert.equal(refused.isError, true, typeCheck)
        assert.match(refused.text, /at most 2 \(maxKeptNames\)/, refused.text)
        // The check says how to start over in run_code's words; unchecked, the runtime's own refusal says it.
        assert.match(refused.text, typeCheck === 'off' ? /new session/ : /reset: true/, refused.text)
        assert.equal(
          (await codeMode.tool.execute({ code: 'a', description: 'unchanged' })).text,
          '1',
          'the refused run changed nothing',
        )
        const again = await codeMode.tool.execute({
          code: 'const b = 2\nconst c = 3\nb + c',
          description: 'start over',
          reset: true,
        })
        assert.equal(again.text, '5', again.text)
      } finally {
        await codeMode.dispose()
      }
    }
  })

  it('after the runtime is disposed under it, a run rejects as closed and the next says no session can open', async () => {
    const own = await startRuntime()
    const codeMode = createCodeMode({ tools: [orders], runtime: own.runtime, session: true })
    await codeMode.run('const early = 1')
    await own.dispose()
    await assert.rejects(
      codeMode.run('early'),
      (error: unknown) => CodeRuntimeError.is(error) && error.code === 'CODE_RUNTIME_SESSION_CLOSED',
    )
    await assert.rejects(codeMode.run('early'), withCode('CODE_MODE_SESSION_UNAVAILABLE'))
  })

  it('refuses runs after dispose, and a session on a runtime that cannot open one', async () => {
    const codeMode = createCodeMode({ tools: [orders], runtime: started.runtime, session: true })
    await codeMode.run('1')
    await codeMode.dispose()
    await codeMode.dispose()
    await assert.rejects(codeMode.run('1'), withCode('CODE_MODE_SESSION_CLOSED'))
    const session = createCodeModeSession(started.runtime)
    await session.dispose()
    await assert.rejects(
      createCodeMode({ tools: [orders], runtime: started.runtime }).run('1', { session }),
      withCode('CODE_MODE_SESSION_CLOSED'),
    )

    const oneShotOnly = { run: (request: CodeRunRequest): Promise<CodeRunResult> => started.runtime.run(request) }
    assert.throws(
      () => createCodeMode({ tools: [orders], runtime: oneShotOnly, session: true }),
      withCode('CODE_MODE_INVALID_OPTIONS'),
    )
    assert.throws(
      () => createCodeMode({ tools: [orders], runtime: started.runtime, session: 'yes' as unknown as boolean }),
      withCode('CODE_MODE_INVALID_OPTIONS'),
    )
    const refusing = {
      run: oneShotOnly.run,
      openSession: () =>
        Promise.reject(
          new CodeRuntimeError(
            'CODE_RUNTIME_SESSIONS_UNSUPPORTED',
            'The nats backend has no sessions; use run() for one-shot programs.',
          ),
        ),
    }
    const unsupported = createCodeMode({ tools: [orders], runtime: refusing, session: true })
    await assert.rejects(
      unsupported.run('1'),
      (error: unknown) =>
        withCode('CODE_MODE_SESSIONS_UNSUPPORTED')(error) &&
        /cannot keep variables here: The nats backend has no sessions/.test((error as Error).message),
    )
    assert.equal(createCodeMode({ tools: [orders], runtime: oneShotOnly, session: false }).session, undefined)
  })
})

describe('the README session example', () => {
  it('fetches once, reuses the kept variable, and forgets it after a reset', async () => {
    const script = fileURLToPath(new URL('../examples/session.js', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, [script])
    assert.equal(stdout, '[1,3] 1 undefined\n')
    const source = await readFile(new URL('../../examples/session.ts', import.meta.url), 'utf8')
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8')
    assert.ok(readme.includes(source.trim()), 'README shows examples/session.ts')
  })
})
