/**
 * `tsc --strict --noEmit` of a program against the SDK `code-runtime types` prints, the way a
 * model's program is checked in its head: the program is the body of an async function.
 */
import ts from 'typescript'

const VIRTUAL_ROOT = '/code-runtime-virtual/'

/** The program's globals besides the SDK: what the runtime gives every run. */
const RUN_GLOBALS = 'declare const console: { log(...values: unknown[]): void }\n'

/** Type-checks `program` against `sdk`; returns diagnostics as `file:line: message`. */
export function typeCheckProgram(sdk: string, program: string): string[] {
  const files = new Map([
    [`${VIRTUAL_ROOT}sdk.d.ts`, RUN_GLOBALS + sdk],
    [`${VIRTUAL_ROOT}program.ts`, `export {}\nasync function program() {\n${program}\n}\nvoid program\n`],
  ])
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] }
  const host = ts.createCompilerHost(options, true)
  const { getSourceFile, fileExists, readFile } = host
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = files.get(fileName)
    return text === undefined ? getSourceFile.call(host, fileName, languageVersion, onError, shouldCreate) : ts.createSourceFile(fileName, text, languageVersion, true)
  }
  host.fileExists = (fileName) => files.has(fileName) || fileExists.call(host, fileName)
  host.readFile = (fileName) => files.get(fileName) ?? readFile.call(host, fileName)
  return ts.getPreEmitDiagnostics(ts.createProgram([...files.keys()], options, host)).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    return `${diagnostic.file.fileName.replace(VIRTUAL_ROOT, '')}:${line + 1}: ${message}`
  })
}
