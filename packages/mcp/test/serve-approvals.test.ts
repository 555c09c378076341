/**
 * Approvals through `code-runtime serve`, driven by the official MCP client declaring elicitation
 * and a real memory server from npm (its delete tools are destructive): the person's answer
 * decides whether the call runs, a refusal is a failed call the program can catch, the wall
 * ceiling names the approval it waited for, a cancelled run_code cancels the question, and a
 * client that cannot ask gets the fallback (declined, never run). Every decision is in the log.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import {
  installedBin,
  makeTempDirectory,
  startServe,
  textOf,
  waitFor,
  type ElicitationAnswer,
  type ServeSession,
} from './serve-harness.js'

const SEED =
  "await tools.memory_create_entities({ entities: [{ name: 'draft', entityType: 'doc', observations: ['v1'] }] })\n"
const DELETE = "await tools.memory_delete_entities({ entityNames: ['draft'] })\n"
const NAMES = 'return (await tools.memory_read_graph()).entities.map((entity) => entity.name)'

describe('serve: approvals by elicitation', () => {
  let temp: Awaited<ReturnType<typeof makeTempDirectory>>
  let serve: ServeSession
  const questions: ElicitRequest[] = []
  let answer: ElicitationAnswer = async () => ({ action: 'accept', content: {} })

  before(async () => {
    temp = await makeTempDirectory('code-runtime-approvals-')
    const config = {
      mcpServers: {
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
        },
      },
    }
    serve = await startServe(
      temp.path,
      config,
      ['--backend', 'worker-thread', '--no-state', '--timeout-ms', '3000'],
      (request, extra) => {
        questions.push(request)
        return answer(request, extra)
      },
    )
  })
  after(async () => {
    await serve.close()
    await temp.remove()
  })

  it('runs the call the person accepts, after showing the tool, its arguments and the program', async () => {
    questions.length = 0
    answer = async () => ({ action: 'accept', content: { allowRestOfRun: false } })
    const names = await serve.runJson(SEED + DELETE + NAMES)
    assert.deepEqual(names, [])
    assert.equal(questions.length, 1)
    const message = questions[0]?.params.message ?? ''
    assert.match(message, /The program "test program" wants to call memory_delete_entities with:/)
    assert.match(message, /\nentityNames\[0\]: "draft"\n/)
    assert.match(serve.stderr(), /approval: memory_delete_entities allowed by the client/)
  })

  it('rejects a declined call in the program with the reason, and the program goes on', async () => {
    answer = async () => ({ action: 'decline', content: { reason: 'keep the draft' } })
    const result = await serve.runJson(
      `${SEED}let refusal = ''\ntry { ${DELETE.trim()} } catch (error) { refusal = error.message }\nreturn [refusal, (await tools.memory_read_graph()).entities.map((entity) => entity.name)]`,
    )
    assert.deepEqual(result, [
      'tools.memory_delete_entities: the person declined this call, so it was not made. Their reason: keep the draft',
      ['draft'],
    ])
    assert.match(serve.stderr(), /approval: memory_delete_entities declined by the client \(reason: keep the draft\)/)
  })

  // Attack: the program puts a long value first so that a cut question hides the dangerous one after it.
  it('shows every argument however long the one before it: a person who declines DANGER declines the call', async () => {
    questions.length = 0
    answer = async request =>
      request.params.message.includes('DANGER')
        ? { action: 'decline', content: { reason: 'no DANGER' } }
        : { action: 'accept', content: {} }
    const hiding = "await tools.memory_delete_entities({ entityNames: ['x'.repeat(4100), '/DANGER/everything'] })"
    const result = await serve.runJson(`try { ${hiding} } catch (error) { return error.message }`)
    assert.equal(
      result,
      'tools.memory_delete_entities: the person declined this call, so it was not made. Their reason: no DANGER',
    )
    const message = questions[0]?.params.message ?? ''
    assert.match(
      message,
      /\nentityNames\[0\]: "x+ …\[3902 characters left out\]… x+"\nentityNames\[1\]: "\/DANGER\/everything"\n/,
    )
  })

  it('times out a run whose question gets no answer before the wall ceiling, naming the approval', async () => {
    let questionSignal: AbortSignal | undefined
    answer = (_request, { signal }) => {
      questionSignal = signal
      return new Promise<ElicitResult>(() => {})
    }
    const result = await serve.runCode(DELETE)
    assert.equal(result.isError, true)
    assert.match(textOf(result), /code run failed \(timeout\)/)
    assert.match(textOf(result), /while tools\.memory_delete_entities waited for a person's approval/)
    // The server withdrew its question (notifications/cancelled reached the client).
    await waitFor(() => questionSignal?.aborted === true, 'the question to be cancelled')
    assert.deepEqual(await serve.runJson(NAMES), ['draft'])
  })

  it('aborts the run when the client cancels run_code while the question is open, and withdraws the question', async () => {
    let questionSignal: AbortSignal | undefined
    let markAsked!: () => void
    const asked = new Promise<void>(resolve => {
      markAsked = resolve
    })
    answer = (_request, { signal }) => {
      questionSignal = signal
      markAsked()
      return new Promise<ElicitResult>(() => {})
    }
    const controller = new AbortController()
    const running = serve.runCode(DELETE, { signal: controller.signal })
    await asked
    controller.abort('the user pressed stop')
    await assert.rejects(running)
    await waitFor(() => questionSignal?.aborted === true, 'the question to be cancelled')
    assert.deepEqual(await serve.runJson(NAMES), ['draft'])
  })
})

describe('serve: approvals for a client without elicitation', () => {
  it('declines such calls by default (the tool never runs), and allows them only with --approval-fallback allow', async () => {
    const temp = await makeTempDirectory('code-runtime-approvals-')
    const config = {
      mcpServers: {
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
        },
      },
    }
    try {
      const declining = await startServe(temp.path, config, ['--backend', 'worker-thread', '--no-state'])
      try {
        const result = await declining.runJson(
          `${SEED}try { ${DELETE.trim()} } catch (error) { return [error.message, (await tools.memory_read_graph()).entities.length] }`,
        )
        assert.deepEqual(result, [
          "tools.memory_delete_entities needs a person's approval and was declined without asking anyone: the MCP client cannot ask a person (it does not support elicitation), and this server declines such calls. The call was not made.",
          1,
        ])
        assert.match(
          declining.stderr(),
          /approval: memory_delete_entities declined by the fallback for clients without elicitation \(decline\)/,
        )
      } finally {
        await declining.close()
      }
      const allowing = await startServe(temp.path, config, [
        '--backend',
        'worker-thread',
        '--no-state',
        '--approval-fallback',
        'allow',
      ])
      try {
        assert.deepEqual(await allowing.runJson(DELETE + NAMES), [])
        assert.match(
          allowing.stderr(),
          /approval: memory_delete_entities allowed by the fallback for clients without elicitation \(allow\)/,
        )
      } finally {
        await allowing.close()
      }
    } finally {
      await temp.remove()
    }
  })

  it("asks for what the config's approve list names and not for what autoApprove names", async () => {
    const temp = await makeTempDirectory('code-runtime-approvals-')
    const config = {
      mcpServers: {
        memory: {
          command: installedBin('mcp-server-memory'),
          env: { MEMORY_FILE_PATH: join(temp.path, 'memory.jsonl') },
          approve: ['create_*'],
          autoApprove: ['delete_*'],
        },
      },
    }
    const serve = await startServe(temp.path, config, ['--backend', 'worker-thread', '--no-state'])
    try {
      const sdk = await serve.client.listTools()
      const description = sdk.tools[0]?.description ?? ''
      assert.match(description, /@needsApproval \*\/\n {2}memory_create_entities\(/)
      assert.doesNotMatch(description, /@needsApproval \*\/\n {2}memory_delete_entities\(/)
      const result = await serve.runJson(`try { ${SEED.trim()} } catch (error) { return error.message }`)
      assert.match(
        String(result),
        /memory_create_entities needs a person's approval and was declined without asking anyone/,
      )
      assert.deepEqual(await serve.runJson(DELETE + NAMES), [])
    } finally {
      await serve.close()
      await temp.remove()
    }
  })
})
