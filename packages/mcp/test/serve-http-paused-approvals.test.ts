/**
 * Approvals for clients of revision 2026-07-28, which cannot be asked mid-run: `serve --http` pauses
 * the run at the call, answers `input_required` with the question and a signed `requestState`, and
 * the client's retry resumes the same run. Driven by SDK 2's client pinned to 2026-07-28, its
 * automatic driver (the client's elicitation handler answers) and its manual mode (the test holds
 * the state and retries itself, as a hostile client would). A real upstream server logs every
 * call it runs, so "ran once" and "never ran" are counted where the tool runs.
 */
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, describe, it } from 'node:test'
import {
  connectV2,
  firstText,
  runServeToEnd,
  startHttpServe,
  writeKeysFile,
  type HttpServe,
  ALICE_KEY,
  BOB_KEY,
  callManually,
  connectManual,
  isInputRequired,
} from './serve-http-harness.js'
import { FLAKY_SERVER_PATH, makeTempDirectory, waitFor } from './serve-harness.js'

/** The runs' wall budget of the server most tests use: a person has time to answer. */
const TIMEOUT_MS = 60_000
/** The budget of the server whose runs nobody resumes: short, so that they end within the test. */
const SHORT_TIMEOUT_MS = 3_000

/** A `serve --http` in front of the flaky fixture (logging every call it runs), with the keys of alice and bob. */
async function startPausingServe(
  prefix: string,
  args: readonly string[],
): Promise<{ temp: Awaited<ReturnType<typeof makeTempDirectory>>; serve: HttpServe; flakyLog: string }> {
  const temp = await makeTempDirectory(prefix)
  const flakyLog = join(temp.path, 'flaky.log')
  const keysPath = await writeKeysFile(temp.path, { alice: ALICE_KEY, bob: BOB_KEY })
  const serve = await startHttpServe(
    temp.path,
    { mcpServers: { flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } } } },
    ['--http', '0', '--auth-keys', keysPath, '--backend', 'worker-thread', ...args],
  )
  return { temp, serve, flakyLog }
}

