/**
 * A model that plays a script, so the examples and tests run offline: it calls `run_code` with
 * each program in turn, then answers with the text of the last tool result it was sent. Your
 * provider's model goes where the examples use it.
 */
import type { MastraModelConfig } from '@mastra/core/llm'
import { MockLanguageModelV4 } from 'ai/test'

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
type Prompt = MockLanguageModelV4['doGenerateCalls'][number]['prompt']

const USAGE: GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
}

/** What the last tool result in a prompt said to the model: its text, or its JSON. */
export function lastToolOutput(prompt: Prompt): { type: string; value: unknown } | undefined {
  for (const message of [...prompt].reverse()) {
    if (message.role !== 'tool') continue
    for (const part of message.content) {
      if (part.type === 'tool-result') return part.output as { type: string; value: unknown }
    }
  }
  return undefined
}

/**
 * A v4 language model as Mastra's Agent types it, plus what the model was sent at each step.
 * Mastra 1.71 types models with its own copy of the AI SDK's model spec, which lacks the
 * `interrupted` finish reason of the installed `ai`; the two are the same at run time.
 */
export type ScriptedModel = Extract<MastraModelConfig, { specificationVersion: 'v4' }> &
  Pick<MockLanguageModelV4, 'doGenerateCalls'>

/**
 * A scripted model: one `run_code` call per program (step by step), then a text answer that
 * quotes the last tool result. `model.doGenerateCalls` keeps what the model was sent each step.
 */
export function scriptedModel(programs: readonly string[]): ScriptedModel {
  let step = 0
  const model = new MockLanguageModelV4({
    doGenerate: async options => {
      const program = programs[step]
      step += 1
      if (program !== undefined) {
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `call-${step}`,
              toolName: 'run_code',
              input: JSON.stringify({ code: program, description: `step ${step}` }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: USAGE,
          warnings: [],
        }
      }
      const output = lastToolOutput(options.prompt)
      return {
        content: [{ type: 'text', text: `The program said: ${String(output?.value)}` }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: USAGE,
        warnings: [],
      }
    },
  })
  return model as unknown as ScriptedModel
}
