/**
 * One warm TypeScript language service per Code Mode. Its files: the ES2023 library (no DOM),
 * the runtime's globals, the SDK (constant: parsed once), the names a session kept (in files of
 * a few dozen names each, so a run that keeps one more re-reads one small file; none outside a
 * session) and the program, which moves with every check. Library files are parsed once per
 * process: every service shares one document registry for them and one cache of their text.
 */
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type ts from 'typescript'
import { RUNTIME_GLOBALS_DECLARATIONS, RUNTIME_GLOBALS_FILE_NAME } from './runtime-globals.js'
import type { TypeScript } from './typescript-loader.js'

/** Virtual files live under this root, beside nothing on disk. */
const ROOT = '/code-mode-check/'
export const SDK_FILE = `${ROOT}sdk.d.ts`
export const PROGRAM_FILE = `${ROOT}program.ts`
/** The file of the `index`-th part of the names a session's earlier runs kept, as ambient declarations (see kept-names.ts). */
export function sessionFileName(index: number): string {
  return `${ROOT}session-${index}.d.ts`
}
const GLOBALS_FILE = ROOT + RUNTIME_GLOBALS_FILE_NAME

/**
 * Strict, minus what never decides whether a program runs: unused names, unreachable code. No
 * `@types` (the program has no Node), no emit. `erasableSyntaxOnly` flags what the runtime's
 * type stripping refuses (`enum`, value namespaces, parameter properties).
 *
 * `noImplicitAny` stays on although implicit `any` never counts: without it `const list = []`
 * is a `never[]` and every `list.push(x)` of lazy code is an error. Its own diagnostics (the
 * 7000 family) are dropped instead, see {@link isIgnoredDiagnostic}.
 */
export function checkerOptions(typescript: TypeScript): ts.CompilerOptions {
  return {
    strict: true,
    noImplicitAny: true,
    noUnusedLocals: false,
    noUnusedParameters: false,
    allowUnreachableCode: true,
    allowUnusedLabels: true,
    erasableSyntaxOnly: true,
    noEmit: true,
    skipLibCheck: true,
    skipDefaultLibCheck: true,
    target: typescript.ScriptTarget.ES2023,
    // ES2023 is what every supported Node (20 and later) runs: `toSorted`, `findLast`... must not be flagged.
    lib: ['lib.es2023.d.ts'],
    types: [],
    // The library comes from TypeScript's own folder; never look for `@typescript/lib-*` packages.
    libReplacement: false,
  }
}

/**
 * A registry that keeps the library in the process-wide one and this service's own files (the
 * SDK, the program) in its own, so they are freed with the service instead of piling up in the
 * shared registry for every Code Mode ever made.
 */
function splitRegistry(library: ts.DocumentRegistry, own: ts.DocumentRegistry): ts.DocumentRegistry {
  const pick = (fileNameOrPath: string): ts.DocumentRegistry => (fileNameOrPath.startsWith(ROOT) ? own : library)
  return {
    acquireDocument: (fileName, ...rest) => pick(fileName).acquireDocument(fileName, ...rest),
    acquireDocumentWithKey: (fileName, path, ...rest) => pick(path).acquireDocumentWithKey(fileName, path, ...rest),
    updateDocument: (fileName, ...rest) => pick(fileName).updateDocument(fileName, ...rest),
    updateDocumentWithKey: (fileName, path, ...rest) => pick(path).updateDocumentWithKey(fileName, path, ...rest),
    getKeyForCompilationSettings: settings => library.getKeyForCompilationSettings(settings),
    releaseDocument(
      fileName: string,
      settings: ts.CompilerOptions,
      scriptKind?: ts.ScriptKind,
      impliedNodeFormat?: ts.ResolutionMode,
    ) {
      pick(fileName).releaseDocument(fileName, settings, scriptKind as ts.ScriptKind, impliedNodeFormat)
    },
    releaseDocumentWithKey(
      path: ts.Path,
      key: ts.DocumentRegistryBucketKey,
      scriptKind?: ts.ScriptKind,
      impliedNodeFormat?: ts.ResolutionMode,
    ) {
      pick(path).releaseDocumentWithKey(path, key, scriptKind as ts.ScriptKind, impliedNodeFormat)
    },
    reportStats: () => library.reportStats(),
  }
}

/**
 * Diagnostics that never count, in any mode: the implicit-`any` family (7xxx: an untyped
 * parameter, an index by a string) says nothing about whether the program runs.
 */
export function isIgnoredDiagnostic(diagnostic: ts.Diagnostic): boolean {
  return diagnostic.code >= 7000 && diagnostic.code < 8000
}

interface SharedLibrary {
  readonly registry: ts.DocumentRegistry
  readonly snapshots: Map<string, ts.IScriptSnapshot | undefined>
}

let shared: SharedLibrary | undefined

function sharedLibrary(typescript: TypeScript): SharedLibrary {
  shared ??= { registry: typescript.createDocumentRegistry(), snapshots: new Map() }
  return shared
}

