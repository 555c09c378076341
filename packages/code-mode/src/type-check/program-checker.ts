/**
 * The checker of one Code Mode: a warm language service over the SDK, and the policy that sorts
 * its diagnostics into the ones that refuse a program and the hints shown only if a run fails.
 */
import type ts from 'typescript'
import type { JsonSchema } from '../tools/tool-definition.js'
import { findCallFailures, type CallFailure } from './call-failures.js'
import { sdkForChecking } from './checked-sdk.js'
import {
  createCheckerService,
  isIgnoredDiagnostic,
  PROGRAM_FILE,
  SDK_FILE,
  sessionFileName,
} from './checker-service.js'
import { blankHtmlLikeComments } from './html-like-comments.js'
import {
  EVERY_NAME,
  keptDeclarationsText,
  keptTypes,
  UNKNOWN_KEPT_TYPE,
  writtenNames,
  type KeptNames,
} from './kept-names.js'
import {
  UNCHECKED_PROGRAM,
  type ProgramCheck,
  type ProgramDiagnostic,
  type ProgramDiagnosticCategory,
  type TypeCheckMode,
} from './program-check.js'
import { createProgramLocator, PROGRAM_WRAPPER_HEAD, wrapProgram, type ProgramLocator } from './program-positions.js'
import { loadTypeScript, type TypeScript } from './typescript-loader.js'
import { createUnknownMemberTest } from './unknown-members.js'

/** What a checker is built from: the SDK the model read, and the schemas the runtime validates. */
export interface ProgramCheckerOptions {
  /** `EmittedSdk.declarations`. */
  readonly declarations: string
  /** The global holding the tools. */
  readonly namespace: string
  /** The input schema of each member whose arguments are validated before its tool runs. */
  readonly schemas: ReadonlyMap<string, JsonSchema>
  /** Longest time of one check, in ms; default {@link CHECK_TIME_LIMIT_MS}. */
  readonly timeLimitMs?: number
}

/** A check in a session: the outcome, and what the program keeps if it runs. */
export interface SessionProgramCheck {
  readonly check: ProgramCheck
  /** Name → type of each name the program declares at top level; empty when it was refused. */
  readonly kept: ReadonlyMap<string, string>
}

export interface ProgramChecker {
  /** Checks one program; synchronous once the checker exists. */
  check(code: string, mode: Exclude<TypeCheckMode, 'off'>): ProgramCheck
  /**
   * Checks one program of a session: the names earlier runs kept are declared, with their
   * types, and the names this program keeps come back typed by this check.
   */
  checkInSession(code: string, mode: Exclude<TypeCheckMode, 'off'>, session: KeptNames): SessionProgramCheck
}

/** How often the session's declarations are re-checked after demoting the faulty ones: each pass only demotes. */
const SESSION_REPAIR_PASSES = 3

/**
 * Grammar errors TypeScript reports in its semantic pass that the runtime's parser or type
 * stripping refuses too: non-erasable syntax (1294), `await` or `for await` outside an async
 * function (1308, 1103), `import`/`export` inside the program's function (1232, 1233).
 */
const RUNTIME_SYNTAX_CODES: ReadonlySet<number> = new Set([1103, 1232, 1233, 1294, 1308])

/**
 * Syntax TypeScript's parser refuses but the runtime's does not: octal escapes and leading-zero
 * decimals (1487-1489, allowed outside strict mode, which programs run in), and TypeScript's own
 * checks of regular expressions (1499-1538), stricter than the lenient Annex B grammar engines
 * accept (`/]/`, `/\-/`) and tied to a target older than the runtime (the `v` flag). Hints, never
 * certain failures.
 */
function isLenientSyntax(code: number): boolean {
  return (code >= 1487 && code <= 1489) || (code >= 1499 && code <= 1538)
}

/** TypeScript's "Invalid character.", which it also says of identifier letters newer than its Unicode tables. */
const INVALID_CHARACTER_CODE = 1127

/** A letter the runtime's (newer) Unicode allows in a name. */
const IDENTIFIER_CHARACTER = /^[\p{ID_Continue}$\u200c\u200d]$/u

/**
 * The longest a check may keep the host's thread: warm checks take tens of milliseconds, and
 * even a first check on a loaded machine stays well under it.
 */
export const CHECK_TIME_LIMIT_MS = 5_000

/** TypeScript's message for 1294 names a compiler option the model never set; say what it means here. */
const NON_ERASABLE_MESSAGE =
  "This syntax cannot run here: only erasable TypeScript runs (no 'enum', value 'namespace' or constructor parameter properties)."

