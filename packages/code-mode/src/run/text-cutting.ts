/**
 * Cutting text down to a budget of characters so that a reader still learns what was there:
 * every cut leaves a marker saying how much it left out. Logs are cut in the middle (their
 * beginning shows what a program did first, their end what it did last, often the reason it
 * failed), and a single line too long to fit is cut itself.
 */

/** The index to cut `text` at, moved back one code unit when `index` would split a surrogate pair. */
function safeCutIndex(text: string, index: number): number {
  if (index <= 0) return 0
  const last = text.charCodeAt(index - 1)
  return last >= 0xd800 && last <= 0xdbff ? index - 1 : index
}

/**
 * The beginning of `text` followed by `marker(omitted)`, at most `maxChars` characters in all
 * (provided the marker itself fits). Text that fits is returned as it is.
 * @example cutWithMarker('abcdefgh', 6, (n) => `[-${n}]`) // 'ab[-6]'
 */
export function cutWithMarker(text: string, maxChars: number, marker: (omitted: number) => string): string {
  if (text.length <= maxChars) return text
  // Sized for the largest count the marker could carry, so the real marker never overshoots.
  const keep = safeCutIndex(text, Math.max(0, maxChars - marker(text.length).length))
  return text.slice(0, keep) + marker(text.length - keep)
}

/** `1 line`, `3 lines`: a count with its noun. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/** Stands where log lines were left out. At most 90 characters for any count below 10^12. */
function omittedLinesMarker(lines: number, chars: number): string {
  return `[... ${plural(lines, 'log line')} left out here (${chars} characters); log less to see them all]`
}

/** Ends a single log line that was cut. */
function cutLineMarker(omitted: number): string {
  return ` [... ${omitted} more characters of this line left out]`
}

/** Room, in characters, a line must get for cutting it to be worth it rather than leaving it out. */
const MIN_CUT_LINE_ROOM = cutLineMarker(1e12).length + 40

/** The budget every log excerpt can rely on: one marker, nothing else. */
export const MIN_LOG_EXCERPT_CHARS = omittedLinesMarker(1e12, 1e12).length

/**
 * Counts how many of `lines`, taken in `order`, fit whole in `budget` characters (each costs its
 * length plus a newline), stopping at the first that does not.
 */
function fitWholeLines(
  lines: readonly string[],
  order: readonly number[],
  budget: number,
): { count: number; used: number } {
  let used = 0
  let count = 0
  for (const index of order) {
    const cost = (lines[index] as string).length + 1
    if (used + cost > budget) break
    used += cost
    count++
  }
  return { count, used }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, offset) => from + offset)
}

/**
 * The log lines joined by newlines, at most `maxChars` characters: when they are longer, the
 * first and last lines are kept (about half the budget each) and a marker in between says how
 * many lines were left out. A line longer than half the budget, met where the head or the tail
 * stops, is cut itself, with its own marker, in the room the others left. `maxChars` should be
 * at least {@link MIN_LOG_EXCERPT_CHARS}.
 * @example cutLogLines(lines, 200) // 'line 1\nline 2\n[... 96 log lines left out here (...); ...]\nline 99\nline 100'
 */
export function cutLogLines(lines: readonly string[], maxChars: number): string {
  const whole = lines.join('\n')
  if (whole.length <= maxChars) return whole
  const markerRoom = omittedLinesMarker(lines.length, whole.length).length + 1
  const available = maxChars - markerRoom
  if (available <= 0) return omittedLinesMarker(lines.length, whole.length).slice(0, maxChars)
  const half = Math.floor(available / 2)
  const head = fitWholeLines(lines, range(0, lines.length), half)
  let tail = fitWholeLines(lines, range(head.count, lines.length).reverse(), half)
  // Something is always left between them: had every line fitted, `whole` would have too.
  const gapStart = head.count
  let gapEnd = lines.length - tail.count
  const isHuge = (index: number): boolean => (lines[index] as string).length + 1 > half
  // A huge line where the head or tail stops (one JSON dump of a whole response, say) is often
  // the most telling output: show its beginning rather than leave a hole.
  const hugeIndex = isHuge(gapStart) ? gapStart : isHuge(gapEnd - 1) ? gapEnd - 1 : undefined
  let cutLine: string | undefined
  if (hugeIndex === undefined) {
    // The end of a program's logs usually says most (its last steps, why it failed), so the
    // tail gets the room the head left.
    tail = fitWholeLines(lines, range(head.count, lines.length).reverse(), available - head.used)
    gapEnd = lines.length - tail.count
  } else {
    // When that line is the only one left out, it needs no marker and gets the marker's room.
    const room = available - head.used - tail.used - 1 + (gapEnd - gapStart === 1 ? markerRoom : 0)
    if (room >= MIN_CUT_LINE_ROOM) cutLine = cutWithMarker(lines[hugeIndex] as string, room, cutLineMarker)
  }
  const omitted = lines
    .slice(gapStart, gapEnd)
    .filter((_, offset) => cutLine === undefined || gapStart + offset !== hugeIndex)
  const middle =
    omitted.length === 0
      ? []
      : [
          omittedLinesMarker(
            omitted.length,
            omitted.reduce((sum, line) => sum + line.length, omitted.length - 1),
          ),
        ]
  if (cutLine !== undefined) {
    if (hugeIndex === gapStart) middle.unshift(cutLine)
    else middle.push(cutLine)
  }
  return [...lines.slice(0, gapStart), ...middle, ...lines.slice(gapEnd)].join('\n')
}
