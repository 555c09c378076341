/**
 * Test support: scripted models on the SDK's own mock (`MockLanguageModelV4` of `ai/test`), the
 * one fake here, standing in for the LLM we cannot run offline. Each step calls run_code with the
 * next program; once the programs are used up, the model answers with the text of the last tool
 * result it read, so a test can check what the model saw.
 */
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test'
import { startCodeRuntime, type StartedCodeRuntime } from '@code-runtime/core'
import { WorkerThreadCodeRuntime } from '@code-runtime/worker-thread'

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer PART> ? PART : never
type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt']

export const USAGE: GenerateResult['usage'] = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** The SDK's telemetry off: the tests send nothing anywhere. */
export const NO_TELEMETRY = { isEnabled: false } as const

export function startRuntime(): Promise<StartedCodeRuntime<WorkerThreadCodeRuntime>> {
  return startCodeRuntime(WorkerThreadCodeRuntime, {})
}

/** The model's reply after the tool calls: the last tool result it read, as `<type>: <value>`. */
export function lastToolOutput(prompt: Prompt): string {
  const last = prompt.at(-1)
  if (last?.role !== 'tool') return 'no tool result'
  const part = last.content.find(entry => entry.type === 'tool-result')
  if (part === undefined) return 'no tool result'
  const { output } = part
  return output.type === 'text' || output.type === 'error-text'
    ? `${output.type}: ${output.value}`
    : `${output.type}: ${JSON.stringify(output)}`
}

function runCodeCall(index: number, code: string): { toolCallId: string; input: string } {
  return { toolCallId: `call-${index + 1}`, input: JSON.stringify({ code, description: `program ${index + 1}` }) }
}

/** A model for generateText: one run_code call per program, then a text answer. */
export function scriptedModel(programs: readonly string[]): MockLanguageModelV4 {
  let step = 0
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const index = step++
      const code = programs[index]
      if (code === undefined) {
        return {
          content: [{ type: 'text', text: lastToolOutput(prompt) }],
          finishReason: { unified: 'stop', raw: undefined },
          usage: USAGE,
          warnings: [],
        }
      }
      return {
        content: [{ type: 'tool-call', toolName: 'run_code', ...runCodeCall(index, code) }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: USAGE,
        warnings: [],
      }
    },
  })
}

/** A model for streamText: the same script, streamed. */
export function scriptedStreamingModel(programs: readonly string[]): MockLanguageModelV4 {
  let step = 0
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const index = step++
      const code = programs[index]
      const parts: StreamPart[] =
        code === undefined
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 'text-1' },
              { type: 'text-delta', id: 'text-1', delta: lastToolOutput(prompt) },
              { type: 'text-end', id: 'text-1' },
              { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: USAGE },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'tool-call', toolName: 'run_code', ...runCodeCall(index, code) },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: USAGE },
            ]
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
}

/** A promise with its settle function, for a check that waits on an event, not on time. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
}

export function createDeferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>(settle => {
    resolve = settle
  })
  return { promise, resolve }
}
