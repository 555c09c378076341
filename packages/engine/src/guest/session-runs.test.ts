// A GuestSession running a persistent session's programs, one after another in one context:
// kept names, the keep function, per-run namespaces, timers and calls, and run-stop.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import vm from 'node:vm'
import type { GuestToHostMessage, NamespaceSpec, RunStartMessage } from '../protocol/messages.js'
import { GuestSession } from './guest-runtime.js'
import { SessionScope } from './session-scope.js'

const wait = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

function namespace(global: string, members: string[] = ['echo']): NamespaceSpec {
  return { global, members, errorClass: null }
}

/** A session run of `body` (already rewritten as the session transform would). */
function sessionRun(
  body: string,
  keptNames: string[] = [],
  publishedFunctions: string[] = [],
  namespaces: NamespaceSpec[] = [],
): RunStartMessage {
  const prologue = publishedFunctions.length === 0 ? '' : `__codeRuntimeKeep(${publishedFunctions.join(', ')});`
  return {
    kind: 'run-start',
    source: `(async function (__codeRuntimeKeep) {${prologue}\n${body}\n})`,
    namespaces,
    maxOutputBytes: 10_000,
    session: { keptNames, publishedFunctions, maxKeptNames: 1_000 },
  }
}

function startGuest(): { guest: GuestSession; sent: GuestToHostMessage[]; ends: () => GuestToHostMessage[] } {
  const sent: GuestToHostMessage[] = []
  const guest = new GuestSession({ send: message => sent.push(message) })
  return { guest, sent, ends: () => sent.filter(message => message.kind === 'run-end') }
}

/** Runs one message and waits for its end (or `ms`). */
async function runAndWait(guest: GuestSession, message: RunStartMessage, ms = 20): Promise<void> {
  guest.receive(message)
  await wait(ms)
}

describe('GuestSession: the runs of a persistent session', () => {
  it('keeps declared names and published functions for later runs', async () => {
    const { guest, ends } = startGuest()
    await runAndWait(guest, sessionRun('x = 1; function f() { return x * 10 }\nreturn f()', ['x', 'f'], ['f']))
    await runAndWait(guest, sessionRun('x = 4\nreturn f()'))
    assert.deepEqual(
      ends().map(end => (end.kind === 'run-end' && end.outcome === 'value' ? end.valueJson : end)),
      ['10', '40'],
    )
  })

  it('refuses a name the runtime cannot hide before the program runs', async () => {
    const { guest, ends } = startGuest()
    await runAndWait(guest, sessionRun('globalThis.ran = true', ['undefined']))
    await runAndWait(guest, sessionRun('return typeof globalThis.ran'))
    const [refused, after] = ends()
    assert.ok(refused?.kind === 'run-end' && refused.outcome === 'exception')
    assert.match(refused.message, /cannot keep a variable named undefined/)
    assert.ok(after?.kind === 'run-end' && after.outcome === 'value')
    assert.equal(after.valueJson, '"undefined"', 'the refused program never ran')
  })

  it('refuses a run whose namespace an earlier run kept as a variable', async () => {
    const { guest, ends } = startGuest()
    await runAndWait(guest, sessionRun('tools = 1', ['tools']))
    await runAndWait(guest, sessionRun('return 1', [], [], [namespace('tools')]))
    const last = ends().at(-1)
    assert.ok(last?.kind === 'run-end' && last.outcome === 'exception')
    assert.match(last.message, /tools is a variable of this session/)
  })

  it("installs each run's own namespaces and refuses calls through an earlier run's", async () => {
    const { guest, sent, ends } = startGuest()
    await runAndWait(guest, sessionRun('old = alpha\nreturn typeof alpha', ['old'], [], [namespace('alpha')]))
    await runAndWait(
      guest,
      sessionRun(
        'let refused = "no"\ntry { await old.echo(1) } catch (error) { refused = String(error.message) }\nreturn [typeof alpha, typeof beta, refused]',
        [],
        [],
        [namespace('beta')],
      ),
    )
    const last = ends().at(-1)
    assert.ok(last?.kind === 'run-end' && last.outcome === 'value')
    const [alpha, beta, refused] = JSON.parse(last.valueJson ?? 'null') as string[]
    assert.equal(alpha, 'undefined')
    assert.equal(beta, 'object')
    assert.match(refused ?? '', /earlier run/)
    assert.equal(sent.filter(message => message.kind === 'call-request').length, 0, 'no call left the context')
  })

  it('leaves a global the program replaced, even when a later run lacks that namespace', async () => {
    const { guest, ends } = startGuest()
    await runAndWait(guest, sessionRun('globalThis.alpha = "mine"', [], [], [namespace('alpha')]))
    await runAndWait(guest, sessionRun('return alpha'))
    const last = ends().at(-1)
    assert.ok(last?.kind === 'run-end' && last.outcome === 'value')
    assert.equal(last.valueJson, '"mine"')
  })

  it('cancels the timers of a settled run and drops a late result of its calls', async () => {
    const { guest, sent } = startGuest()
    guest.receive(
      sessionRun(
        "setInterval(() => console.log('tick'), 1)\nalpha.echo(1).then(() => console.log('late'))\nreturn 1",
        [],
        [],
        [namespace('alpha')],
      ),
    )
    await wait(20)
    const call = sent.find(message => message.kind === 'call-request')
    assert.ok(call?.kind === 'call-request')
    await runAndWait(guest, sessionRun('await new Promise((resolve) => setTimeout(resolve, 30))\nreturn 2'), 0)
    guest.receive({ kind: 'call-result', id: call.id, ok: true, valueJson: '1' })
    await wait(60)
    const logs = sent.filter(message => message.kind === 'log-line')
    assert.deepEqual(logs, [], 'no timer or late continuation of the first run ran')
    assert.deepEqual(sent.filter(message => message.kind === 'run-end').length, 2)
  })

  it('answers run-stop, ends the run with nothing after it, and takes the next run', async () => {
    const { guest, sent } = startGuest()
    guest.receive(sessionRun("setInterval(() => console.log('tick'), 1)\nawait new Promise(() => {})"))
    await wait(10)
    guest.receive({ kind: 'run-stop' })
    const stoppedAt = sent.length
    assert.deepEqual(sent.at(-1), { kind: 'run-stopped' })
    await wait(20)
    assert.equal(sent.length, stoppedAt, 'nothing of the stopped run follows run-stopped')
    guest.receive({ kind: 'run-stop' })
    assert.deepEqual(sent.at(-1), { kind: 'run-stopped' }, 'answered when no run is in flight, too')
    await runAndWait(guest, sessionRun('return 3'))
    const last = sent.at(-1)
    assert.ok(last?.kind === 'run-end' && last.outcome === 'value' && last.valueJson === '3')
  })

  it('takes one program only when the first run is not a session run', async () => {
    const { guest, ends } = startGuest()
    await runAndWait(guest, {
      kind: 'run-start',
      source: '(async function () {\nreturn 1\n})',
      namespaces: [],
      maxOutputBytes: 100,
    })
    await runAndWait(guest, sessionRun('return 2'))
    assert.equal(ends().length, 1)
  })
})

