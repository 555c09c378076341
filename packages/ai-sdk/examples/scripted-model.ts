/**
 * A stand-in for a real model, so the example runs offline (your provider's model goes where the
 * example uses it): the first step calls run_code with a fixed program, the next one answers with
 * the text run_code returned, as a model would read it.
 */
import { MockLanguageModelV4 } from 'ai/test'

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/** A model whose first answer calls run_code with `program`, and whose second repeats what it read. */
export function scriptedModel(program: string): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1)
      if (last?.role !== 'tool') {
        const input = JSON.stringify({ code: program, description: 'Rome in Fahrenheit' })
        return {
          content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'run_code', input }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: USAGE,
          warnings: [],
        }
      }
      const result = last.content.find(part => part.type === 'tool-result')
      const read = result?.output.type === 'text' ? result.output.value : 'the program failed'
      return {
        content: [{ type: 'text', text: `It is ${read}.` }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: USAGE,
        warnings: [],
      }
    },
  })
}