describe('serve --http: approvals paused for 2026-07-28 clients', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: HttpServe
  let flakyLog: string

  /** The calls the upstream ran with `tag`, as it logged them (`tally a`, `erase a`). */
  function ranNow(tag: string): string[] {
    const text = existsSync(flakyLog) ? readFileSync(flakyLog, 'utf8') : ''
    return text.split('\n').filter(line => line.endsWith(` ${tag}`) && /^(tally|erase) /.test(line))
  }
  async function ran(tag: string): Promise<string[]> {
    // The upstream logs a call as it runs it; its answer has reached us by now.
    return ranNow(tag)
  }

  before(async () => {
    ;({ temp, serve, flakyLog } = await startPausingServe('code-runtime-paused-', ['--timeout-ms', String(TIMEOUT_MS)]))
  })
  after(async () => {
    await serve?.stop('SIGKILL')
    await temp?.remove()
  })

  it('says that only this process can resume its runs when no state key is given', () => {
    assert.match(serve.stderr(), /signed with a random key: only this process can resume them/)
  })

  it('pauses after the first call ran, and the accepted retry finishes the same run: each call ran once', async () => {
    const questions: string[] = []
    let ranWhenAsked: string[] = []
    const client = await connectV2(serve.url, ALICE_KEY, 'modern', message => {
      questions.push(message)
      // What had run when the person was asked, read before the answer goes back.
      ranWhenAsked = ranNow('once')
      return { action: 'accept' }
    })
    try {
      const result = await client.callTool({
        name: 'run_code',
        arguments: {
          code: "const n = await tools.flaky_tally({ tag: 'once' })\nconst erased = await tools.flaky_erase({ tag: 'once' })\nreturn { n, erased }",
          description: 'tidy the once tag',
        },
      })
      assert.equal(result.isError, false, firstText(result))
      assert.match(firstText(result), /"n": "?1"?/)
      assert.match(firstText(result), /erased once/)
      assert.equal(questions.length, 1)
      assert.match(questions[0] ?? '', /The program "tidy the once tag" wants to call flaky_erase with:\n.*tag.*once/s)
      assert.match(questions[0] ?? '', /its time keeps running: it ends in \d+ s unless it is answered/)
      assert.deepEqual(
        ranWhenAsked,
        ['tally once'],
        'the question came after the first call had run, before the second',
      )
      assert.deepEqual(await ran('once'), ['tally once', 'erase once'])
      assert.match(serve.stderr(), /approval: flaky_erase allowed by the client/)
    } finally {
      await client.close()
    }
  })

  it('gives the program the refusal when the person declines, and the tool never runs', async () => {
    const client = await connectV2(serve.url, ALICE_KEY, 'modern', () => ({
      action: 'decline',
      content: { reason: 'not today' },
    }))
    try {
      const result = await client.callTool({
        name: 'run_code',
        arguments: {
          description: 'erase the declined tag',
          code: "await tools.flaky_tally({ tag: 'declined' })\ntry { await tools.flaky_erase({ tag: 'declined' }) } catch (error) { return `refused: ${error.message}` }\nreturn 'erased'",
        },
      })
      assert.match(
        firstText(result),
        /refused: .*the person declined this call, so it was not made\. Their reason: not today/,
      )
      assert.deepEqual(await ran('declined'), ['tally declined'])
    } finally {
      await client.close()
    }
  })

  it('asks two approvals of one run in two rounds, and each call runs once', async () => {
    const questions: string[] = []
    const client = await connectV2(serve.url, ALICE_KEY, 'modern', message => {
      questions.push(message)
      return { action: 'accept' }
    })
    try {
      const result = await client.callTool({
        name: 'run_code',
        arguments: {
          description: 'erase the two tag twice',
          code: "await tools.flaky_erase({ tag: 'two' })\nawait tools.flaky_tally({ tag: 'two' })\nawait tools.flaky_erase({ tag: 'two' })\nreturn 'done'",
        },
      })
      assert.match(firstText(result), /^done\n\nsession: s_/)
      assert.equal(questions.length, 2)
      assert.deepEqual(await ran('two'), ['erase two', 'tally two', 'erase two'])
    } finally {
      await client.close()
    }
  })

  it('gives a 2026-07-28 client that declares no elicitation the fallback: declined unasked, the tool never runs', async () => {
    const client = await connectV2(serve.url, ALICE_KEY, 'modern')
    try {
      const result = await client.callTool({
        name: 'run_code',
        arguments: {
          description: 'erase unasked',
          code: "try { await tools.flaky_erase({ tag: 'unasked' }) } catch (error) { return error.message }\nreturn 'erased'",
        },
      })
      assert.match(
        firstText(result),
        /^tools\.flaky_erase needs a person's approval and was declined without asking anyone: the MCP client cannot ask a person \(its requests do not say it supports form elicitation\), and this server declines such calls\. The call was not made\./,
      )
      assert.deepEqual(await ran('unasked'), [])
    } finally {
      await client.close()
    }
  })

  it('refuses a forged, another principal’s and a replayed state, each changing nothing, and resumes with the real one once', async () => {
    const alice = await connectManual(serve.url, ALICE_KEY)
    const bob = await connectManual(serve.url, BOB_KEY)
    try {
      const args = {
        description: 'erase guarded',
        code: "await tools.flaky_erase({ tag: 'guarded' })\nreturn 'erased guarded'",
      }
      const first = await callManually(alice, { arguments: args })
      assert.ok(isInputRequired(first), `the first answer asks: ${JSON.stringify(first)}`)
      const [key] = Object.keys(first.inputRequests)
      assert.ok(key !== undefined)
      assert.equal(first.inputRequests[key]?.method, 'elicitation/create')
      const accept = { [key]: { action: 'accept', content: {} } }
      const state = first.requestState
      // One character of the signed body changed.
      const middle = Math.floor(state.length / 3)
      const forged = state.slice(0, middle) + (state[middle] === 'A' ? 'B' : 'A') + state.slice(middle + 1)
      for (const [client, sent, reason] of [
        [alice, forged, 'forged'],
        [bob, state, 'other-principal'],
      ] as const) {
        await assert.rejects(
          callManually(client, { arguments: args, inputResponses: accept, requestState: sent }),
          /Invalid or expired requestState/,
        )
        assert.match(serve.stderr(), new RegExp(`"audit":"request_state".*"refused":"${reason}"`))
      }
      assert.deepEqual(await ran('guarded'), [], 'no refused retry ran the call')
      const resumed = await callManually(alice, { arguments: args, inputResponses: accept, requestState: state })
      assert.match(firstText(resumed), /^erased guarded\n\nsession: s_/)
      await assert.rejects(
        callManually(alice, { arguments: args, inputResponses: accept, requestState: state }),
        /Invalid or expired requestState/,
      )
      assert.match(serve.stderr(), /"audit":"request_state","time":"[^"]+","principal":"alice","refused":"replayed"/)
      assert.deepEqual(await ran('guarded'), ['erase guarded'], 'the call ran once, and the code never twice')
    } finally {
      await alice.close()
      await bob.close()
    }
  })
})

