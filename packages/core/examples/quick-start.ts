/**
 * What `@code-runtime/core` gives a backend author, in one runnable file: a toy backend started
 * with `startCodeRuntime`, built from the shared request validator, the lossless-JSON snapshotter
 * and the output ledger.
 *
 * The toy runs nothing: it understands one kind of program, `return <JSON literal>`. Real
 * backends (`@code-runtime/worker-thread`, `@code-runtime/process`) run TypeScript.
 *
 * Run it after `npx tsc -b packages/core`: `node packages/core/dist/examples/quick-start.js`.
 */
import type { Context } from '@deepseek-ai/cordis'
import {
  CodeRuntime,
  CodeRuntimeError,
  startCodeRuntime,
  type CodeRunOutcome,
  type CodeRunRequest,
  type CodeRunResult,
} from '@code-runtime/core'
import { readConfigObject, readIntegerField, validateRunRequest } from '@code-runtime/core/internal'
import {
  OutputLedger,
  formatLosslessJsonRefusal,
  jsonValueByteLength,
  safeSnapshotLosslessJson,
} from '@code-runtime/core/json'

interface LiteralRuntimeConfig {
  readonly maxOutputBytes?: number
}

const PROGRAM_FORM = /^\s*return\s+([\s\S]*?);?\s*$/

class LiteralRuntime extends CodeRuntime {
  readonly language = 'typescript'
  // A label, not a security claim: this toy runs no program, so it isolates nothing.
  readonly isolation = 'worker-thread'
  private readonly maxOutputBytes: number
  private isDisposed = false

  constructor(ctx: Context, config: LiteralRuntimeConfig) {
    // Validate config before registering: a bad config fails the plugin load.
    const record = readConfigObject('literal', config, ['maxOutputBytes'])
    const maxOutputBytes = readIntegerField('literal', record, 'maxOutputBytes', {
      default: 1_024,
      min: 4,
      max: Number.MAX_SAFE_INTEGER,
    })
    super(ctx)
    this.maxOutputBytes = maxOutputBytes
    ctx.effect(() => () => {
      this.isDisposed = true
    })
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    // Misuse of the seam rejects; everything the program does resolves.
    if (this.isDisposed) throw new CodeRuntimeError('CODE_RUNTIME_DISPOSED', 'The runtime was disposed.')
    const startedAt = performance.now()
    const { program } = validateRunRequest(request)
    const ledger = new OutputLedger(this.maxOutputBytes)
    const outcome = evaluateLiteral(program, ledger)
    // Every result, success or failure, says what the run used and which bindings it called.
    const usage = { wallMs: performance.now() - startedAt, busyMs: 0, bindingCalls: 0, outputBytes: ledger.outputBytes }
    return { ...outcome, usage, calls: [] }
  }
}

function evaluateLiteral(program: string, ledger: OutputLedger): CodeRunOutcome {
  const literal = PROGRAM_FORM.exec(program)?.[1]
  let value: unknown
  try {
    value = JSON.parse(literal ?? '')
  } catch {
    return ledger.settleFailure('exception', 'Line 1: this runtime only runs `return <JSON literal>`.')
  }
  const snapshot = safeSnapshotLosslessJson(value, { rootLabel: 'result' })
  if (!snapshot.ok) return ledger.settleFailure('invalid-output', formatLosslessJsonRefusal(snapshot.error))
  return ledger.settleValue(snapshot.value, jsonValueByteLength(snapshot.value))
}

const { runtime, dispose } = await startCodeRuntime(LiteralRuntime, { maxOutputBytes: 200 })
try {
  const programs = ['return { "answer": 42 }', 'return 6 * 7', 'return -0', `return "${'x'.repeat(300)}"`]
  for (const program of programs) {
    const { usage, calls, ...outcome } = await runtime.run({ program, bindings: [] })
    console.log(`${JSON.stringify(outcome)} (${usage.outputBytes} output bytes, ${calls.length} calls)`)
  }
  try {
    await runtime.run({ program: 'return 1', bindings: [{ global: 'console', functions: {} }] })
  } catch (error) {
    if (!CodeRuntimeError.is(error)) throw error
    console.log(`${error.code}: ${error.message}`)
  }
} finally {
  await dispose()
}

try {
  await startCodeRuntime(LiteralRuntime, { maxOutputBytes: 2 })
} catch (error) {
  if (!CodeRuntimeError.is(error)) throw error
  console.log(`${error.code}: ${error.message}`)
}
