/**
 * Local `$ref` resolution: `#`, `#/$defs/Entity`, `#/properties/a~1b`. Only references into the
 * same document resolve; remote ones and `$anchor` names are reported, not fetched or searched.
 */
import { unescapeJsonPointerSegment, type Checked } from '@code-runtime/core/internal'

/** Why a reference did not resolve, in a few words for a comment in the SDK. */
export type UnresolvedReason = 'remote' | 'anchor' | 'malformed' | 'missing'

/** Where a resolved reference points: the pointer, its unescaped segments, and what is there. */
export interface ReferenceTarget {
  readonly pointer: string
  readonly segments: readonly string[]
  readonly target: unknown
}

export type ResolvedReference = Checked<ReferenceTarget, UnresolvedReason>

function step(value: unknown, segment: string): unknown {
  if (Array.isArray(value)) {
    return /^(?:0|[1-9][0-9]*)$/.test(segment) ? value[Number(segment)] : undefined
  }
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined
  return (value as Record<string, unknown>)[segment]
}

/**
 * Resolves `reference` against `document`, the schema it appears in. The returned `pointer`
 * is the decoded JSON Pointer (`/$defs/Entity`), one spelling per target.
 */
export function resolveLocalReference(document: unknown, reference: string): ResolvedReference {
  const hashAt = reference.indexOf('#')
  if (hashAt !== 0) return { ok: false, error: hashAt < 0 && reference === '' ? 'malformed' : 'remote' }
  let fragment: string
  try {
    fragment = decodeURIComponent(reference.slice(1))
  } catch {
    return { ok: false, error: 'malformed' }
  }
  if (fragment !== '' && !fragment.startsWith('/')) return { ok: false, error: 'anchor' }
  const segments = fragment === '' ? [] : fragment.slice(1).split('/').map(unescapeJsonPointerSegment)
  let target: unknown = document
  for (const segment of segments) {
    target = step(target, segment)
    if (target === undefined) return { ok: false, error: 'missing' }
  }
  return { ok: true, value: { pointer: fragment, segments, target } }
}
