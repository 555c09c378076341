// `code-runtime serve` keeps answering while a program's type check keeps the compiler busy: the
// check runs in Code Mode's checker process, stops at its 5 s limit, and the program then runs
// unchecked, saying why. Before, this one statement blocked serve's only thread for 34-53 s
// (a `ping` waited as long) and the check then accepted it.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { installedBin, makeTempDirectory, startServe, textOf, type ServeSession } from './serve-harness.js'

const TERMS: string[] = []
for (let n = 99; n >= 60; n--) TERMS.push(`M<B<${n}>, B<99>>["length"]`)
const HOSTILE_CHECK_PROGRAM = `type B<N extends number, A extends any[] = []> = A["length"] extends N ? A : B<N, [...A, 1]>
type M<A extends any[], C extends any[], Acc extends any[] = []> = C extends [any, ...infer Rest] ? M<A, Rest, [...Acc, ...A]> : Acc
const z: ${TERMS.join(' | ')} = 0 as any
return 'ran'`

describe('code-runtime serve while a type check runs long', () => {
  let serve: ServeSession
  let remove: () => Promise<void>
  before(async () => {
    const temp = await makeTempDirectory('code-runtime-check-limits-')
    serve = await startServe(temp.path, {
      mcpServers: {
        memory: { command: installedBin('mcp-server-memory'), env: { MEMORY_FILE_PATH: join(temp.path, 'm.jsonl') } },
      },
    })
    remove = async () => {
      await serve.close().catch(() => undefined)
      await temp.remove()
    }
  })
  after(() => remove?.())

  it('answers pings throughout, then runs the program unchecked and says why', async () => {
    // The checker is warm: what follows measures the hostile check, not TypeScript's start.
    assert.equal(textOf(await serve.runCode('return 1')), '1')
    let settled = false
    const running = serve.runCode(HOSTILE_CHECK_PROGRAM).finally(() => {
      settled = true
    })
    const pingMs: number[] = []
    while (!settled && pingMs.length < 200) {
      const sent = performance.now()
      await serve.client.ping()
      pingMs.push(performance.now() - sent)
      await new Promise(resolve => setTimeout(resolve, 50))
    }
    const result = await running
    assert.equal(result.isError, false, textOf(result))
    assert.equal(
      textOf(result),
      'ran\nThe type check took longer than 5000 ms and was stopped; the program was not checked.',
    )
    // About 5 s of pings, each answered at once; a second is far above what a loaded machine adds.
    assert.ok(pingMs.length >= 20, `only ${pingMs.length} pings while the check ran`)
    assert.ok(Math.max(...pingMs) < 1_000, `slowest ping ${Math.round(Math.max(...pingMs))} ms`)
    // The next program is checked again (in a new checker process).
    const refused = await serve.runCode('return await tools.memory_read_grap()')
    assert.match(textOf(refused), /^The program was refused before it ran/)
  })
})
