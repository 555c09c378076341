/**
 * JSON text of a value already checked as lossless JSON, at any depth.
 *
 * The native `JSON.stringify` recurses on the call stack and throws a RangeError a few thousand
 * levels down (about 4 500 on a main thread, 15 000 in a worker), while CONTRACT section #json-depth puts
 * no bound on depth. Shallow values, the common case, keep the native fast path; a value the
 * native serializer cannot handle for depth is written by an iterative walk that produces the
 * same text, byte for byte.
 *
 * Every intrinsic is captured when this module loads: it also runs inside the sandbox's guest
 * runtime, next to (not inside) the program's context.
 */
import type { CodeJsonValue } from './types.js'

const nativeStringify = JSON.stringify
const { isArray } = Array
const { keys: objectKeys } = Object
const RangeErrorConstructor = RangeError
const { apply } = Reflect
const arrayJoin = Array.prototype.join

/** One array or object whose members are being written. */
interface Frame {
  readonly source: readonly CodeJsonValue[] | { readonly [key: string]: CodeJsonValue }
  readonly keys: readonly string[] | undefined // undefined for arrays
  readonly length: number
  readonly close: ']' | '}'
  readonly parent: Frame | undefined
  index: number
}

function openFrame(value: CodeJsonValue[] | { [key: string]: CodeJsonValue }, parent: Frame | undefined): Frame {
  if (isArray(value)) return { source: value, keys: undefined, length: value.length, close: ']', parent, index: 0 }
  const keys = objectKeys(value)
  return { source: value, keys, length: keys.length, close: '}', parent, index: 0 }
}

/** The text of a primitive: the native serializer never recurses on one. */
function primitiveText(value: string | number | boolean | null): string {
  return nativeStringify(value) as string
}

/**
 * Writes `root` without recursion: the pending containers form a linked list of frames, so the
 * depth it handles is bounded by memory, not by the stack. Text is gathered in pieces and
 * joined once, which keeps a long run of small appends linear.
 */
function stringifyIteratively(root: CodeJsonValue): string {
  if (typeof root !== 'object' || root === null) return primitiveText(root)
  const pieces: string[] = []
  let count = 0
  let top: Frame | undefined = openFrame(root, undefined)
  pieces[count++] = isArray(root) ? '[' : '{'
  while (top !== undefined) {
    const frame: Frame = top
    if (frame.index === frame.length) {
      pieces[count++] = frame.close
      top = frame.parent
      continue
    }
    const index = frame.index
    frame.index = index + 1
    if (index > 0) pieces[count++] = ','
    let child: CodeJsonValue
    if (frame.keys === undefined) {
      child = (frame.source as readonly CodeJsonValue[])[index] as CodeJsonValue
    } else {
      const key = frame.keys[index] as string
      pieces[count++] = primitiveText(key)
      pieces[count++] = ':'
      child = (frame.source as { readonly [key: string]: CodeJsonValue })[key] as CodeJsonValue
    }
    if (typeof child === 'object' && child !== null) {
      pieces[count++] = isArray(child) ? '[' : '{'
      top = openFrame(child, frame)
    } else {
      pieces[count++] = primitiveText(child)
    }
  }
  return apply(arrayJoin, pieces, ['']) as string
}

/**
 * The compact JSON text of `value`, exactly what `JSON.stringify(value)` gives when it does not
 * run out of stack, at any depth. `value` must be lossless JSON (a snapshot or a parsed value):
 * nothing here checks it again.
 * @throws {RangeError} only when the text is too long for a string (about 512 MiB); callers at a
 *   boundary turn that into a failure of the one call or run.
 * @example stringifyJsonValue({ a: [1, 'x'] }) // '{"a":[1,"x"]}'
 */
export function stringifyJsonValue(value: CodeJsonValue): string {
  try {
    return nativeStringify(value) as string
  } catch (error) {
    // Anything but the stack running out (a string too long) would fail the walk too.
    if (!(error instanceof RangeErrorConstructor)) throw error
  }
  return stringifyIteratively(value)
}
