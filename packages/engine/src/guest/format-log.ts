/**
 * Console formatting inside the sandbox: inspect-style text of program values. Program-defined
 * custom inspectors are never called (they would receive substrate-realm objects) and proxies are
 * shown, not trapped. Never throws.
 */
import { formatWithOptions, inspect, type InspectOptions } from 'node:util'

const SAFE_INSPECT: InspectOptions = Object.freeze({
  customInspect: false,
  showProxy: true,
  getters: false,
  colors: false,
  depth: 6,
  breakLength: 120,
})

/** Inspects one value. */
export function inspectValue(value: unknown): string {
  try {
    return inspect(value, SAFE_INSPECT)
  } catch {
    return '[value that cannot be shown]'
  }
}

/** Formats console arguments the way `console.log` does (`%s`/`%d`/`%o` format strings included). */
export function formatArguments(args: readonly unknown[]): string {
  try {
    const copy: unknown[] = []
    for (let index = 0; index < args.length; index++) copy.push(args[index])
    return formatWithOptions(SAFE_INSPECT, ...copy)
  } catch {
    return '[values that cannot be shown]'
  }
}

function ownEntries(value: object): [string, unknown][] {
  const entries: [string, unknown][] = []
  for (const key of Object.keys(value)) entries.push([key, ownCell(value, key)])
  return entries
}

/** A row's own property as a cell value; a getter is shown, never run. */
function ownCell(row: object, key: PropertyKey): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(row, key)
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : '[getter]'
}

/** More columns than any useful table has; a longer `columns` array is refused, not walked. */
const MAX_TABLE_COLUMNS = 10_000

/**
 * The `columns` argument of `console.table` as property keys, duplicates dropped, in the given
 * order; `undefined` when it is absent. Only the array's own data elements are read, so a getter
 * or a sparse array of enormous length cannot make the host run program code or loop for long.
 */
function readColumns(columns: unknown): PropertyKey[] | undefined {
  if (columns === undefined) return undefined
  if (!Array.isArray(columns)) throw new TypeError('columns must be an array')
  const length = (Object.getOwnPropertyDescriptor(columns, 'length') as PropertyDescriptor).value as number
  if (length > MAX_TABLE_COLUMNS) throw new RangeError('too many columns')
  const keys: PropertyKey[] = []
  for (let index = 0; index < length; index++) {
    const descriptor = Object.getOwnPropertyDescriptor(columns, index)
    const column: unknown = descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined
    const key: PropertyKey =
      typeof column === 'symbol' || typeof column === 'string'
        ? column
        : (typeof column === 'object' && column !== null) || typeof column === 'function'
          ? inspectValue(column)
          : String(column)
    if (!keys.includes(key)) keys.push(key)
  }
  return keys
}

/**
 * Renders rows of objects (or arrays) as a plain text table, like Node's `console.table`. With
 * `columns`, only those properties are shown, in that order, each even where no row has it, and
 * rows that are not objects get empty cells (no `Values` column), as in Node.
 */
export function formatTable(data: unknown, columns?: unknown): string {
  try {
    if (typeof data !== 'object' || data === null) return inspectValue(data)
    const chosen = readColumns(columns)
    const rows = ownEntries(data)
    const titles: string[] = chosen === undefined ? [] : chosen.map(key => String(key))
    const cells = rows.map(([index, row]) => {
      const cell = new Map<string, string>()
      const isObject = typeof row === 'object' && row !== null
      if (chosen !== undefined) {
        chosen.forEach((key, column) => {
          if (isObject && Object.hasOwn(row, key)) cell.set(titles[column] as string, inspectValue(ownCell(row, key)))
        })
      } else if (isObject) {
        for (const [column, value] of ownEntries(row)) {
          if (!titles.includes(column)) titles.push(column)
          cell.set(column, inspectValue(value))
        }
      } else {
        if (!titles.includes('Values')) titles.push('Values')
        cell.set('Values', inspectValue(row))
      }
      return { index, cell }
    })
    const header = ['(index)', ...titles]
    const body = cells.map(({ index, cell }) => [index, ...titles.map(column => cell.get(column) ?? '')])
    // A loop, not Math.max(...spread): a table of many rows would overflow the argument stack.
    const widths = header.map((title, column) =>
      body.reduce((widest, line) => Math.max(widest, (line[column] ?? '').length), title.length),
    )
    const render = (line: readonly string[]): string =>
      `│ ${line.map((text, column) => text.padEnd(widths[column] ?? 0)).join(' │ ')} │`
    const rule = (left: string, middle: string, right: string): string =>
      `${left}${widths.map(width => '─'.repeat(width + 2)).join(middle)}${right}`
    return [rule('┌', '┬', '┐'), render(header), rule('├', '┼', '┤'), ...body.map(render), rule('└', '┴', '┘')].join(
      '\n',
    )
  } catch {
    return '[table that cannot be shown]'
  }
}