describe('serve --http: a paused run nobody resumes', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: HttpServe
  let flakyLog: string

  function ran(tag: string): string[] {
    const text = existsSync(flakyLog) ? readFileSync(flakyLog, 'utf8') : ''
    return text.split('\n').filter(line => line === `erase ${tag}`)
  }

  before(async () => {
    ;({ temp, serve, flakyLog } = await startPausingServe('code-runtime-paused-late-', [
      '--timeout-ms',
      String(SHORT_TIMEOUT_MS),
    ]))
  })
  after(async () => {
    await serve?.stop('SIGKILL')
    await temp?.remove()
  })

  it('ends a run nobody resumes at its budget; a late retry gets that outcome, and an expired state is refused', async () => {
    const client = await connectManual(serve.url, ALICE_KEY)
    try {
      const args = { description: 'erase late', code: "await tools.flaky_erase({ tag: 'late' })\nreturn 'erased late'" }
      const late = await callManually(client, { arguments: args })
      const expiring = await callManually(client, {
        arguments: {
          description: 'erase expired',
          code: "await tools.flaky_erase({ tag: 'expired' })\nreturn 'erased expired'",
        },
      })
      const pausedAt = Date.now()
      assert.ok(isInputRequired(late) && isInputRequired(expiring))
      // Both runs end by their budget while nobody answers: their audit lines say so.
      await waitFor(
        () => serve.auditLines().filter(line => line.outcome === 'timeout').length === 2,
        'both paused runs to end at their budget',
        30_000,
      )
      const [key] = Object.keys(late.inputRequests)
      const outcome = await callManually(client, {
        arguments: args,
        inputResponses: { [key ?? '']: { action: 'accept', content: {} } },
        requestState: late.requestState,
      })
      assert.match(
        firstText(outcome),
        /timeout.*while tools\.flaky_erase waited for a person's approval/s,
        'the retry gets the run that ended, not a new run',
      )
      // Past the budget and its margin (as long again as the budget, at most 30 s), nothing is left to resume.
      await sleep(Math.max(0, pausedAt + 2 * SHORT_TIMEOUT_MS + 500 - Date.now()))
      await assert.rejects(
        callManually(client, {
          arguments: args,
          inputResponses: { [Object.keys(expiring.inputRequests)[0] ?? '']: { action: 'accept', content: {} } },
          requestState: expiring.requestState,
        }),
        /Invalid or expired requestState/,
      )
      assert.match(serve.stderr(), /"refused":"expired"/)
      assert.deepEqual(ran('late'), [])
      assert.deepEqual(ran('expired'), [])
    } finally {
      await client.close()
    }
  })
})

