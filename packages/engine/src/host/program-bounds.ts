/**
 * The bounds a program must keep before it reaches the type stripper: its length, and how deeply
 * it nests. amaro's parser recurses once per level of nesting (a bracket, a block, a statement
 * body, a prefix operator, a right-associative assignment, a type argument) on a fixed stack inside
 * its WebAssembly instance; about 900 to 2 000 levels, depending on the construct, exhaust it.
 * A program past these bounds is refused with the limit named, and never parsed.
 *
 * The depth is an estimate from one pass over the text that knows strings, comments, templates and
 * regular expressions but no grammar: bracket depth, plus the chained operators and statement
 * heads of the current statement. It can only over-count what really nests, and real programs stay
 * far below the bound; a construct it misses still costs one run only (see type-stripper.ts).
 */
/** The longest program accepted, in UTF-16 code units (about 1 MiB of ASCII). */
export const MAX_PROGRAM_CHARS = 1_048_576

/** The deepest nesting accepted: brackets, blocks and chained operators together. */
export const MAX_NESTING_DEPTH = 256

/** Words that open one more level of the parse of what follows them. */
const PREFIX_WORDS = new Set([
  'typeof',
  'void',
  'delete',
  'new',
  'await',
  'yield',
  'keyof',
  'infer',
  'readonly',
  'unique',
  'do',
  'else',
])
/** Statement heads whose parenthesized condition is followed by their body. */
const HEAD_WORDS = new Set(['if', 'for', 'while', 'with'])
/** Words after which an expression goes on (so a newline ends no statement). */
const OPERATOR_WORDS = new Set([
  'return',
  'throw',
  'case',
  'in',
  'of',
  'instanceof',
  'extends',
  'as',
  'satisfies',
  'is',
  'export',
  'default',
])
/** Operators that nest what follows them: assignments, arrows, type arguments, labels. */
const NESTING_OPERATORS = new Set([
  '=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '**=',
  '<<=',
  '>>=',
  '>>>=',
  '&=',
  '|=',
  '^=',
  '&&=',
  '||=',
  '??=',
  '=>',
  '<',
  ':',
  '!',
  '~',
])

