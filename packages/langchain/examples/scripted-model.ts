/**
 * A chat model that answers from a script, so the example and the tests run offline: your
 * provider's model (`new ChatOpenAI(...)`, `new ChatAnthropic(...)`) goes where it is used. It is
 * a real LangChain `BaseChatModel`; it records what it was asked and which tools it was given.
 */
import { BaseChatModel, type BindToolsInput } from '@langchain/core/language_models/chat_models'
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'

/** One answer of the script: a message, or a function of the messages the model was sent. */
export type ScriptedReply = AIMessage | ((messages: readonly BaseMessage[]) => AIMessage)

/** Answers each call with the next reply of its script. */
export class ScriptedChatModel extends BaseChatModel {
  /** The messages of each call, in call order. */
  readonly seen: BaseMessage[][] = []
  /** The tools the agent bound, last binding. */
  boundTools: readonly BindToolsInput[] = []
  readonly #replies: readonly ScriptedReply[]

  constructor(replies: readonly ScriptedReply[]) {
    super({})
    this.#replies = replies
  }

  _llmType(): string {
    return 'scripted'
  }

  // One model for every binding: the script's position is shared by the agent's steps.
  override bindTools(tools: BindToolsInput[]): this {
    this.boundTools = tools
    return this
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const reply = this.#replies[this.seen.length]
    this.seen.push(messages)
    if (reply === undefined)
      throw new Error(`The script has ${this.#replies.length} replies; call ${this.seen.length} has none.`)
    const message = typeof reply === 'function' ? reply(messages) : reply
    return { generations: [{ message, text: typeof message.content === 'string' ? message.content : '' }] }
  }
}

/** A reply calling one tool. */
export function callTool(name: string, args: Record<string, unknown>, id = 'call_1'): AIMessage {
  return new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })
}

/** The example's model: it calls run_code with one program, then answers with what it printed. */
export function scriptedModel(): ScriptedChatModel {
  const code = [
    "const [oslo, rome] = await Promise.all(['Oslo', 'Rome'].map((city) => tools.get_weather({ city })))",
    'const gap = await tools.to_fahrenheit({ celsius: rome.celsius - oslo.celsius })',
    'return `${gap - 32} °F`',
  ].join('\n')
  return new ScriptedChatModel([
    callTool('run_code', { code, description: 'how much warmer Rome is than Oslo, in °F' }),
    messages => new AIMessage(`Rome is warmer by ${String(messages.filter(ToolMessage.isInstance).at(-1)?.content)}.`),
  ])
}
