/**
 * What crosses the edge of `run_code`: its listing (name, description, input schema) and the one
 * decoder of its arguments. Every front end lists and reads `run_code` through these, so the
 * schema a model is shown and the check its arguments meet cannot drift apart.
 */
import type { Checked } from '@code-runtime/core'
import type { JsonSchema } from '../tools/tool-definition.js'

/** The arguments of `run_code`. */
export interface RunCodeInput {
  /** The program: the body of an async function, erasable TypeScript. */
  readonly code: string
  /** One line saying what the program is for; shown to people watching, never run. */
  readonly description: string
  /** Only when run_code is bound to a session: forget every variable before running this program. */
  readonly reset?: boolean
  /**
   * Only where sessions are named by handles (a server without a connection per client): the
   * session to run in, as an earlier result named it; absent: a new session.
   */
  readonly session?: string
}

/** `run_code` as a tool list shows it. */
export interface RunCodeListing {
  readonly name: 'run_code'
  readonly description: string
  readonly inputSchema: JsonSchema
}

/**
 * The JSON Schema of {@link RunCodeInput}. The property descriptions only point at the rules: the
 * tool's description states them, and the model reads both on every request.
 */
const RUN_CODE_INPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: Object.freeze({
    code: Object.freeze({ type: 'string', description: 'The program, written by the rules in the tool description.' }),
    description: Object.freeze({ type: 'string', description: 'One short line saying what this program does.' }),
  }),
  required: Object.freeze(['code', 'description']),
  additionalProperties: false,
})

/** The JSON Schema of {@link RunCodeInput} when `run_code` is bound to a session: `reset` too. */
const RUN_CODE_SESSION_INPUT_SCHEMA: JsonSchema = Object.freeze({
  ...RUN_CODE_INPUT_SCHEMA,
  properties: Object.freeze({
    ...(RUN_CODE_INPUT_SCHEMA.properties as Record<string, JsonSchema>),
    reset: Object.freeze({
      type: 'boolean',
      description: 'true: forget every variable of earlier runs before running this program.',
    }),
  }),
})

/** The JSON Schema of {@link RunCodeInput} when sessions are named by handles: `reset` and `session`. */
const RUN_CODE_SESSION_HANDLE_INPUT_SCHEMA: JsonSchema = Object.freeze({
  ...RUN_CODE_SESSION_INPUT_SCHEMA,
  properties: Object.freeze({
    ...(RUN_CODE_SESSION_INPUT_SCHEMA.properties as Record<string, JsonSchema>),
    session: Object.freeze({
      type: 'string',
      description: 'The session id an earlier result gave, to keep its variables; omit it to start a new session.',
    }),
  }),
})

/**
 * How runs of `run_code` keep state: not at all (`false`), in the one session the connection is
 * bound to (`true`), or in the session each call names by its handle (`'handle'`).
 */
export type RunCodeSessionMode = boolean | 'handle'

/**
 * The listing of `run_code` with `description`; bound to a session (`session: true`), its input
 * takes `reset` too, and with sessions named by handles (`session: 'handle'`) also `session`.
 * @example const listing = listRunCode(codeMode.tool.description, { session: false })
 */
export function listRunCode(description: string, options: { readonly session: RunCodeSessionMode }): RunCodeListing {
  const inputSchema =
    options.session === 'handle'
      ? RUN_CODE_SESSION_HANDLE_INPUT_SCHEMA
      : options.session
        ? RUN_CODE_SESSION_INPUT_SCHEMA
        : RUN_CODE_INPUT_SCHEMA
  return { name: 'run_code', description, inputSchema }
}

/**
 * What a session handle looks like: the ids a server hands out are of these characters, and
 * bounded (a handle that names where its session lives, signed, is a few hundred characters).
 */
const SESSION_HANDLE_PATTERN = /^[A-Za-z0-9_-]{1,300}$/

/** The arguments of `run_code` once decoded: `reset` is `false` when it was not given. */
export interface DecodedRunCodeInput {
  readonly code: string
  readonly description: string
  readonly reset: boolean
  /** Only when decoded with `sessionHandles`, and given. */
  readonly session?: string
}

/**
 * Decodes the arguments of a `run_code` call, or says in one sentence for the model what is wrong
 * with them. Reads each field once; what JSON can carry never makes it throw. `session` is read
 * only with `sessionHandles` (elsewhere it is not part of the input, and ignored like any other).
 * @example safeParseRunCodeInput({ code: 'return 1', description: 'one' }) // { ok: true, value: { code: 'return 1', description: 'one', reset: false } }
 */
export function safeParseRunCodeInput(
  input: unknown,
  options: { readonly sessionHandles?: boolean } = {},
): Checked<DecodedRunCodeInput> {
  if (typeof input !== 'object' || input === null)
    return { ok: false, error: 'run_code takes an object { code, description }.' }
  const { code, description, reset, session } = input as {
    code?: unknown
    description?: unknown
    reset?: unknown
    session?: unknown
  }
  if (typeof code !== 'string' || code.trim() === '')
    return { ok: false, error: 'run_code needs `code`: the program, as a non-empty string.' }
  if (typeof description !== 'string')
    return { ok: false, error: 'run_code needs `description`: one line saying what the program does.' }
  if (reset !== undefined && typeof reset !== 'boolean')
    return { ok: false, error: 'run_code takes `reset` as true or false.' }
  if (options.sessionHandles !== true || session === undefined) {
    return { ok: true, value: { code, description, reset: reset === true } }
  }
  if (typeof session !== 'string' || !SESSION_HANDLE_PATTERN.test(session))
    return {
      ok: false,
      error: 'run_code takes `session` as the session id an earlier result gave (omit it for a new session).',
    }
  return { ok: true, value: { code, description, reset: reset === true, session } }
}
