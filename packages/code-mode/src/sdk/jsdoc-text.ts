/**
 * JSDoc and comment text: the only place descriptions from tool authors enter the SDK, so the
 * only place they are made safe (a `*\/` inside a description would end the comment early).
 */
import type { TypeDoc } from './type-node.js'

/** Breaks every `*\/` so text can sit inside a block comment without ending it. */
export function escapeCommentText(text: string): string {
  return text.replace(/\*\//g, '*\\/')
}

/** A description's lines: line breaks normalised, trailing spaces and blank edges dropped. */
function descriptionLines(description: string): string[] {
  const lines = escapeCommentText(description)
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map(line => line.trimEnd())
  while (lines.length > 0 && lines[0] === '') lines.shift()
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * The lines of a JSDoc comment, without indentation: one line (`/** text @tag *\/`) when the
 * description fits on one, else the usual block with the tags on the last line. Empty when
 * there is nothing to say.
 */
export function docCommentLines(doc: TypeDoc | undefined): string[] {
  if (doc === undefined) return []
  const lines = doc.description === undefined ? [] : descriptionLines(doc.description)
  const tagLine = doc.tags.map(escapeCommentText).join(' ')
  if (lines.length === 0 && tagLine === '') return []
  if (lines.length <= 1) return [`/** ${[...lines, tagLine].filter(part => part !== '').join(' ')} */`]
  const body = tagLine === '' ? lines : [...lines, tagLine]
  return ['/**', ...body.map(line => (line === '' ? ' *' : ` * ${line}`)), ' */']
}

/** An inline comment after a type, e.g. `unknown /* "not" has no TypeScript form *\/`. */
export function inlineComment(text: string): string {
  return `/* ${escapeCommentText(text.replace(/\s+/g, ' ').trim())} */`
}