/**
 * Diagnostics reported (and sorted into categories) per check, in the program's order: a model
 * fixes the first ones first, and a program with thousands of errors costs no more to describe.
 */
const MAX_DIAGNOSTICS = 50

/**
 * The diagnostics that carry a "did you mean": a property (2551), a name (2552), a field of an
 * object literal (2561). Their related information "'x' is declared here." (2728) points at the
 * suggested declaration; other diagnostics attach it too (to a missing field), so only these count.
 */
const DID_YOU_MEAN_CODES: ReadonlySet<number> = new Set([2551, 2552, 2561])
const DECLARED_HERE_CODE = 2728

/**
 * The innermost node whose text holds `position`. Lists of children (a body of 20 000 statements)
 * are searched by halves, so locating every diagnostic of a long program stays far from quadratic.
 */
function innermostNode(typescript: TypeScript, source: ts.SourceFile, position: number): ts.Node {
  const holds = (node: ts.Node): boolean => node.getStart(source) <= position && position < node.getEnd()
  let node: ts.Node = source
  for (;;) {
    let inner: ts.Node | undefined
    typescript.forEachChild(
      node,
      child => {
        if (!holds(child)) return undefined
        inner = child
        return true
      },
      children => {
        let low = 0
        let high = children.length
        while (low < high) {
          const middle = (low + high) >> 1
          if ((children[middle] as ts.Node).getEnd() <= position) low = middle + 1
          else high = middle
        }
        const child = children[low]
        if (child === undefined || !holds(child)) return undefined
        inner = child
        return true
      },
    )
    if (inner === undefined) return node
    node = inner
  }
}

/** True when the character at `wrappedOffset` (a code point, maybe two UTF-16 units) may stand in a name. */
function isIdentifierCharacterAt(code: string, wrappedOffset: number): boolean {
  const codePoint = code.codePointAt(wrappedOffset - PROGRAM_WRAPPER_HEAD.length)
  return codePoint !== undefined && codePoint > 0x7f && IDENTIFIER_CHARACTER.test(String.fromCodePoint(codePoint))
}

function suggestionOf(diagnostic: ts.Diagnostic, message: string): string | undefined {
  if (!DID_YOU_MEAN_CODES.has(diagnostic.code)) return undefined
  const declared = diagnostic.relatedInformation?.find(
    related => related.code === DECLARED_HERE_CODE && related.file !== undefined && related.start !== undefined,
  )
  if (declared?.file !== undefined && declared.start !== undefined && declared.length !== undefined) {
    const name = declared.file.text.slice(declared.start, declared.start + declared.length)
    if (/^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(name)) return name
  }
  return /Did you mean(?: to write)? '([^']+)'\?/.exec(message)?.[1]
}

