/**
 * Annex B's HTML-like comments, as the checker must see them. The runtime runs a program as the
 * body of a function in a script, where `<!--` anywhere in code, and `-->` first on a line (after
 * only white space and comments), start a comment to the end of the line. TypeScript reads both
 * as operators and refuses the program, so before the checker reads it, each one is turned into
 * a `//` comment of the same length: every position stays where it was.
 *
 * Only code counts: the same characters inside a string, a template, a regular expression or a
 * comment are text. Which `/` starts a regular expression and which `}` continues a template
 * depends on the grammar, so a parse of the text decides them, and TypeScript's scanner walks the
 * tokens with those answers. A parse is right up to the first HTML-like comment in code (the text
 * before it is ordinary JavaScript), so each one found is blanked and the rest parsed again.
 */
import type ts from 'typescript'
import type { TypeScript } from './typescript-loader.js'

/**
 * Most HTML-like comments blanked in one program; each costs a parse of it. A program with more
 * is not checked at all (see {@link blankHtmlLikeComments}): its syntax errors could be false.
 */
export const MAX_HTML_LIKE_COMMENTS = 64

const isLineTerminator = (code: number): boolean => code === 10 || code === 13 || code === 0x2028 || code === 0x2029

/** Where the tokenizer must read by the grammar, not by the character: from a parse of `text`. */
function grammarPositions(
  typescript: TypeScript,
  text: string,
): { regularExpressions: Set<number>; templateContinuations: Set<number> } {
  const source = typescript.createSourceFile(
    '/html-like-comments.ts',
    text,
    typescript.ScriptTarget.ES2023,
    false,
    typescript.ScriptKind.TS,
  )
  const regularExpressions = new Set<number>()
  const templateContinuations = new Set<number>()
  const visit = (node: ts.Node): void => {
    if (node.kind === typescript.SyntaxKind.RegularExpressionLiteral) regularExpressions.add(node.getStart(source))
    else if (node.kind === typescript.SyntaxKind.TemplateMiddle || node.kind === typescript.SyntaxKind.TemplateTail)
      templateContinuations.add(node.getStart(source))
    typescript.forEachChild(node, visit)
  }
  visit(source)
  return { regularExpressions, templateContinuations }
}

/** The offset of the first HTML-like comment in code at or after `from`, or -1. */
function findHtmlLikeComment(typescript: TypeScript, text: string, from: number): number {
  const { regularExpressions, templateContinuations } = grammarPositions(typescript, text)
  const { SyntaxKind } = typescript
  const scanner = typescript.createScanner(
    typescript.ScriptTarget.ES2023,
    false,
    typescript.LanguageVariant.Standard,
    text,
  )
  scanner.resetTokenState(from)
  // `from` is 0 or the end of a line just blanked: either way a line starts there.
  let isLineStart = true
  for (let kind = scanner.scan(); kind !== SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const start = scanner.getTokenStart()
    if (kind === SyntaxKind.NewLineTrivia) {
      isLineStart = true
      continue
    }
    if (kind === SyntaxKind.WhitespaceTrivia || kind === SyntaxKind.SingleLineCommentTrivia) continue
    if (kind === SyntaxKind.MultiLineCommentTrivia) {
      // A comment that spans lines counts as a line break before what follows it.
      if (/[\n\r\u2028\u2029]/.test(scanner.getTokenText())) isLineStart = true
      continue
    }
    if (kind === SyntaxKind.LessThanToken && text.startsWith('<!--', start)) return start
    if (kind === SyntaxKind.MinusMinusToken && isLineStart && text.startsWith('-->', start)) return start
    isLineStart = false
    if ((kind === SyntaxKind.SlashToken || kind === SyntaxKind.SlashEqualsToken) && regularExpressions.has(start))
      scanner.reScanSlashToken()
    else if (kind === SyntaxKind.CloseBraceToken && templateContinuations.has(start)) scanner.reScanTemplateToken(false)
  }
  return -1
}

/**
 * `text` with every HTML-like comment in code turned into a `//` comment of the same length, or
 * undefined when it holds more than {@link MAX_HTML_LIKE_COMMENTS} of them.
 */
export function blankHtmlLikeComments(typescript: TypeScript, text: string): string | undefined {
  // Nearly every program has neither; they cost nothing.
  if (!text.includes('<!--') && !text.includes('-->')) return text
  let blanked = text
  let from = 0
  for (let count = 0; ; count++) {
    const start = findHtmlLikeComment(typescript, blanked, from)
    if (start === -1) return blanked
    if (count === MAX_HTML_LIKE_COMMENTS) return undefined
    blanked = `${blanked.slice(0, start)}//${blanked.slice(start + 2)}`
    from = start + 2
    while (from < blanked.length && !isLineTerminator(blanked.charCodeAt(from))) from++
  }
}
