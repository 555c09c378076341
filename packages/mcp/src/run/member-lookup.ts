/**
 * Finding the members a model meant when it names one that does not exist: most often the
 * upstream tool's own name without its server (`read_text_file` for `files_read_text_file`),
 * or a near miss (`memory_create_entity`). Members are ranked by closeness: the name of the
 * tool itself first, then names that contain it, then by edit distance.
 */

/** What the lookup reads of a catalog: each tool's member and its name on its server. */
export interface MemberNames {
  readonly tools: readonly { readonly member: string; readonly toolName: string }[]
}

/** Names are compared on at most this many characters: enough for any real name, and bounded work. */
const COMPARED_CHARS = 120

/** Levenshtein distance (insert, delete, replace each cost 1), in one reused row. */
export function editDistance(left: string, right: string): number {
  const row = Array.from({ length: right.length + 1 }, (_, index) => index)
  for (let i = 1; i <= left.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= right.length; j++) {
      const above = row[j] as number
      const replace = diagonal + (left[i - 1] === right[j - 1] ? 0 : 1)
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, replace)
      diagonal = above
    }
  }
  return row[right.length] as number
}

/** How a member relates to the name asked for: lower is closer. */
function closenessTier(name: string, member: string, toolName: string): number {
  const tool = toolName.toLowerCase()
  if (tool === name || member.endsWith(`_${name}`)) return 0
  // Short names are part of too many others to say anything.
  if ((name.length >= 3 && member.includes(name)) || (tool.length >= 3 && name.includes(tool))) return 1
  return 2
}

/**
 * The members of `catalog` closest to `name`, best first, at most `limit`.
 * @example closestMembers(catalog, 'read_text_file') // ['files_read_text_file', 'files_read_file', ...]
 */
export function closestMembers(catalog: MemberNames, name: string, limit: number): string[] {
  const wanted = name.toLowerCase().slice(0, COMPARED_CHARS)
  return catalog.tools
    .map(tool => {
      const member = tool.member.toLowerCase()
      const toolName = tool.toolName.slice(0, COMPARED_CHARS)
      const distance = Math.min(
        editDistance(wanted, member.slice(0, COMPARED_CHARS)),
        editDistance(wanted, toolName.toLowerCase()),
      )
      return { member: tool.member, tier: closenessTier(wanted, member, toolName), distance }
    })
    .sort(
      (left, right) =>
        left.tier - right.tier ||
        left.distance - right.distance ||
        (left.member < right.member ? -1 : left.member > right.member ? 1 : 0),
    )
    .slice(0, limit)
    .map(ranked => ranked.member)
}