export async function createProgramChecker(options: ProgramCheckerOptions): Promise<ProgramChecker> {
  const typescript = await loadTypeScript()
  const { namespace, schemas, timeLimitMs = CHECK_TIME_LIMIT_MS } = options
  const { service, setProgram, setSessionDeclarations } = createCheckerService(
    typescript,
    sdkForChecking(typescript, options.declarations, namespace),
  )
  // Warm before any program is timed: the library and the SDK are parsed and bound here, with no
  // deadline, so `timeLimitMs` bounds a program's own check, never the first one's start-up (which
  // takes seconds on a loaded machine).
  setProgram('', Number.POSITIVE_INFINITY)
  service.getSemanticDiagnostics(PROGRAM_FILE)

  function toProgramDiagnostic(
    diagnostic: ts.Diagnostic,
    category: ProgramDiagnosticCategory,
    locator: ProgramLocator,
  ): ProgramDiagnostic {
    const start = diagnostic.start ?? 0
    const flattened = typescript.flattenDiagnosticMessageText(diagnostic.messageText, '\n').replace(/\n\s*/g, ' ')
    const message = diagnostic.code === 1294 ? NON_ERASABLE_MESSAGE : flattened
    const suggestion = suggestionOf(diagnostic, flattened)
    const located = {
      ...locator.locate(start),
      code: diagnostic.code,
      category,
      message,
      text: locator.excerpt(start, diagnostic.length ?? 0),
    }
    return suggestion === undefined ? located : { ...located, suggestion }
  }

  /** The category of each semantic error, from where it sits in the program and what is there. */
  function categorize(diagnostics: readonly ts.Diagnostic[]): ProgramDiagnosticCategory[] {
    const program = service.getProgram()
    const source = program?.getSourceFile(PROGRAM_FILE)
    if (program === undefined || source === undefined) return diagnostics.map(() => 'other')
    const checker = program.getTypeChecker()
    const isNamespace = (node: ts.Expression): boolean => {
      if (!typescript.isIdentifier(node) || node.text !== namespace) return false
      return (
        checker
          .getSymbolAtLocation(node)
          ?.declarations?.some(declaration => declaration.getSourceFile().fileName === SDK_FILE) === true
      )
    }
    const context = { typescript, checker, source, isNamespace }
    const isUnknownMemberCall = createUnknownMemberTest(context)
    let failures: CallFailure[] | undefined
    return diagnostics.map(diagnostic => {
      if (RUNTIME_SYNTAX_CODES.has(diagnostic.code)) return 'syntax'
      if (isLenientSyntax(diagnostic.code)) return 'other'
      const start = diagnostic.start ?? 0
      if (isUnknownMemberCall(innermostNode(typescript, source, start))) return 'unknown-member'
      failures ??= findCallFailures({ ...context, schemas })
      // The failure whose anchor holds the diagnostic's start most tightly is the one it reports.
      let best: { category: ProgramDiagnosticCategory; size: number } | undefined
      for (const failure of failures) {
        for (const anchor of failure.anchors) {
          const size = anchor.end - anchor.start
          if (anchor.start <= start && start < anchor.end && (best === undefined || size < best.size))
            best = { category: failure.category, size }
        }
      }
      return best?.category ?? 'other'
    })
  }

  // Each session's declarations files as they last checked clean, by the files' own text.
  const repaired = new WeakMap<KeptNames, readonly { readonly raw: string; readonly text: string }[]>()

  /**
   * Declares the session's names, with each one that does not check on its own (a type naming
   * something only its program declared, a name that is also a global) declared `any`, and
   * dropped if even that fails: a kept name must never turn into an error of the next program.
   * Only the files whose names changed since the last check are checked again: a declaration
   * resolves nothing but the SDK and the globals, so one file's faults never depend on another's.
   */
  function declareSession(session: KeptNames): void {
    const raws = session.declarationFiles()
    const known = repaired.get(session) ?? []
    const texts = raws.map((raw, index) => (known[index]?.raw === raw ? known[index].text : raw))
    let unchecked = raws.flatMap((raw, index) => (known[index]?.raw === raw ? [] : [index]))
    // The entries of each file being checked, line by line as its current text declares them.
    const entriesOf = new Map(unchecked.map(index => [index, session.fileEntries(index)]))
    for (let pass = 0; pass < SESSION_REPAIR_PASSES && unchecked.length > 0; pass++) {
      setSessionDeclarations(texts)
      const program = service.getProgram()
      unchecked = unchecked.filter(index => {
        const fileName = sessionFileName(index)
        const source = program?.getSourceFile(fileName)
        const faulty = new Set<number>()
        for (const diagnostic of [
          ...service.getSyntacticDiagnostics(fileName),
          ...service.getSemanticDiagnostics(fileName),
        ]) {
          if (source !== undefined && diagnostic.start !== undefined)
            faulty.add(source.getLineAndCharacterOfPosition(diagnostic.start).line)
        }
        if (faulty.size === 0) return false
        const entries = (entriesOf.get(index) ?? []).flatMap((entry, line) =>
          !faulty.has(line) ? [entry] : entry[1] === UNKNOWN_KEPT_TYPE ? [] : [[entry[0], UNKNOWN_KEPT_TYPE] as const],
        )
        entriesOf.set(index, entries)
        texts[index] = keptDeclarationsText(entries)
        return true
      })
    }
    setSessionDeclarations(texts)
    repaired.set(
      session,
      raws.map((raw, index) => ({ raw, text: texts[index] as string })),
    )
  }

  /**
   * Name → type of what the program just checked keeps (its wrapper function's top-level
   * declarations), and `any` for each name the session kept that the program may assign: its
   * value, and so its type, is no longer what the declaring run said.
   */
  function keptByProgram(session: KeptNames, isUntyped: boolean): Map<string, string> {
    const program = service.getProgram()
    const source = program?.getSourceFile(PROGRAM_FILE)
    const wrapper = source?.statements[0]
    if (
      program === undefined ||
      source === undefined ||
      wrapper === undefined ||
      !typescript.isFunctionDeclaration(wrapper) ||
      wrapper.body === undefined
    )
      return new Map()
    const kept = keptTypes(typescript, program.getTypeChecker(), wrapper.body.statements, namespace)
    const written = writtenNames(typescript, wrapper.body, name => session.has(name) || kept.has(name))
    for (const name of written === EVERY_NAME ? [...session.names(), ...kept.keys()] : written)
      kept.set(name, UNKNOWN_KEPT_TYPE)
    if (isUntyped) for (const name of kept.keys()) kept.set(name, UNKNOWN_KEPT_TYPE)
    return kept
  }

  // `check` then `run` of one program (a front end's check command, a retried run) checks once.
  let last:
    | {
        code: string
        mode: string
        session: KeptNames | undefined
        revision: number
        check: ProgramCheck
        kept?: ReadonlyMap<string, string>
      }
    | undefined

  function checkProgram(
    code: string,
    mode: Exclude<TypeCheckMode, 'off'>,
    session: KeptNames | undefined,
  ): { check: ProgramCheck; kept?: ReadonlyMap<string, string> } {
    const wrapped = wrapProgram(code)
    const blanked = blankHtmlLikeComments(typescript, wrapped)
    setProgram(blanked ?? wrapped, performance.now() + timeLimitMs)
    try {
      if (session === undefined) {
        setSessionDeclarations([])
        return { check: blanked === undefined ? UNCHECKED_PROGRAM : sortDiagnostics(code, mode) }
      }
      declareSession(session)
      // Too many HTML-like comments to read the program as the runtime does: nothing is refused,
      // and what it keeps is known by name only.
      const check = blanked === undefined ? UNCHECKED_PROGRAM : sortDiagnostics(code, mode)
      return { check, kept: check.refused ? new Map() : keptByProgram(session, check === UNCHECKED_PROGRAM) }
    } catch (error) {
      if (error instanceof typescript.OperationCanceledException)
        throw new Error(
          `The type check took longer than ${timeLimitMs} ms and was stopped; the program was not checked.`,
        )
      throw error
    }
  }

  function sortDiagnostics(code: string, mode: Exclude<TypeCheckMode, 'off'>): ProgramCheck {
    const locator = createProgramLocator(code)
    const syntactic = service.getSyntacticDiagnostics(PROGRAM_FILE)
    const certainSyntax = syntactic.filter(diagnostic => !isLenientSyntax(diagnostic.code))
    // TypeScript misread a name the runtime reads: its parse of the rest cannot be trusted to refuse anything.
    if (
      certainSyntax.some(
        diagnostic =>
          diagnostic.code === INVALID_CHARACTER_CODE && isIdentifierCharacterAt(code, diagnostic.start ?? 0),
      )
    )
      return UNCHECKED_PROGRAM
    if (certainSyntax.length > 0) {
      // The runtime cannot parse it either; type errors of a half-parsed program would only mislead.
      return {
        refused: true,
        errors: certainSyntax
          .slice(0, MAX_DIAGNOSTICS)
          .map(diagnostic => toProgramDiagnostic(diagnostic, 'syntax', locator)),
        hints: [],
      }
    }
    const semantic = service
      .getSemanticDiagnostics(PROGRAM_FILE)
      .filter(
        diagnostic => diagnostic.category === typescript.DiagnosticCategory.Error && !isIgnoredDiagnostic(diagnostic),
      )
    const reported = [...syntactic, ...semantic]
      .sort((left, right) => (left.start ?? 0) - (right.start ?? 0))
      .slice(0, MAX_DIAGNOSTICS)
    if (reported.length === 0) return { refused: false, errors: [], hints: [] }
    const categories = categorize(reported)
    const diagnostics = reported.map((diagnostic, index) =>
      toProgramDiagnostic(diagnostic, categories[index] as ProgramDiagnosticCategory, locator),
    )
    const errors = mode === 'strict' ? diagnostics : diagnostics.filter(diagnostic => diagnostic.category !== 'other')
    const hints = mode === 'strict' ? [] : diagnostics.filter(diagnostic => diagnostic.category === 'other')
    return { refused: errors.length > 0, errors, hints }
  }

  function cachedCheck(
    code: string,
    mode: Exclude<TypeCheckMode, 'off'>,
    session: KeptNames | undefined,
  ): NonNullable<typeof last> {
    const revision = session?.revision ?? 0
    if (
      last?.code !== code ||
      last.mode !== mode ||
      last.session !== session ||
      last.revision !== revision ||
      (session !== undefined && last.kept === undefined)
    ) {
      last = { code, mode, session, revision, ...checkProgram(code, mode, session) }
    }
    return last
  }

  return {
    check(code, mode) {
      return cachedCheck(code, mode, undefined).check
    },
    checkInSession(code, mode, session) {
      const { check, kept } = cachedCheck(code, mode, session)
      return { check, kept: kept ?? new Map() }
    },
  }
}
