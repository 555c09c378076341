/**
 * The one shape of what the project's own checkers and decoders return when a failure is an
 * answer, not an exception: the value, or why there is none. Callers branch on `ok` and read
 * `value` or `error`, whichever checker it was.
 */
export type Checked<T, E = string> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E }
