/**
 * The model of the README example, so that it runs offline: the SDK's own ScriptedModel, which
 * answers the first request with a run_code call and the second from what run_code returned.
 * Your provider's model goes where the example uses it (e.g. `model: 'gpt-5.1'`).
 */
import type { AgentInputItem } from '@openai/agents'
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing'

const PROGRAM = `const [oslo, rome] = await Promise.all(['Oslo', 'Rome'].map((city) => tools.get_weather({ city })))
return rome.celsius - oslo.celsius`

/** The text of the last tool output the model was sent. */
function lastToolOutput(input: string | AgentInputItem[]): string {
  const results = typeof input === 'string' ? [] : input.filter(item => item.type === 'function_call_result')
  const output = results.at(-1)?.output
  if (typeof output === 'string') return output
  return output !== undefined && !Array.isArray(output) && output.type === 'text' ? output.text : '(no tool output)'
}

export function scriptedModel(): ScriptedModel {
  return new ScriptedModel([
    [
      functionCall(
        'run_code',
        { code: PROGRAM, description: 'temperature gap between Rome and Oslo' },
        { callId: 'call_1' },
      ),
    ],
    modelResponder(({ request }) => [
      assistantMessage(`Rome is ${lastToolOutput(request.input)} °C warmer than Oslo.`),
    ]),
  ])
}
