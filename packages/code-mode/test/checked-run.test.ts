// The type check inside createCodeMode on a real worker-thread runtime: a refused program never
// reaches the runtime (no tool is called), and a program that passed the check but failed at run
// time carries the checker's hints.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  createCodeMode,
  formatProgramDiagnostics,
  type CodeModeTool,
  type TypeCheckMode,
} from '@code-runtime/code-mode'
import { startRuntime } from './code-mode-runtime.js'

const REFUSAL = 'The program was refused before it ran (no tool was called): 1 type error.'
const HINTS_HEADING = 'Type hints (the checker flagged these; one may explain the failure):'

function recordingTools(called: string[]): CodeModeTool[] {
  return [
    {
      name: 'get-user',
      description: 'A user by id.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      outputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute: async args => {
        called.push(`get-user ${(args as { id: string }).id}`)
        return { name: 'Ada' }
      },
    },
    {
      name: 'send-mail',
      description: 'Sends a mail.',
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, subject: { type: 'string' } },
        required: ['to', 'subject'],
        additionalProperties: false,
      },
      execute: async args => {
        called.push(`send-mail ${(args as { to: string }).to}`)
        return { sent: true }
      },
    },
  ]
}

/** Two side effects, then a call with a misspelled field (`subjet`) that the runtime would refuse (the schema is closed). */
const MISSPELLED_THIRD_CALL = [
  "const user = await tools.get_user({ id: 'u1' })",
  "await tools.send_mail({ to: user.name, subject: 'hello' })",
  "await tools.send_mail({ to: user.name, subjet: 'again' })",
  'return user.name',
].join('\n')

