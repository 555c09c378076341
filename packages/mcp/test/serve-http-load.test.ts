/**
 * `code-runtime serve --http` under the load of a team: 200 `run_code` calls at once from 10
 * principals (SDK 2 clients, revision 2026-07-28, one-shot runs), each calling a real upstream tool
 * that logs when it starts and ends. Every caller must get its own result, the audit must name the
 * right principal for each run, the server must keep to its limits (runs in flight per principal
 * and in total, read off the upstream's log), and its memory must stay bounded.
 */
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Client } from '@modelcontextprotocol/client'
import { connectV2, firstText, startHttpServe, writeKeysFile, type HttpServe } from './serve-http-harness.js'
import { FLAKY_SERVER_PATH, makeTempDirectory } from './serve-harness.js'

const PRINCIPALS = Array.from({ length: 10 }, (_, index) => `member${index}`)
const CALLS_PER_PRINCIPAL = 20
const MAX_RUNS = 12
const MAX_RUNS_PER_PRINCIPAL = 3
const keyOf = (principal: string): string => `${principal}-key-0123456789abcdef0123456789abcdef`

/** The most calls of each tag in flight at once, and of all tags together, from the upstream's log. */
function inFlight(log: string): { byTag: Map<string, number>; total: number } {
  const running = new Map<string, number>()
  const byTag = new Map<string, number>()
  let now = 0
  let total = 0
  for (const line of log.split('\n')) {
    const found = /^pause (start|end) (\S+)$/.exec(line)
    if (found === null) continue
    const [, edge, tag = ''] = found
    const step = edge === 'start' ? 1 : -1
    running.set(tag, (running.get(tag) ?? 0) + step)
    now += step
    byTag.set(tag, Math.max(byTag.get(tag) ?? 0, running.get(tag) ?? 0))
    total = Math.max(total, now)
  }
  return { byTag, total }
}

/** The peak resident set of a process, in MiB (Linux). */
async function peakResidentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]
  assert.ok(kib !== undefined, 'the kernel reports the peak resident set')
  return Number(kib) / 1024
}

describe('serve --http under load: 200 run_code calls at once from 10 principals', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: HttpServe
  let fixtureLog: string
  const clients = new Map<string, Client>()

  before(async () => {
    temp = await makeTempDirectory('code-runtime-http-load-')
    const keysPath = await writeKeysFile(temp.path, Object.fromEntries(PRINCIPALS.map(name => [name, keyOf(name)])))
    fixtureLog = join(temp.path, 'flaky.log')
    await writeFile(fixtureLog, '')
    serve = await startHttpServe(
      temp.path,
      {
        mcpServers: {
          flaky: {
            command: process.execPath,
            args: [FLAKY_SERVER_PATH],
            env: { FIXTURE_LOG: fixtureLog, FIXTURE_PAUSE: '1' },
          },
        },
      },
      [
        '--http',
        '0',
        '--auth-keys',
        keysPath,
        '--backend',
        'worker-thread',
        '--no-state',
        '--type-check',
        'off',
        '--max-runs',
        String(MAX_RUNS),
        '--max-runs-per-principal',
        String(MAX_RUNS_PER_PRINCIPAL),
        '--timeout-ms',
        '120000',
      ],
    )
    for (const principal of PRINCIPALS) clients.set(principal, await connectV2(serve.url, keyOf(principal), 'modern'))
  })
  after(async () => {
    await Promise.allSettled([...clients.values()].map(client => client.close()))
    await serve?.stop('SIGKILL')
    await temp?.remove()
  })

  it('answers every caller with its own result, keeps to its limits, and stays within its memory', async t => {
    const calls = PRINCIPALS.flatMap(principal =>
      Array.from({ length: CALLS_PER_PRINCIPAL }, async (_, index) => {
        const client = clients.get(principal) as Client
        const tag = `${principal}/${index}`
        const result = await client.callTool({
          name: 'run_code',
          arguments: {
            code: `const echoed = await tools.flaky_pause({ tag: ${JSON.stringify(principal)}, ms: 30 })\nreturn echoed + ' ' + ${JSON.stringify(tag)}`,
            description: tag,
          },
        })
        return { principal, tag, isError: result.isError === true, text: firstText(result) }
      }),
    )
    const results = await Promise.all(calls)
    for (const result of results) {
      assert.equal(result.isError, false, `${result.tag}: ${result.text}`)
      assert.equal(result.text, `${result.principal} ${result.tag}`)
    }

    const audit = serve.auditLines()
    assert.equal(audit.length, PRINCIPALS.length * CALLS_PER_PRINCIPAL)
    for (const line of audit) {
      const description = String(line.description)
      assert.equal(line.principal, description.slice(0, description.indexOf('/')), 'the audit names who asked')
      assert.equal(line.outcome, 'ok')
    }

    const { byTag, total } = inFlight(await readFile(fixtureLog, 'utf8'))
    assert.deepEqual([...byTag.keys()].sort(), [...PRINCIPALS].sort())
    for (const [principal, most] of byTag) {
      assert.ok(most <= MAX_RUNS_PER_PRINCIPAL, `${principal} had ${most} runs in flight at once`)
    }
    assert.ok(total <= MAX_RUNS, `${total} runs were in flight at once`)
    assert.ok(total > MAX_RUNS_PER_PRINCIPAL, `principals ran beside each other (at most ${total} at once)`)

    const peak = await peakResidentMiB(serve.child.pid as number)
    t.diagnostic(`serve's peak resident set: ${peak.toFixed(0)} MiB; most runs in flight at once: ${total}`)
    assert.ok(peak < 1_024, `serve's peak resident set stays bounded: ${peak.toFixed(0)} MiB`)
  })
})
