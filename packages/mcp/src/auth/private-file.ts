/**
 * Reads a file that holds a secret or a list of who may do what (a keys file, a state key): the
 * server refuses it when anyone but its owner may read or write it, as ssh does a private key.
 */
import { readFileSync, statSync } from 'node:fs'

/**
 * The text of `path`, or the reason it may not be used, in words for the operator (`is not a file.`,
 * `may be read or written by others (mode 644); run chmod 600 on it.`, `cannot be read (ENOENT).`).
 */
export function readPrivateFile(path: string): { readonly text: string } | { readonly refusal: string } {
  try {
    const stats = statSync(path)
    if (!stats.isFile()) return { refusal: 'is not a file.' }
    if ((stats.mode & 0o077) !== 0) {
      return {
        refusal: `may be read or written by others (mode ${(stats.mode & 0o777).toString(8)}); run chmod 600 on it.`,
      }
    }
    return { text: readFileSync(path, 'utf8') }
  } catch (error) {
    return { refusal: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).` }
  }
}
