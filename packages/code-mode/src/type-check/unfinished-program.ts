/**
 * Whether a program typed line by line (a REPL) is unfinished: an open bracket, template, comment
 * or expression at its end. TypeScript's own parser decides, so a REPL needs no second parser: the
 * program is parsed as the body of an async function (as a run wraps it), and it is unfinished
 * exactly when the first syntax error TypeScript reports lies past the program's last character.
 * An error inside the program (`a)`, an unterminated string) is not a reason to wait: the run
 * reports it.
 */
import { loadTypeScript } from './typescript-loader.js'

const HEAD = 'async function program() {\n'
const TAIL = '\n}\n'
/** Longer programs are never held back: the run refuses them with its own bound. */
const MAX_PROGRAM_LENGTH = 1_048_576

export async function programNeedsMoreInput(program: string): Promise<boolean> {
  if (typeof program !== 'string' || program.trim() === '' || program.length > MAX_PROGRAM_LENGTH) return false
  const typescript = await loadTypeScript()
  let starts: number[]
  try {
    const { diagnostics = [] } = typescript.transpileModule(HEAD + program + TAIL, {
      reportDiagnostics: true,
      compilerOptions: { target: typescript.ScriptTarget.ES2023, module: typescript.ModuleKind.ESNext },
    })
    starts = diagnostics.map(diagnostic => diagnostic.start ?? 0)
  } catch {
    // The parser recursed too deep (thousands of open brackets): not unfinished, the run refuses it.
    return false
  }
  if (starts.length === 0) return false
  return Math.min(...starts) > HEAD.length + program.trimEnd().length
}
