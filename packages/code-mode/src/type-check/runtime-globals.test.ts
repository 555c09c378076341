import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import ts from 'typescript'
import { PROGRAM_GLOBALS } from '@code-runtime/core/internal'
import { RUNTIME_GLOBALS_DECLARATIONS, RUNTIME_GLOBALS_FILE_NAME } from './runtime-globals.js'

/** The value names the declarations make global: `declare var`, `declare const`, `declare function`. */
function declaredValueNames(text: string): string[] {
  const file = ts.createSourceFile(RUNTIME_GLOBALS_FILE_NAME, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS)
  const names: string[] = []
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) names.push(statement.name.text)
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text)
      }
    }
  }
  return [...new Set(names)].sort()
}

describe("the checker's runtime globals", () => {
  // The conformance suite holds every backend to PROGRAM_GLOBALS; this holds the checker to it, so
  // a program is never refused for a global it has, nor accepted with one it lacks.
  it('declares exactly the globals core says every program gets beyond ECMAScript', () => {
    assert.deepEqual(declaredValueNames(RUNTIME_GLOBALS_DECLARATIONS), [...PROGRAM_GLOBALS].sort())
  })
})
