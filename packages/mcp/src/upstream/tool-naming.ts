/**
 * The calling convention: the tool `read_text_file` of the server `files` is
 * `tools.files_read_text_file(args)`. One namespace, one flat list of members, each starting
 * with its server's name, so a model reads where a call goes and sorted declarations group by
 * server. Members follow Code Mode's identifier rules (`read-file` → `read_file`, accents
 * dropped, reserved words avoided). When two (server, tool) pairs land on one member, the first
 * in code-unit order of (server, tool) keeps it and the others take `_2`, `_3`...: the result
 * depends only on the set of pairs, never on the order servers answered in.
 */
import { preferredMemberName } from '@code-runtime/code-mode'

/** A tool of one server. */
export interface ServerToolName {
  readonly server: string
  readonly tool: string
}

function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0
}

/** The member a pair gets when nothing else competes for it. */
export function preferredToolMember(pair: ServerToolName): string {
  return preferredMemberName(`${pair.server}_${pair.tool}`)
}

/**
 * The member of each pair, in the order given. Members are distinct identifiers that Code Mode
 * keeps as they are.
 * @example assignToolMembers([{ server: 'files', tool: 'read-file' }]) // ['files_read_file']
 */
export function assignToolMembers(pairs: readonly ServerToolName[]): string[] {
  const preferred = pairs.map(preferredToolMember)
  const wanted = new Map<string, number>()
  for (const name of preferred) wanted.set(name, (wanted.get(name) ?? 0) + 1)
  const members: (string | undefined)[] = preferred.map(name => (wanted.get(name) === 1 ? name : undefined))
  const taken = new Set(preferred)
  const contested = pairs
    .map((pair, index) => ({ pair, index }))
    .filter(({ index }) => members[index] === undefined)
    .sort(
      (left, right) =>
        compareCodeUnits(left.pair.server, right.pair.server) || compareCodeUnits(left.pair.tool, right.pair.tool),
    )
  const claimed = new Set<string>()
  for (const { index } of contested) {
    const base = preferred[index] as string
    if (!claimed.has(base)) {
      claimed.add(base)
      members[index] = base
      continue
    }
    let suffix = 2
    while (taken.has(`${base}_${suffix}`)) suffix++
    const member = `${base}_${suffix}`
    taken.add(member)
    members[index] = member
  }
  return members as string[]
}
