/**
 * Console formatting inside the sandbox: inspect-style text of program values. Program-defined
 * custom inspectors are never called (they would receive worker-realm objects) and proxies are
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
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)
    entries.push([key, descriptor !== undefined && 'value' in descriptor ? descriptor.value : '[getter]'])
  }
  return entries
}

/** Renders rows of objects (or arrays) as a plain text table, like `console.table`. */
export function formatTable(data: unknown): string {
  try {
    if (typeof data !== 'object' || data === null) return inspectValue(data)
    const rows = ownEntries(data)
    const columns: string[] = []
    const cells = rows.map(([index, row]) => {
      const cell = new Map<string, string>()
      if (typeof row === 'object' && row !== null) {
        for (const [column, value] of ownEntries(row)) {
          if (!columns.includes(column)) columns.push(column)
          cell.set(column, inspectValue(value))
        }
      } else {
        if (!columns.includes('Values')) columns.push('Values')
        cell.set('Values', inspectValue(row))
      }
      return { index, cell }
    })
    const header = ['(index)', ...columns]
    const body = cells.map(({ index, cell }) => [index, ...columns.map((column) => cell.get(column) ?? '')])
    const widths = header.map((title, column) => Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)))
    const render = (line: readonly string[]): string => `│ ${line.map((text, column) => text.padEnd(widths[column] ?? 0)).join(' │ ')} │`
    const rule = (left: string, middle: string, right: string): string => `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}`
    return [rule('┌', '┬', '┐'), render(header), rule('├', '┼', '┤'), ...body.map(render), rule('└', '┴', '┘')].join('\n')
  } catch {
    return '[table that cannot be shown]'
  }
}
