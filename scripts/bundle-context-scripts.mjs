// Builds each in-context script (code the engine evaluates inside every program context before
// the program runs: the guards, the bootstrap, the web globals) from its TypeScript modules into
// one self-contained script text, and writes all of them into
// packages/engine/src/guest/context-scripts.generated.ts, which `tsc -b` then compiles with the
// rest. A script's source is ordinary modules that import each other; what runs in the context is
// one function expression, so nothing of the host is reachable from it.
//
// Each text is checked before it is written: its free names (what it reads from the global scope)
// must all be names a fresh `vm` context has by itself. A script that used `process`, `Buffer`,
// `require` or a host helper would otherwise run with whatever the program put there under that
// name, or fail only at run time.
//
// Run by `npm run build` before `tsc -b`, and by the engine's prepack.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { parse } from 'acorn'
import { analyze } from 'eslint-scope'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const guest = 'packages/engine/src/guest'
const output = `${guest}/context-scripts.generated.ts`

/** Every in-context script: the filename it runs under, its entry module and the function it evaluates to. */
export const CONTEXT_SCRIPTS = [
  { filename: 'code-runtime:primordials', entry: `${guest}/primordials.ts`, export: 'capturePrimordials' },
  {
    filename: 'code-runtime:stack-traces',
    entry: `${guest}/context-stack-traces.ts`,
    export: 'installStackTraceFilter',
  },
  { filename: 'code-runtime:guards', entry: `${guest}/builtin-guards.ts`, export: 'installBuiltinGuards' },
  { filename: 'code-runtime:bootstrap', entry: `${guest}/context-bootstrap.ts`, export: 'contextBootstrap' },
  {
    filename: 'code-runtime:array-buffer-guard',
    entry: `${guest}/array-buffer-guard.ts`,
    export: 'installArrayBufferGuard',
  },
  {
    filename: 'code-runtime:deferred-work-guard',
    entry: `${guest}/deferred-work-guard.ts`,
    export: 'installDeferredWorkGuard',
  },
  {
    filename: 'code-runtime:globals/node-errors',
    entry: `${guest}/context-globals/node-errors.ts`,
    export: 'createNodeErrors',
  },
  {
    filename: 'code-runtime:globals/text-units',
    entry: `${guest}/context-globals/text-units.ts`,
    export: 'createTextUnits',
  },
  {
    filename: 'code-runtime:globals/text-codec',
    entry: `${guest}/context-globals/text-codec.ts`,
    export: 'createTextCodec',
  },
  { filename: 'code-runtime:globals/base64', entry: `${guest}/context-globals/base64.ts`, export: 'createBase64' },
  {
    filename: 'code-runtime:globals/structured-clone',
    entry: `${guest}/context-globals/structured-clone.ts`,
    export: 'createStructuredClone',
  },
  {
    filename: 'code-runtime:globals/url-search-params',
    entry: `${guest}/context-globals/url-search-params.ts`,
    export: 'createURLSearchParams',
  },
  { filename: 'code-runtime:globals/url', entry: `${guest}/context-globals/url.ts`, export: 'createURL' },
  { filename: 'code-runtime:globals/crypto', entry: `${guest}/context-globals/crypto.ts`, export: 'createCrypto' },
]

/**
 * Names a script may read from the global scope: what a fresh context of this Node has, plus the
 * newer intrinsics a script may test for with `typeof` where an older Node lacks them.
 */
const CONTEXT_NAMES = new Set([
  ...vm.runInNewContext('Object.getOwnPropertyNames(globalThis)'),
  'Float16Array',
  'Iterator',
])
// `console` of a fresh context is V8's own, and in a program context it is the sandbox's: a
// script of ours that logged would write into the program's output.
CONTEXT_NAMES.delete('console')

/** The names `text` reads from the global scope. */
export function freeNamesOf(text) {
  const ast = parse(text, { ecmaVersion: 'latest', sourceType: 'script', ranges: true })
  const scopes = analyze(ast, { ecmaVersion: 2022, sourceType: 'script' })
  return [...new Set(scopes.globalScope.through.map(reference => reference.identifier.name))].sort()
}

/** The script text of one entry: a single function expression, strict, with its imports inside. */
async function scriptText({ filename, entry, export: exported }) {
  const result = await build({
    absWorkingDir: root,
    // Only the one function: constants the host also imports from the module are left out.
    stdin: {
      contents: `export { ${exported} } from './${entry}'`,
      resolveDir: root,
      sourcefile: `${filename}.ts`,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    treeShaking: true,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    // Type-only imports vanish; anything else an entry imports must be one of its own modules.
    external: [],
    logLevel: 'silent',
    legalComments: 'none',
  })
  if (result.warnings.length > 0)
    throw new Error(`${filename}: ${result.warnings.map(warning => warning.text).join('; ')}`)
  // An ES module bundle is the modules' code in order, then one `export { name }`: that statement
  // becomes the function's return, and everything the modules declared stays local to it.
  const bundled = result.outputFiles[0].text
  const exportStatement = `export {\n  ${exported}\n};\n`
  if (!bundled.endsWith(exportStatement))
    throw new Error(`${filename}: ${entry} does not export ${exported}, or the bundle took an unexpected shape`)
  const body = bundled.slice(0, -exportStatement.length)
  const text = `(function () {\n'use strict';\n${body}return ${exported}\n})()`
  const outside = freeNamesOf(text).filter(name => !CONTEXT_NAMES.has(name))
  if (outside.length > 0)
    throw new Error(`${filename} (${entry}) reads names a fresh context does not have: ${outside.join(', ')}`)
  return text
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const texts = []
  for (const script of CONTEXT_SCRIPTS) texts.push([script.filename, await scriptText(script)])
  const generated = [
    '// Generated by scripts/bundle-context-scripts.mjs from the modules it names: do not edit.',
    '/** The text of every in-context script, by the filename it runs under. */',
    'export const contextScriptTexts: Readonly<Record<string, string>> = {',
    ...texts.map(([filename, text]) => `  ${JSON.stringify(filename)}: ${JSON.stringify(text)},`),
    '}',
    '',
  ].join('\n')
  mkdirSync(`${root}/${guest}`, { recursive: true })
  const path = `${root}/${output}`
  let current
  try {
    current = readFileSync(path, 'utf8')
  } catch {
    current = undefined
  }
  // Unchanged text keeps the file's time, so `tsc -b` has nothing new to compile.
  if (current !== generated) writeFileSync(path, generated)
}
