/**
 * The checker child's entry: it builds one checker per SDK it is sent (shared by every Code Mode
 * of the host process with that SDK), mirrors the names each session kept, and answers one
 * request at a time. A check that runs too long or too large ends this child; the host starts
 * another. It ends with the host: a closed channel means nobody waits for an answer.
 */
import type { JsonSchema } from '../tools/tool-definition.js'
import type { CheckerAnswer, CheckerRequest, KeptEntry, SessionState } from './checker-protocol.js'
import { KeptNames } from './kept-names.js'
import { createProgramChecker, type ProgramChecker } from './program-checker.js'

const send = process.send?.bind(process)
if (send === undefined) throw new Error('checker-child.js runs only as a child process with an IPC channel.')
process.once('disconnect', () => process.exit(0))

const checkers = new Map<string, Promise<ProgramChecker>>()
/** Each session's names as the host last sent them, by the host's token for the session. */
const sessions = new Map<number, { revision: number; names: KeptNames }>()

/**
 * The thread's copy of a session's names. Rebuilt from the entries (file by file, in the order
 * each was first kept), it holds the same declarations files as the host's, so the checker keeps
 * the parses of the files that did not change.
 */
function sessionNames(state: SessionState): KeptNames {
  let known = sessions.get(state.token)
  if (known === undefined) {
    known = { revision: -1, names: new KeptNames() }
    sessions.set(state.token, known)
  }
  if (state.entries !== undefined && known.revision !== state.revision) {
    known.names.clear()
    known.names.merge(new Map(state.entries))
    known.revision = state.revision
  }
  return known.names
}

async function answer(request: CheckerRequest): Promise<CheckerAnswer | undefined> {
  switch (request.type) {
    case 'create': {
      const { declarations, namespace, schemas, timeLimitMs } = request.spec
      let checker = checkers.get(request.key)
      if (checker === undefined) {
        checker = createProgramChecker({
          declarations,
          namespace,
          schemas: new Map<string, JsonSchema>(schemas),
          timeLimitMs,
        })
        checkers.set(request.key, checker)
      }
      await checker
      return { type: 'created', id: request.id }
    }
    case 'check': {
      const checker = await checkers.get(request.key)
      if (checker === undefined) throw new Error('No checker was created for this SDK.')
      if (request.session === undefined)
        return { type: 'checked', id: request.id, check: checker.check(request.code, request.mode) }
      const { check, kept } = checker.checkInSession(request.code, request.mode, sessionNames(request.session))
      return { type: 'checked', id: request.id, check, kept: [...kept] satisfies KeptEntry[] }
    }
    case 'release':
      checkers.delete(request.key)
      return undefined
    case 'forget':
      sessions.delete(request.token)
      return undefined
  }
}

// One request at a time, in order: a check must see the session state sent before it.
let queue: Promise<void> = Promise.resolve()
process.on('message', (request: CheckerRequest) => {
  queue = queue.then(async () => {
    try {
      const answered = await answer(request)
      if (answered !== undefined) send(answered)
    } catch (error) {
      if (request.type === 'create') checkers.delete(request.key)
      if ('id' in request) send({ type: 'failed', id: request.id, message: messageOf(error) } satisfies CheckerAnswer)
    }
  })
})

function messageOf(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message))
    return "The type check overflowed the compiler's stack; the program was not checked."
  return error instanceof Error ? error.message : String(error)
}
