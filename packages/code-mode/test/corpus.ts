/**
 * The tool corpus the SDK tests run on: the real tool lists of four MCP servers (written by
 * scripts/extract-corpus.mjs) and synthetic edge cases, read from the package's fixtures.
 */
import { readFileSync } from 'node:fs'
import type { CodeModeToolDescription } from '@code-runtime/code-mode'

/** Corpus files, by server name, in a fixed order. */
export const CORPUS_SERVERS = ['everything', 'filesystem', 'memory', 'sequential-thinking', 'synthetic'] as const

export type CorpusServer = (typeof CORPUS_SERVERS)[number]

/** A file of the package, from the compiled test at dist/test/ back to the package root. */
export function packageFileUrl(relativePath: string): URL {
  return new URL(`../../${relativePath}`, import.meta.url)
}

export function readCorpus(server: CorpusServer): readonly CodeModeToolDescription[] {
  const text = readFileSync(packageFileUrl(`test/fixtures/corpus/${server}.json`), 'utf8')
  const corpus = JSON.parse(text) as { tools: CodeModeToolDescription[] }
  return corpus.tools
}

/** Every tool of every corpus file, in file order. */
export function readFullCorpus(): readonly CodeModeToolDescription[] {
  return CORPUS_SERVERS.flatMap(server => readCorpus(server))
}

/** Characters of the raw definitions: the JSON a model would otherwise read for each tool. */
export function rawDefinitionChars(tools: readonly CodeModeToolDescription[]): number {
  return tools.reduce(
    (sum, { name, description, inputSchema, outputSchema }) =>
      sum + JSON.stringify({ name, description, inputSchema, outputSchema }).length,
    0,
  )
}
