/**
 * Tool names → namespace members. A tool's name may be anything (`read-file`, `fs.read`,
 * `文件`); the member the program calls must be an identifier that reads well in JavaScript and
 * Python, cannot be mistaken for a built-in property, and never depends on the order tools came in.
 */
import {
  describeValue,
  DUNDER_PATTERN,
  ECMASCRIPT_RESERVED_WORDS,
  PYTHON_RESERVED_WORDS,
  refuseConfigField,
} from '@code-runtime/core/internal'
import { CodeModeError, INVALID_TOOL_PLACE } from '../errors.js'
import { toIdentifierWords } from './identifier-text.js'

/** Python's soft keywords are fine as attribute names (`tools.type`), so they stay usable. */
const PYTHON_SOFT_KEYWORDS: ReadonlySet<string> = new Set(['match', 'case', 'type', '_'])

/**
 * Names a member must not take. Reserved words are legal after a dot in JavaScript but not in
 * Python and not when destructured (`const { delete } = tools`). The rest would shadow or
 * imitate what every object already has: `then` makes the namespace a thenable, `toJSON` changes
 * how it prints, and `constructor`, `__proto__`, `hasOwnProperty`... confuse any reader.
 */
const RESERVED_MEMBER_NAMES: ReadonlySet<string> = new Set([
  ...ECMASCRIPT_RESERVED_WORDS,
  ...[...PYTHON_RESERVED_WORDS].filter(word => !PYTHON_SOFT_KEYWORDS.has(word)),
  'constructor',
  'prototype',
  '__proto__',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toString',
  'toLocaleString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'then',
  'toJSON',
])

/** Used when a name has no letters or digits at all. */
const FALLBACK_MEMBER_NAME = 'tool'

/** Orders by UTF-16 code units: plain, locale-free, the same on every machine. */
function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
}

/** The member a tool would get if no other tool wanted the same one. */
export function preferredMemberName(toolName: string): string {
  let name = toIdentifierWords(toolName)
  // `__init__` and `__proto__` mean something to Python and JavaScript; keep only the word.
  if (DUNDER_PATTERN.test(name)) name = name.replace(/^_+|_+$/g, '')
  if (name === '') name = FALLBACK_MEMBER_NAME
  if (/^[0-9]/.test(name)) name = `_${name}`
  if (RESERVED_MEMBER_NAMES.has(name)) name = `${name}_`
  return name
}

/**
 * Maps each tool name to the namespace member that calls it.
 *
 * A name that is already a usable identifier keeps it. Every other name takes its preferred
 * member (`read-file` → `read_file`, `a.b` → `a_b`, `délai` → `delai`, `2fa` → `_2fa`,
 * `delete` → `delete_`), or, when that is taken, the same with `_2`, `_3`... in code-unit order
 * of the tool names, so the result depends only on the set of names.
 * @returns the members, keyed by tool name, in member-name order.
 * @throws {CodeModeError} `CODE_MODE_DUPLICATE_TOOL_NAME` when a name appears twice,
 *   `CODE_MODE_INVALID_TOOL` for a name that is not a string.
 * @example assignMemberNames(['read_file', 'read-file']) // read_file → read_file, read-file → read_file_2
 */
export function assignMemberNames(toolNames: readonly string[]): ReadonlyMap<string, string> {
  const seen = new Set<string>()
  toolNames.forEach((toolName: unknown, index) => {
    if (typeof toolName !== 'string') {
      refuseConfigField(INVALID_TOOL_PLACE, `tools[${index}].name`, 'must be a string', toolName)
    }
    if (seen.has(toolName)) {
      throw new CodeModeError(
        'CODE_MODE_DUPLICATE_TOOL_NAME',
        `Invalid tools: the name ${describeValue(toolName)} is used by more than one tool; tool names must be unique.`,
        { field: `tools[${index}].name`, value: toolName, rule: 'tool names must be unique' },
      )
    }
    seen.add(toolName)
  })
  const sortedNames = [...seen].sort(compareCodeUnits)
  const members = new Map<string, string>()
  const taken = new Set<string>()
  // First the names that need no rewriting, so `read_file` never loses its name to `read-file`.
  for (const toolName of sortedNames) {
    if (preferredMemberName(toolName) !== toolName) continue
    members.set(toolName, toolName)
    taken.add(toolName)
  }
  for (const toolName of sortedNames) {
    if (members.has(toolName)) continue
    const preferred = preferredMemberName(toolName)
    let member = preferred
    for (let suffix = 2; taken.has(member); suffix++) member = `${preferred}_${suffix}`
    members.set(toolName, member)
    taken.add(member)
  }
  const byMember = [...members].sort(([, left], [, right]) => compareCodeUnits(left, right))
  return new Map(byMember)
}
