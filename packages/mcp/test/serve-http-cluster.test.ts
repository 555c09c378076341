/**
 * Several gateway nodes in front of one fleet, as a deployment behind a load balancer runs them,
 * all real processes on this machine: a nats-server with a password, two `code-runtime runner`s,
 * and two `serve --http --nats` nodes with the same `--state-key`. A client of SDK 2 pinned to
 * 2026-07-28 sends each call to whichever node the test picks: the session's variables (and the
 * check's knowledge of their types, under `--type-check strict`) follow it from node to node; a
 * paused approval is resumed through the other node; a SIGKILLed node's sessions go on on the
 * other (its paused run is lost with it), and so do a SIGTERMed node's; a SIGKILLed runner's
 * sessions say "session lost" on both nodes.
 */
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { Client } from '@modelcontextprotocol/client'
import { startNatsServer, type NatsServer } from '@code-runtime/nats/local-server'
import {
  connectV2,
  firstText,
  startHttpServe,
  writeKeysFile,
  type HttpServe,
  ALICE_KEY,
  BOB_KEY,
  callManually,
  connectManual,
  type InputRequired,
} from './serve-http-harness.js'
import { FLAKY_SERVER_PATH, makeTempDirectory, startRunnerProcess, type RunnerProcess } from './serve-harness.js'

const NATS_USER = 'fleet'
const NATS_PASS = randomBytes(12).toString('hex')
const ENV = { PATH: process.env.PATH ?? '', NATS_USER, NATS_PASS }

/** A runner of the fleet: every node is one caller identity to it, so its per-caller share is all of it. */
function startFleetRunner(url: string): Promise<RunnerProcess> {
  return startRunnerProcess(
    url,
    ['--backend', 'worker-thread', '--concurrency', '32', '--max-runs-per-caller', '32'],
    ENV,
  )
}

interface Answer {
  readonly text: string
  readonly isError: boolean
  readonly session: string | undefined
}

async function run(client: Client, code: string, session?: string): Promise<Answer> {
  const result = await client.callTool({
    name: 'run_code',
    arguments: { code, description: 'cluster test', ...(session === undefined ? {} : { session }) },
  })
  const text = firstText(result)
  const structured = (result as { structuredContent?: { session?: unknown } }).structuredContent
  const line = /\n\nsession: (\S+)$/.exec(text)?.[1]
  assert.equal(structured?.session, line, 'structuredContent.session is the handle the text names')
  return { text, isError: result.isError === true, session: line }
}

