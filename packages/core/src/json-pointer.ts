/**
 * JSON Pointer (RFC 6901) segments: `~1` stands for `/` and `~0` for `~`, undone in that order
 * so that `~01` reads as `~1`, not `/`.
 */

/**
 * One segment of a JSON Pointer as the key it names.
 * @example unescapeJsonPointerSegment('a~1b') // 'a/b'
 */
export function unescapeJsonPointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}
