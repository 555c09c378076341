/**
 * What a LangChain tool's `invoke` resolved with, as the value the program receives. LangChain
 * tools may return any value, a ToolMessage they built themselves, or (with `responseFormat:
 * 'content_and_artifact'`) a content and an artifact, of which `invoke` without a tool call id
 * resolves the content. The program gets what the model would have got: the content.
 */
import { isDirectToolOutput, ToolMessage } from '@langchain/core/messages'

/** The text of a message's content, for an error the program catches. */
function contentText(message: ToolMessage): string {
  const text = message.text
  if (text !== '') return text
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content)
}

/**
 * The program's value for one tool output: a ToolMessage becomes its content, and one with
 * `status: 'error'` rejects the call with its text; anything else is passed on as it is (the
 * runtime refuses, by the call, a value JSON cannot carry).
 * @throws {Error} for an error ToolMessage, or a LangGraph `Command` (a graph update the program
 *   cannot receive).
 */
export function programValueOf(toolName: string, output: unknown): unknown {
  if (ToolMessage.isInstance(output)) {
    if (output.status === 'error') throw new Error(contentText(output) || `${toolName} failed.`)
    return output.content
  }
  if (isDirectToolOutput(output)) {
    throw new Error(
      `${toolName} returned a graph update (a LangGraph Command), which a program cannot receive; call this tool directly, beside run_code.`,
    )
  }
  return output
}