describe('serve --http --nats: two gateway nodes, two runners, one session', { timeout: 240_000 }, () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let nats: NatsServer
  const runners: RunnerProcess[] = []
  const nodes: HttpServe[] = []
  let flakyLog: string
  let startNode: () => Promise<HttpServe>

  function ran(tag: string): string[] {
    const text = existsSync(flakyLog) ? readFileSync(flakyLog, 'utf8') : ''
    return text.split('\n').filter(line => line.endsWith(` ${tag}`) && /^(tally|erase) /.test(line))
  }

  before(async () => {
    temp = await makeTempDirectory('code-runtime-cluster-')
    nats = await startNatsServer({ user: NATS_USER, pass: NATS_PASS })
    runners.push(...(await Promise.all([startFleetRunner(nats.url), startFleetRunner(nats.url)])))
    flakyLog = join(temp.path, 'flaky.log')
    const keysPath = await writeKeysFile(temp.path, { alice: ALICE_KEY, bob: BOB_KEY })
    const stateKey = join(temp.path, 'state.key')
    await writeFile(stateKey, randomBytes(32).toString('base64'))
    await chmod(stateKey, 0o600)
    startNode = () =>
      startHttpServe(
        temp.path,
        {
          mcpServers: {
            flaky: { command: process.execPath, args: [FLAKY_SERVER_PATH], env: { FIXTURE_LOG: flakyLog } },
          },
        },
        [
          '--http',
          '0',
          '--auth-keys',
          keysPath,
          '--nats',
          nats.url,
          '--state-key',
          stateKey,
          '--type-check',
          'strict',
          '--timeout-ms',
          '60000',
        ],
        ENV,
      )
    nodes.push(...(await Promise.all([startNode(), startNode()])))
  })
  after(async () => {
    await Promise.all(nodes.map(node => node.stop('SIGKILL')))
    for (const runner of runners) runner.child.kill('SIGKILL')
    await nats?.dispose()
    await temp?.remove()
  })

  /** The node at `index` now (a killed node is replaced by a new one). */
  const node = (index: number): HttpServe => nodes[index] as HttpServe

  it('says at start that this node is one of several, sharing its sessions by the state key', () => {
    for (const serve of nodes) assert.match(serve.stderr(), /gateway node \S+: any node with the same state key/)
  })

  it('keeps a session’s variables, and their types for the strict check, while calls alternate between the nodes', async () => {
    const [a, b] = await Promise.all([
      connectV2(node(0).url, ALICE_KEY, 'modern'),
      connectV2(node(1).url, ALICE_KEY, 'modern'),
    ])
    try {
      const first = await run(a, "let count = 1\nconst label = 'alternating'\nreturn count")
      assert.equal(first.isError, false, first.text)
      let handle = first.session
      assert.ok(handle !== undefined, first.text)
      for (let turn = 2; turn <= 6; turn++) {
        const client = turn % 2 === 0 ? b : a
        // `label.toUpperCase()` passes the strict check only where the check knows `label` is a string.
        const next = await run(client, 'count += 1\nreturn `${label.toUpperCase()} ${count}`', handle)
        assert.equal(next.isError, false, next.text)
        assert.match(next.text, new RegExp(`^ALTERNATING ${turn}\\n`), next.text)
        handle = next.session
      }
      // The check knows the types on the other node too: a wrong use is refused there, nothing run.
      const refused = await run(b, 'count += 1\nreturn label.toFixed(2)', handle)
      assert.equal(refused.isError, true)
      assert.match(refused.text, /toFixed/)
      assert.match((await run(a, 'return count', handle)).text, /^6\n/)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('gives another principal nothing of a handle, on either node', async () => {
    const alice = await connectV2(node(0).url, ALICE_KEY, 'modern')
    const bob = await connectV2(node(1).url, BOB_KEY, 'modern')
    try {
      const opened = await run(alice, "const secret = 'alice only'\nreturn 1")
      for (const client of [bob]) {
        const stolen = await run(client, 'return secret', opened.session)
        assert.equal(stolen.isError, true)
        assert.match(stolen.text, /There is no session \S+ of yours/)
      }
      // A made-up handle (a real one with its MAC changed) names nothing either.
      const handle = opened.session ?? ''
      const forged = `${handle.slice(0, 5)}${handle[5] === 'A' ? 'B' : 'A'}${handle.slice(6)}`
      assert.match((await run(alice, 'return secret', forged)).text, /There is no session \S+ of yours/)
      assert.match((await run(alice, 'return secret', handle)).text, /^alice only\n/)
    } finally {
      await Promise.all([alice.close(), bob.close()])
    }
  })

  it('resumes an approval paused on one node through the other: the call runs once, and a replay is refused on both', async () => {
    const onA = await connectManual(node(0).url, ALICE_KEY)
    const onB = await connectManual(node(1).url, ALICE_KEY)
    try {
      const args = {
        description: 'erase across nodes',
        code: "const n = await tools.flaky_tally({ tag: 'across' })\nawait tools.flaky_erase({ tag: 'across' })\nreturn `erased after ${n}`",
      }
      const first = (await callManually(onA, { arguments: args })) as InputRequired
      assert.equal(first.resultType, 'input_required', JSON.stringify(first))
      assert.deepEqual(ran('across'), ['tally across'], 'paused after the first call ran')
      const [key] = Object.keys(first.inputRequests)
      const accept = { [key ?? '']: { action: 'accept', content: {} } }
      const resumed = await callManually(onB, {
        arguments: args,
        inputResponses: accept,
        requestState: first.requestState,
      })
      assert.match(firstText(resumed), /^erased after 1\n\nsession: c/)
      assert.deepEqual(ran('across'), ['tally across', 'erase across'])
      for (const client of [onA, onB]) {
        await assert.rejects(
          callManually(client, { arguments: args, inputResponses: accept, requestState: first.requestState }),
          /Invalid or expired requestState/,
        )
      }
      assert.match(node(0).stderr(), /"audit":"request_state".*"principal":"alice","refused":"replayed"/)
      assert.deepEqual(
        ran('across'),
        ['tally across', 'erase across'],
        'no replay ran a call, and the code never ran twice',
      )
    } finally {
      await Promise.all([onA.close(), onB.close()])
    }
  })

  it('resumes a round once when its retry is sent to both nodes at once', async () => {
    const onA = await connectManual(node(0).url, ALICE_KEY)
    const onB = await connectManual(node(1).url, ALICE_KEY)
    try {
      const args = {
        description: 'erase twice sent',
        code: "await tools.flaky_erase({ tag: 'both' })\nreturn 'erased both'",
      }
      const first = (await callManually(onB, { arguments: args })) as InputRequired
      assert.equal(first.resultType, 'input_required', JSON.stringify(first))
      const [key] = Object.keys(first.inputRequests)
      const retry = {
        arguments: args,
        inputResponses: { [key ?? '']: { action: 'accept', content: {} } },
        requestState: first.requestState,
      }
      const settled = await Promise.allSettled([callManually(onA, retry), callManually(onB, retry)])
      const resumed = settled.filter(outcome => outcome.status === 'fulfilled')
      assert.equal(resumed.length, 1, JSON.stringify(settled))
      assert.match(firstText((resumed[0] as PromiseFulfilledResult<unknown>).value), /^erased both\n/)
      const refused = settled.find(outcome => outcome.status === 'rejected')
      assert.match(String(refused?.reason), /Invalid or expired requestState/)
      assert.deepEqual(ran('both'), ['erase both'])
    } finally {
      await Promise.all([onA.close(), onB.close()])
    }
  })

  it('goes on with a session on the other node after the node that held it is SIGKILLed', async () => {
    const a = await connectV2(node(0).url, ALICE_KEY, 'modern')
    const b = await connectV2(node(1).url, ALICE_KEY, 'modern')
    try {
      const opened = await run(a, "let notes = ['kept']\nreturn notes.length")
      assert.equal(opened.isError, false, opened.text)
      // And a run paused on that node: it dies with it.
      const manualOnA = await connectManual(node(0).url, ALICE_KEY)
      const args = {
        description: 'erase orphan',
        code: "await tools.flaky_erase({ tag: 'orphan' })\nreturn 'erased orphan'",
      }
      const paused = (await callManually(manualOnA, { arguments: args })) as InputRequired
      assert.equal(paused.resultType, 'input_required', JSON.stringify(paused))
      await Promise.all([a.close(), manualOnA.close()].map(closing => closing.catch(() => undefined)))
      assert.equal(await node(0).stop('SIGKILL'), 'SIGKILL')
      const manualOnB = await connectManual(node(1).url, ALICE_KEY)
      try {
        const [key] = Object.keys(paused.inputRequests)
        const late = await callManually(manualOnB, {
          arguments: args,
          inputResponses: { [key ?? '']: { action: 'accept', content: {} } },
          requestState: paused.requestState,
        })
        assert.match(
          firstText(late),
          /was paused on another gateway node \(\S+\), which does not answer.*lost with it/s,
        )
        assert.deepEqual(ran('orphan'), [], 'the call of the lost run never ran')
        assert.match(node(1).stderr(), /"refused":"node-unreachable"/)
      } finally {
        await manualOnB.close()
      }
      // Longer than a runner waits before it calls a silent caller gone.
      await new Promise(resolve => setTimeout(resolve, 2_500))
      const after = await run(b, "notes.push('after')\nreturn notes.join(' ')", opened.session)
      assert.equal(after.isError, false, after.text)
      assert.match(after.text, /^kept after\n/)
    } finally {
      await b.close()
      nodes[0] = await startNode()
    }
  })

  it('leaves its sessions to the other node when a node is stopped with SIGTERM (a rolling restart)', async () => {
    const a = await connectV2(node(0).url, ALICE_KEY, 'modern')
    const b = await connectV2(node(1).url, ALICE_KEY, 'modern')
    try {
      const opened = await run(a, "const greeting = 'still here'\nreturn greeting.length")
      assert.equal(opened.isError, false, opened.text)
      await a.close().catch(() => undefined)
      assert.equal(await node(0).stop('SIGTERM'), 143)
      await new Promise(resolve => setTimeout(resolve, 2_500))
      const after = await run(b, 'return greeting.toUpperCase()', opened.session)
      assert.equal(after.isError, false, after.text)
      assert.match(after.text, /^STILL HERE\n/)
    } finally {
      await b.close()
      nodes[0] = await startNode()
    }
  })

  it('says "session lost" on both nodes for a session whose runner is SIGKILLed', async () => {
    const a = await connectV2(node(0).url, ALICE_KEY, 'modern')
    const b = await connectV2(node(1).url, ALICE_KEY, 'modern')
    try {
      const opened = await run(b, "let doomed = 'here'\nreturn doomed")
      assert.equal(opened.isError, false, opened.text)
      const handle = opened.session ?? ''
      // The handle names where the session lives: which runner to kill.
      const address = Buffer.from(handle.slice(23), 'base64url').toString('utf8')
      const holder = runners.find(runner => address.includes(runner.id))
      assert.ok(holder !== undefined, `one runner holds ${address}`)
      holder.child.kill('SIGKILL')
      // The node that holds it finds its runner silent; the other finds no runner to take it from.
      const onHolder = await run(b, 'return doomed', handle)
      assert.equal(onHolder.isError, true)
      assert.match(onHolder.text, /session lost/)
      const onOther = await run(a, 'return doomed', handle)
      assert.equal(onOther.isError, true)
      assert.match(onOther.text, /session lost/)
      // And again on the holder, now that it knows: the handle names nothing any more.
      assert.match((await run(b, 'return doomed', handle)).text, /session lost/)
      // A new session still runs, on the runner left.
      const fresh = await run(a, 'return 40 + 2')
      assert.match(fresh.text, /^42\n/)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})