describe('serve --http: paused runs in bulk', () => {
  it('pauses and resumes 1 000 runs in 8 sessions, approved and declined, each retry sent twice: no call runs twice, no run resumes twice, none is left', async () => {
    const { temp, serve, flakyLog } = await startPausingServe('code-runtime-paused-bulk-', [
      '--type-check',
      'off',
      '--max-runs-per-principal',
      '16',
    ])
    const clients = await Promise.all(Array.from({ length: 8 }, () => connectManual(serve.url, ALICE_KEY)))
    const RUNS = 1_000
    let resumedTwice = 0
    let wrongResults = 0
    try {
      let next = 0
      await Promise.all(
        clients.map(async client => {
          // Each client keeps one session: a run paused in it holds it until the run ends.
          let session: string | undefined
          for (let index = next++; index < RUNS; index = next++) {
            const approve = index % 3 !== 0
            const args = {
              description: `bulk ${index}`,
              code: `try { await tools.flaky_erase({ tag: 'bulk-${index}' }) } catch { return 'declined' }\nreturn 'erased'`,
              ...(session === undefined ? {} : { session }),
            }
            const first = await callManually(client, { arguments: args })
            assert.ok(isInputRequired(first), JSON.stringify(first))
            const key = Object.keys(first.inputRequests)[0] ?? ''
            const answer = approve ? { action: 'accept', content: {} } : { action: 'decline', content: {} }
            const retry = (): Promise<unknown> =>
              callManually(client, {
                arguments: args,
                inputResponses: { [key]: answer },
                requestState: first.requestState,
              })
            const settled = await Promise.allSettled([retry(), retry()])
            const answered = settled.filter(outcome => outcome.status === 'fulfilled')
            if (answered.length !== 1) resumedTwice++
            for (const outcome of answered) {
              const [value, handle] = firstText(outcome.value).split('\n\nsession: ')
              if (value !== (approve ? 'erased' : 'declined') || (session !== undefined && handle !== session))
                wrongResults++
              session = handle
            }
          }
        }),
      )
      assert.equal(resumedTwice, 0, 'each round resumed by exactly one of its two retries')
      assert.equal(wrongResults, 0)
      const erased = new Map<string, number>()
      for (const line of readFileSync(flakyLog, 'utf8').split('\n')) {
        if (line.startsWith('erase ')) erased.set(line.slice(6), (erased.get(line.slice(6)) ?? 0) + 1)
      }
      const expected = Array.from({ length: RUNS }, (_, index) => index).filter(index => index % 3 !== 0)
      assert.equal(erased.size, expected.length, 'every approved call ran, and no declined one')
      assert.ok(
        expected.every(index => erased.get(`bulk-${index}`) === 1),
        'no call ran twice',
      )
      const audit = serve.auditLines()
      assert.equal(audit.filter(line => line.audit === 'run_code').length, RUNS, 'every run ended: none left paused')
      assert.equal(audit.filter(line => line.refused === 'replayed').length, RUNS, 'each duplicate refused as a replay')
    } finally {
      await Promise.all(clients.map(client => client.close()))
      await serve.stop('SIGKILL')
      await temp.remove()
    }
  })
})

describe('serve --http --state-key', () => {
  it('refuses a key file others may read, and a key shorter than 32 bytes', async () => {
    const temp = await makeTempDirectory('code-runtime-state-key-')
    try {
      const config = { mcpServers: { flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH] } } }
      const loose = join(temp.path, 'loose.key')
      await writeFile(loose, 'k'.repeat(64))
      await chmod(loose, 0o644)
      const refusedLoose = await runServeToEnd(temp.path, config, ['--http', '0', '--state-key', loose])
      assert.notEqual(refusedLoose.code, 0)
      assert.match(
        refusedLoose.stderr,
        /loose\.key: may be read or written by others \(mode 644\); run chmod 600 on it/,
      )
      const short = join(temp.path, 'short.key')
      await writeFile(short, 'too short\n')
      await chmod(short, 0o600)
      const refusedShort = await runServeToEnd(temp.path, config, ['--http', '0', '--state-key', short])
      assert.notEqual(refusedShort.code, 0)
      assert.match(refusedShort.stderr, /a state key must be at least 32 bytes \(got 9\)/)
      const noHttp = await runServeToEnd(temp.path, config, ['--state-key', short])
      assert.match(noHttp.stderr, /--state-key needs --http/)
    } finally {
      await temp.remove()
    }
  })
})