describe('createCodeMode with the type check', () => {
  let started: Awaited<ReturnType<typeof startRuntime>>
  before(async () => {
    started = await startRuntime({ computeMs: 1_000 })
  })
  after(() => started.dispose())

  function codeMode(called: string[], typeCheck?: TypeCheckMode) {
    const tools = recordingTools(called)
    return createCodeMode(
      typeCheck === undefined ? { tools, runtime: started.runtime } : { tools, runtime: started.runtime, typeCheck },
    )
  }

  it('refuses a program whose third call cannot pass, before any tool is called', async () => {
    const called: string[] = []
    const output = await codeMode(called).tool.execute({ code: MISSPELLED_THIRD_CALL, description: 'mail twice' })
    assert.deepEqual(called, [])
    assert.equal(output.isError, true)
    assert.deepEqual(output.structured.calls, [])
    assert.equal(output.structured.usage, undefined)
    assert.equal(output.structured.error?.kind, 'refused')
    const diagnostics = output.structured.diagnostics ?? []
    assert.deepEqual(
      diagnostics.map(diagnostic => [diagnostic.category, diagnostic.line, diagnostic.column, diagnostic.suggestion]),
      [['unknown-field', 3, 40, 'subject']],
    )
    assert.equal(output.text, `${REFUSAL}\n${formatProgramDiagnostics(diagnostics)}`)
    assert.equal(output.structured.error.message, output.text)
    assert.match(
      output.text,
      /line 3, column 40: .*'subjet' does not exist .*Did you mean to write 'subject'\?\n {4}subjet$/,
    )
  })

  // With a warm checker the run starts while the check is in flight: a program that prints and calls a tool at once
  // is still refused before the call, and its live logs never reach the caller.
  it('holds the first tool call and the live logs of a program started before its refusal', async () => {
    const called: string[] = []
    const live: string[] = []
    const mode = codeMode(called)
    await mode.check('')
    // A thousand typed lines after the calls keep the check busy well past the run's first call,
    // yet well inside the check's own time limit on a loaded machine (4 000 lines once ran past it
    // there, and the run went on unchecked, as it should, but then this test sees no refusal).
    const padding = Array.from(
      { length: 1_000 },
      (_, index) => `const padding${index}: { n: number } = { n: ${index} }`,
    )
    const program = `console.log('before the call')\n${MISSPELLED_THIRD_CALL.replace('return user.name', padding.join('\n'))}`
    const output = await mode.run(program, {
      onLog: text => live.push(text),
    })
    assert.equal(output.structured.error?.kind, 'refused')
    assert.deepEqual(called, [])
    assert.deepEqual(live, [])
    assert.deepEqual(output.structured.logs, [])
  })

  it('gives a passed program its held live logs in order, then the rest', async () => {
    const called: string[] = []
    const live: string[] = []
    const mode = codeMode(called)
    await mode.check('')
    const output = await mode.run(
      "console.log('one')\nconst user = await tools.get_user({ id: 'u1' })\nconsole.log('two', user.name)\nreturn 3",
      { onLog: text => live.push(text) },
    )
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(called, ['get-user u1'])
    assert.deepEqual(live, ['one', 'two Ada'])
  })

  it('runs the same program once it is fixed', async () => {
    const called: string[] = []
    const output = await codeMode(called).run(MISSPELLED_THIRD_CALL.replace('subjet', 'subject'))
    assert.equal(output.isError, false, output.text)
    assert.deepEqual(called, ['get-user u1', 'send-mail Ada', 'send-mail Ada'])
    assert.equal(output.structured.diagnostics, undefined)
  })

  it('with the check off, runs it and fails only at the third call, after two side effects', async () => {
    const called: string[] = []
    const output = await codeMode(called, 'off').run(MISSPELLED_THIRD_CALL)
    assert.equal(output.isError, true)
    assert.deepEqual(called, ['get-user u1', 'send-mail Ada'])
    assert.match(output.text, /args\.subject is required/)
    assert.equal(output.structured.diagnostics, undefined)
  })

  it('appends the hints to a run that passed the check and failed', async () => {
    const called: string[] = []
    const output = await codeMode(called).run(
      "const user = await tools.get_user({ id: 'u1' })\nreturn user.names.length",
    )
    assert.equal(output.isError, true)
    assert.deepEqual(called, ['get-user u1'])
    assert.equal(output.structured.error?.kind, 'exception')
    const hints = output.structured.diagnostics ?? []
    assert.deepEqual(
      hints.map(hint => [hint.category, hint.line, hint.suggestion]),
      [['other', 2, 'name']],
    )
    assert.ok(output.text.endsWith(`\n\n${HINTS_HEADING}\n${formatProgramDiagnostics(hints)}`), output.text)
  })

  it('keeps the failure whole within a small text budget, the hints in structured', async () => {
    const tools = recordingTools([])
    const small = createCodeMode({ tools, runtime: started.runtime, maxResultChars: 200 })
    const output = await small.run("const user = await tools.get_user({ id: 'u1' })\nreturn user.names.length")
    assert.ok(output.text.length <= 200, output.text)
    assert.match(output.text, /^code run failed \(exception\)/)
    assert.equal(output.structured.diagnostics?.length, 1)
  })

  it('keeps the hints to itself when the run succeeds', async () => {
    const output = await codeMode([]).run(
      "const user = await tools.get_user({ id: 'u1' })\nconst n: number = user.name as unknown as string\nreturn n",
    )
    assert.equal(output.isError, false)
    assert.equal(output.text, 'Ada')
    assert.equal(output.structured.diagnostics, undefined)
  })

  it('runs a program the checker cannot check (the compiler overflows its stack) unchecked', async () => {
    const deep = `return ${'('.repeat(20_000)}1${')'.repeat(20_000)}`
    const mode = codeMode([])
    await assert.rejects(mode.check(deep), {
      code: 'CODE_MODE_CHECK_FAILED',
      message: "The type check overflowed the compiler's stack; the program was not checked.",
    })
    const output = await mode.run(deep)
    assert.notEqual(output.structured.error?.kind, 'refused')
    assert.ok(output.structured.usage !== undefined, 'the runtime ran it')
    assert.equal(
      output.structured.uncheckedBecause,
      "The type check overflowed the compiler's stack; the program was not checked.",
    )
    assert.ok(
      output.text.endsWith("\nThe type check overflowed the compiler's stack; the program was not checked."),
      output.text,
    )
  })

  it('runs the HTML-like comments the runtime reads as comments, in every mode, as with the check off', async () => {
    for (const program of [
      '<!-- note\nreturn 41 + 1',
      'const x = 42\n--> note\nreturn x',
      'var \u{1E5D0} = 42; return \u{1E5D0}',
    ]) {
      for (const mode of ['off', 'calls', 'strict'] as const) {
        const output = await codeMode([], mode).run(program)
        assert.equal(output.text, '42', `${mode}: ${program}`)
      }
    }
  })

  it('refuses a syntax error in every mode but off', async () => {
    for (const mode of ['calls', 'strict'] as const) {
      const output = await codeMode([], mode).run('return (')
      assert.equal(output.structured.error?.kind, 'refused', mode)
      assert.equal(output.structured.diagnostics?.[0]?.category, 'syntax')
    }
    const unchecked = await codeMode([], 'off').run('return (')
    assert.equal(unchecked.structured.error?.kind, 'exception')
  })
})