/** One declarations file of a session, as the service holds it. */
interface SessionFile {
  readonly name: string
  readonly text: string
  readonly snapshot: ts.IScriptSnapshot
  readonly version: number
}

/** The language service and the calls that change its program. */
export interface CheckerService {
  readonly service: ts.LanguageService
  /**
   * Replaces the program's text; the next query sees it. Queries after `deadline`
   * (`performance.now()` time) are cancelled: they throw TypeScript's OperationCanceledException.
   */
  setProgram(text: string, deadline: number): void
  /**
   * Replaces the session's declarations files (none outside a session): file `i` is
   * {@link sessionFileName}(i). A file whose text did not change keeps its parse.
   */
  setSessionDeclarations(files: readonly string[]): void
}

export function createCheckerService(typescript: TypeScript, sdkDeclarations: string): CheckerService {
  const options = checkerOptions(typescript)
  const { registry, snapshots } = sharedLibrary(typescript)
  const libraryDirectory = dirname(typescript.getDefaultLibFilePath(options))
  const ownFiles = new Map<string, ts.IScriptSnapshot>([
    [GLOBALS_FILE, typescript.ScriptSnapshot.fromString(RUNTIME_GLOBALS_DECLARATIONS)],
    [SDK_FILE, typescript.ScriptSnapshot.fromString(sdkDeclarations)],
  ])
  let programSnapshot = typescript.ScriptSnapshot.fromString('')
  let programVersion = 0
  // Versions are never reused, not even by a file dropped and declared again: a version names one text.
  let versions = 0
  const sessionFiles: SessionFile[] = []
  const sessionFileByName = new Map<string, SessionFile>()
  let scriptFileNames: string[] = [GLOBALS_FILE, SDK_FILE, PROGRAM_FILE]
  // The files whose text moves, by name.
  const movingSnapshot = (fileName: string): ts.IScriptSnapshot | undefined =>
    fileName === PROGRAM_FILE ? programSnapshot : sessionFileByName.get(fileName)?.snapshot
  let deadline = Number.POSITIVE_INFINITY
  // The checker polls this between the statements and functions it checks, so a program built
  // to keep it busy gives the host thread back at the deadline.
  const cancellation: ts.HostCancellationToken = { isCancellationRequested: () => performance.now() > deadline }

  function librarySnapshot(fileName: string): ts.IScriptSnapshot | undefined {
    if (!snapshots.has(fileName)) {
      let text: string | undefined
      try {
        text = readFileSync(fileName, 'utf8')
      } catch {
        text = undefined
      }
      snapshots.set(fileName, text === undefined ? undefined : typescript.ScriptSnapshot.fromString(text))
    }
    return snapshots.get(fileName)
  }

  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => scriptFileNames,
    getScriptVersion: fileName =>
      fileName === PROGRAM_FILE ? String(programVersion) : String(sessionFileByName.get(fileName)?.version ?? 0),
    getScriptSnapshot: fileName => movingSnapshot(fileName) ?? ownFiles.get(fileName) ?? librarySnapshot(fileName),
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: compilerOptions => typescript.getDefaultLibFilePath(compilerOptions),
    fileExists: fileName =>
      movingSnapshot(fileName) !== undefined || ownFiles.has(fileName) || librarySnapshot(fileName) !== undefined,
    readFile: fileName => {
      const snapshot = movingSnapshot(fileName) ?? ownFiles.get(fileName) ?? librarySnapshot(fileName)
      return snapshot?.getText(0, snapshot.getLength())
    },
    // Nothing is resolved from disk but the library: the program has no modules to import.
    directoryExists: directoryName => directoryName === libraryDirectory || `${directoryName}/` === ROOT,
    getDirectories: () => [],
    getCancellationToken: () => cancellation,
  }
  const service = typescript.createLanguageService(host, splitRegistry(registry, typescript.createDocumentRegistry()))
  return {
    service,
    setProgram(text, checkDeadline) {
      programSnapshot = typescript.ScriptSnapshot.fromString(text)
      programVersion++
      deadline = checkDeadline
    },
    setSessionDeclarations(texts) {
      if (texts.length === sessionFiles.length && texts.every((text, index) => sessionFiles[index]?.text === text))
        return
      texts.forEach((text, index) => {
        const file = sessionFiles[index]
        if (file?.text === text) return
        const replaced: SessionFile = {
          name: sessionFileName(index),
          text,
          snapshot: typescript.ScriptSnapshot.fromString(text),
          version: ++versions,
        }
        sessionFiles[index] = replaced
        sessionFileByName.set(replaced.name, replaced)
      })
      for (const dropped of sessionFiles.splice(texts.length)) sessionFileByName.delete(dropped.name)
      scriptFileNames = [GLOBALS_FILE, SDK_FILE, ...sessionFiles.map(file => file.name), PROGRAM_FILE]
    },
  }
}
