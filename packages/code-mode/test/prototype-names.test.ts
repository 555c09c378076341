// Names of Object.prototype members (`constructor`, `toString`, `__proto__`, `hasOwnProperty`)
// are ordinary names: as tool names and as argument properties, they are looked up as own names
// only, never found on (or written to) a prototype. Real worker-thread runs, with the check on.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createCodeMode, type CodeModeTool } from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty'] as const

/** A tool named `name` whose optional number properties carry every prototype name; it returns what it got. */
function echoTool(name: string): CodeModeTool {
  return {
    name,
    description: `Echoes its arguments (${name}).`,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(PROTOTYPE_NAMES.map(property => [property, { type: 'number' }])),
    },
    execute: async args => ({ tool: name, keys: Object.keys(args as object) }),
  }
}

describe('Object.prototype member names as tool and property names', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime({ computeMs: 2_000 })
  })
  after(() => started.dispose())

  it('accepts {} for optional properties named after prototype members', async () => {
    const codeMode = createCodeMode({ tools: [echoTool('echo')], runtime: started.runtime })
    const output = await codeMode.run('return await tools.echo({})')
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(JSON.parse(output.text), { tool: 'echo', keys: [] })
  })

  it('still validates a property named after a prototype member when it is given', async () => {
    const codeMode = createCodeMode({ tools: [echoTool('echo')], runtime: started.runtime, typeCheck: 'off' })
    const wrong = await codeMode.run('return await tools.echo({ constructor: "x" })')
    assert.match(wrong.text, /args\.constructor must be number/)
    const right = await codeMode.run('return await tools.echo({ constructor: 1, toString: 2, hasOwnProperty: 3 })')
    assert.deepEqual(JSON.parse(right.text), { tool: 'echo', keys: ['constructor', 'toString', 'hasOwnProperty'] })
  })

  it('calls tools named after prototype members, each its own', async () => {
    const codeMode = createCodeMode({ tools: PROTOTYPE_NAMES.map(echoTool), runtime: started.runtime })
    for (const name of PROTOTYPE_NAMES) {
      const member = codeMode.sdk.memberNames.get(name)
      assert.ok(member !== undefined, `${name} has a member`)
      const output = await codeMode.run(`return await tools[${JSON.stringify(member)}]({})`)
      assert.equal(output.isError, false, `${name}: ${output.text}`)
      assert.equal(JSON.parse(output.text).tool, name)
    }
  })
})