describe('SessionScope', () => {
  const context = (): vm.Context => vm.createContext({})

  it('declares each name once, as a script-level let the context resolves', () => {
    const inContext = context()
    const scope = new SessionScope(inContext)
    assert.equal(scope.declare(['a', 'b', 'a'], 1_000), undefined)
    assert.equal(scope.declare(['a'], 1_000), undefined, 'a kept name is not declared again')
    vm.runInContext('a = 1; b = 2', inContext)
    assert.equal(vm.runInContext('a + b', inContext), 3)
    assert.equal(scope.keeps('a'), true)
    assert.equal(scope.keeps('c'), false)
  })

  it('refuses what is not an identifier, a reserved word, and what a sloppy function cannot assign', () => {
    const scope = new SessionScope(context())
    for (const name of ['a;b', 'x = 1', '1a', '', 'arguments', 'eval', '__codeRuntimeKeep']) {
      assert.match(scope.declare([name], 1_000) ?? '', /cannot keep/, name)
    }
    assert.match(scope.declare(['ok', 'class'], 1_000) ?? '', /reserved word/)
    assert.equal(scope.keeps('ok'), false, 'none of a refused batch is declared')
  })

  it('refuses a batch that would pass maxKeptNames, declaring none of it; names kept already cost nothing', () => {
    const inContext = context()
    const scope = new SessionScope(inContext)
    assert.equal(scope.declare(['a', 'b'], 3), undefined)
    const refusal = scope.declare(['a', 'c', 'd'], 3) ?? ''
    assert.match(
      refusal,
      /2 new top-level names, but the session keeps at most 3 \(maxKeptNames\) and already keeps 2, so 1 is left; nothing of this run was kept/,
    )
    assert.match(refusal, /new session/)
    assert.equal(scope.keeps('c'), false)
    assert.equal(vm.runInContext('typeof c', inContext), 'undefined')
    assert.equal(scope.declare(['b', 'a', 'c'], 3), undefined)
    assert.equal(scope.keeps('c'), true)
  })

  it('builds a keep function of the context that assigns the published functions in order', () => {
    const inContext = context()
    const scope = new SessionScope(inContext)
    scope.declare(['f', 'g'], 1_000)
    const keep = scope.keepFunction(['f', 'g']) as (...values: unknown[]) => void
    assert.equal(Object.getPrototypeOf(keep), vm.runInContext('Function.prototype', inContext), 'made in the context')
    keep(1, 2)
    assert.equal(vm.runInContext('`${f},${g}`', inContext), '1,2')
    assert.throws(() => scope.keepFunction(['h']), /not a kept name/)
  })
})
