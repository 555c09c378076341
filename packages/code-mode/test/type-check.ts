/**
 * `tsc --strict --noEmit` over in-memory files, through the TypeScript compiler API, so the
 * tests can check emitted SDK text without writing it anywhere.
 */
import ts from 'typescript'

const VIRTUAL_ROOT = '/code-mode-virtual/'

/** The options of `tsc --strict --noEmit --lib es2022`, with no ambient `@types`. */
export const STRICT_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
}

/**
 * Type-checks the given files together and returns each diagnostic as `file:line: message`.
 * @param files file names (e.g. `sdk.ts`) to their text.
 */
export function typeCheck(
  files: Readonly<Record<string, string>>,
  options: ts.CompilerOptions = STRICT_OPTIONS,
): string[] {
  const virtualFiles = new Map(Object.entries(files).map(([name, text]) => [VIRTUAL_ROOT + name, text]))
  const host = ts.createCompilerHost(options, true)
  const { getSourceFile, fileExists, readFile } = host
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = virtualFiles.get(fileName)
    return text === undefined
      ? getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(fileName, text, languageVersion, true)
  }
  host.fileExists = fileName => virtualFiles.has(fileName) || fileExists.call(host, fileName)
  host.readFile = fileName => virtualFiles.get(fileName) ?? readFile.call(host, fileName)
  const program = ts.createProgram([...virtualFiles.keys()], options, host)
  return ts.getPreEmitDiagnostics(program).map(diagnostic => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    return `${diagnostic.file.fileName.replace(VIRTUAL_ROOT, '')}:${line + 1}: ${message}`
  })
}