const OPERATOR =
  /(?:>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\+\+|--|\+=|-=|\*=|%=|&=|\|=|\^=|\*\*|<<|>>|[=+\-*%<>&|^!~?:.@#])/y
const WORD = /(?:[\p{ID_Start}$_]|\\u[0-9a-fA-F{])(?:[\p{ID_Continue}$\u200c\u200d]|\\u[0-9a-fA-F{}]*)*/uy
const NUMBER = /\.?[0-9][0-9a-zA-Z_]*(?:\.[0-9a-zA-Z_]*)?(?:(?<=[eE])[+-][0-9_]+)?/y

const isDigit = (code: number): boolean => code >= 48 && code <= 57
const isAsciiWordStart = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36
const isAsciiWordPart = (code: number): boolean => isAsciiWordStart(code) || isDigit(code)
const isLineBreak = (code: number): boolean => code === 10 || code === 13 || code === 0x2028 || code === 0x2029
const isSpace = (code: number): boolean =>
  code === 32 ||
  code === 9 ||
  code === 11 ||
  code === 12 ||
  code === 0xa0 ||
  code === 0xfeff ||
  (code > 0x1000 && /\s/u.test(String.fromCharCode(code)))

/** Stands for a template's `${` among the open brackets. */
const TEMPLATE_SUBSTITUTION = -1

/** The state of the scan: what is open, and how long the current chain is. */
class NestingScan {
  private readonly text: string
  private index = 0
  /** What is open, innermost last: an opening bracket's character code, or a template's `${`. */
  private readonly open: number[] = []
  /** Depths at which a statement head's condition opened: its `)` is followed by the head's body. */
  private readonly headConditions: number[] = []
  private chain = 0
  /** Whether the last token ended an operand (a newline after it may end the statement). */
  private afterOperand = false
  private afterDot = false
  private pendingHead = false
  deepestAt = -1

  constructor(text: string) {
    this.text = text
  }

  /** Scans the whole text; stops at the first place deeper than the bound. */
  run(): void {
    const text = this.text
    while (this.index < text.length && this.deepestAt < 0) {
      const code = text.charCodeAt(this.index)
      if (isLineBreak(code)) {
        if (this.afterOperand) this.chain = 0
        this.index++
      } else if (isSpace(code)) {
        this.index++
      } else if (code === 47 /* / */) {
        this.slash()
      } else if (code === 39 || code === 34) {
        this.skipQuoted(String.fromCharCode(code))
        this.operand()
      } else if (code === 96 /* ` */) {
        this.index++
        this.templateText()
      } else {
        this.token(code)
      }
    }
  }

  private operand(): void {
    this.afterOperand = true
    this.afterDot = false
  }

  private nest(): void {
    this.chain++
    if (this.open.length + this.chain > MAX_NESTING_DEPTH) this.deepestAt = this.index
  }

  private slash(): void {
    const text = this.text
    const next = text.charCodeAt(this.index + 1)
    if (next === 47) {
      while (this.index < text.length && !isLineBreak(text.charCodeAt(this.index))) this.index++
    } else if (next === 42) {
      const end = text.indexOf('*/', this.index + 2)
      const stop = end < 0 ? text.length : end + 2
      if (this.afterOperand && /[\n\r\u2028\u2029]/.test(text.slice(this.index, stop))) this.chain = 0
      this.index = stop
    } else if (this.afterOperand) {
      this.index += next === 61 ? 2 : 1
      this.afterOperand = false
      if (next === 61) this.nest()
    } else {
      this.skipRegExp()
      this.operand()
    }
  }

  /** A string literal, up to its closing quote or the end of the line. */
  private skipQuoted(quote: string): void {
    const text = this.text
    this.index++
    while (this.index < text.length) {
      const char = text[this.index]
      if (char === '\\') this.index += 2
      else if (char === quote || isLineBreak(text.charCodeAt(this.index))) {
        this.index++
        return
      } else this.index++
    }
  }

  private skipRegExp(): void {
    const text = this.text
    let inClass = false
    this.index++
    while (this.index < text.length && !isLineBreak(text.charCodeAt(this.index))) {
      const char = text[this.index]
      this.index++
      if (char === '\\') this.index++
      else if (char === '[') inClass = true
      else if (char === ']') inClass = false
      else if (char === '/' && !inClass) break
    }
    WORD.lastIndex = this.index
    if (WORD.test(text)) this.index = WORD.lastIndex
  }

  /** Template text after a '`' or a substitution's `}`, up to the closing '`' or the next `${`. */
  private templateText(): void {
    const text = this.text
    while (this.index < text.length) {
      const char = text[this.index]
      if (char === '\\') this.index += 2
      else if (char === '`') {
        this.index++
        this.operand()
        return
      } else if (char === '$' && text[this.index + 1] === '{') {
        this.index += 2
        this.open.push(TEMPLATE_SUBSTITUTION)
        this.chain = 0
        this.afterOperand = false
        if (this.open.length > MAX_NESTING_DEPTH) this.deepestAt = this.index
        return
      } else this.index++
    }
  }

  private token(code: number): void {
    const text = this.text
    if (isAsciiWordStart(code)) {
      const start = this.index
      let end = start + 1
      while (end < text.length && isAsciiWordPart(text.charCodeAt(end))) end++
      // A non-ASCII letter or an escape goes on in the general rule below.
      const next = text.charCodeAt(end)
      if (end === text.length || (next < 128 && next !== 92)) {
        this.index = end
        // Every word that nests is at most 10 characters long: longer ones are never sliced.
        this.word(end - start <= 10 ? text.slice(start, end) : '')
        return
      }
    }
    if (code === 40 || code === 91 || code === 123) {
      // ( [ {
      if (code === 40 && this.pendingHead) this.headConditions.push(this.open.length)
      this.pendingHead = false
      this.open.push(code)
      if (code === 123) this.chain = 0
      this.index++
      this.afterOperand = false
      this.afterDot = false
      if (this.open.length + this.chain > MAX_NESTING_DEPTH) this.deepestAt = this.index
      return
    }
    if (code === 41 || code === 93 || code === 125) {
      // ) ] }
      const closed = this.open.pop()
      this.index++
      if (closed === TEMPLATE_SUBSTITUTION) {
        this.templateText()
        return
      }
      if (code === 125) this.chain = 0
      const isHeadCondition = code === 41 && this.headConditions.at(-1) === this.open.length
      if (isHeadCondition) this.headConditions.pop()
      this.afterOperand = !isHeadCondition
      this.afterDot = false
      return
    }
    if (code === 59 || code === 44) {
      // ; ,
      this.chain = 0
      this.index++
      this.afterOperand = false
      this.afterDot = false
      return
    }
    if (isDigit(code) || (code === 46 && isDigit(text.charCodeAt(this.index + 1)))) {
      NUMBER.lastIndex = this.index
      this.index = NUMBER.test(text) ? NUMBER.lastIndex : this.index + 1
      this.operand()
      return
    }
    WORD.lastIndex = this.index
    if (WORD.test(text)) {
      const word = text.slice(this.index, WORD.lastIndex)
      this.index = WORD.lastIndex
      this.word(word)
      return
    }
    OPERATOR.lastIndex = this.index
    if (OPERATOR.test(text)) {
      const operator = text.slice(this.index, OPERATOR.lastIndex)
      this.index = OPERATOR.lastIndex
      this.operator(operator)
      return
    }
    this.index++
  }

  private word(word: string): void {
    if (this.afterDot) {
      this.operand()
      return
    }
    if (HEAD_WORDS.has(word)) {
      this.pendingHead = true
      this.afterOperand = false
      this.nest()
    } else if (PREFIX_WORDS.has(word)) {
      this.afterOperand = false
      this.nest()
    } else if (OPERATOR_WORDS.has(word)) {
      this.afterOperand = false
    } else {
      this.operand()
    }
  }

  private operator(operator: string): void {
    const isPostfix = (operator === '++' || operator === '--') && this.afterOperand
    const isPrefixSign =
      (operator === '+' || operator === '-' || operator === '++' || operator === '--') && !this.afterOperand
    this.afterDot = operator === '.' || operator === '?.'
    if (isPostfix) return
    this.afterOperand = false
    if (isPrefixSign || NESTING_OPERATORS.has(operator)) this.nest()
  }
}

/** Why a program is refused before its transform: the message names the limit; `at` is where it nests too deeply. */
export interface ProgramBoundsProblem {
  readonly message: string
  readonly at?: number
}

/** Why `program` cannot be transformed (too long, or nested too deeply); undefined when it is within both bounds. */
export function programBoundsProblem(program: string): ProgramBoundsProblem | undefined {
  if (program.length > MAX_PROGRAM_CHARS) {
    return {
      message: `The program is ${program.length} characters long; the limit is ${MAX_PROGRAM_CHARS}. Send a shorter program: fetch large data with a tool call instead of writing it into the program.`,
    }
  }
  const scan = new NestingScan(program)
  scan.run()
  if (scan.deepestAt < 0) return undefined
  return {
    message: `The program nests more than ${MAX_NESTING_DEPTH} levels deep here (brackets, blocks and chained operators together; the limit is ${MAX_NESTING_DEPTH}). Flatten it: split it into functions, or build deep data in a loop.`,
    at: scan.deepestAt,
  }
}
