/**
 * Shapes written out more than once (the same entity object in five memory tools, say) become
 * one named type when that makes the SDK shorter. Only whole shapes move, comments included,
 * so nothing a reader sees is lost; only exact repeats are shared, so no type widens.
 */
import { singularNoun, toPascalCase } from './identifier-text.js'
import { findUniqueName, takeUniqueName, type NamedType } from './type-declarations.js'
import { mapChildTypes, type TypeNode } from './type-node.js'
import { printType } from './type-printer.js'

/** Sharing must save at least this many characters to be worth the indirection for a reader. */
const MIN_SAVED_CHARS = 40
/** Shorter shapes stay written out where they are used: `{ content: string }` reads better than a name. */
const MIN_SHARED_SHAPE_CHARS = 40

/** A type the SDK writes out in place, with the name a shared copy of it would take. */
export interface TypeSite {
  readonly type: TypeNode
  /** PascalCase name for this type if it is shared, e.g. `ReadGraphResult`. */
  readonly nameHint: string
}

export interface SharedShapes {
  readonly declarations: readonly NamedType[]
  /** The sites' types, in the order given, with shared shapes replaced by references. */
  readonly sites: readonly TypeNode[]
}

const printed = new WeakMap<TypeNode, string>()

/** The text of a node, cached: nodes are immutable and the search prints the same ones often. */
function textOf(node: TypeNode): string {
  let text = printed.get(node)
  if (text === undefined) {
    text = printType(node)
    printed.set(node, text)
  }
  return text
}

function isShareable(node: TypeNode): boolean {
  switch (node.kind) {
    case 'object':
      return node.properties.length > 0 || node.index !== undefined
    case 'tuple':
      return node.elements.length > 0
    case 'union':
    case 'intersection':
      return true
    default:
      return false
  }
}

function elementHint(hint: string): string {
  return singularNoun(hint) ?? `${hint}Item`
}

/** Calls `visit` for each node under `node` with the name it would take if shared. */
function forEachNested(node: TypeNode, hint: string, visit: (node: TypeNode, hint: string) => void): void {
  const descend = (child: TypeNode, childHint: string): void => {
    visit(child, childHint)
    forEachNested(child, childHint, visit)
  }
  switch (node.kind) {
    case 'array':
      return descend(node.element, elementHint(hint))
    case 'tuple':
      for (const element of node.elements) descend(element.type, elementHint(hint))
      if (node.rest !== undefined) descend(node.rest, elementHint(hint))
      return
    case 'object':
      for (const property of node.properties) descend(property.type, toPascalCase(property.name) || `${hint}Value`)
      if (node.index !== undefined) descend(node.index.type, `${hint}Value`)
      return
    case 'union':
    case 'intersection':
      for (const member of node.members) descend(member, hint)
      return
    default:
      return
  }
}

function replaceShape(node: TypeNode, text: string, name: string): TypeNode {
  if (isShareable(node) && textOf(node) === text) return { kind: 'reference', key: name }
  return mapChildTypes(node, child => replaceShape(child, text, name))
}

interface Repeat {
  /** The first copy seen, which becomes the shared declaration's body. */
  readonly node: TypeNode
  readonly text: string
  /** The name each copy would give it, in the order seen. */
  readonly hints: string[]
}

/** The words of a PascalCase name: `ListCustomersArgs` → `List`, `Customers`, `Args`. */
function pascalWords(name: string): string[] {
  return name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [name]
}

/**
 * A name that fits every copy: the words all hints share at the start and the end
 * (`ListCustomersArgs`, `ListOrdersArgs` → `ListArgs`), or the first hint when they share none.
 */
function commonName(hints: readonly string[]): string {
  const first = hints[0] ?? 'Shape'
  if (hints.every(hint => hint === first)) return first
  const words = hints.map(pascalWords)
  const shortest = Math.min(...words.map(list => list.length))
  const agreeAt = (pick: (list: string[]) => string | undefined): boolean =>
    words.every(list => pick(list) === pick(words[0] as string[]))
  let prefix = 0
  while (prefix < shortest && agreeAt(list => list[prefix])) prefix++
  let suffix = 0
  while (suffix < shortest - prefix && agreeAt(list => list[list.length - 1 - suffix])) suffix++
  const firstWords = words[0] as string[]
  const name = [...firstWords.slice(0, prefix), ...firstWords.slice(firstWords.length - suffix)].join('')
  return name === '' ? first : name
}

/** Characters saved by writing the copies of a shape as one `type name = ...` and a name per copy. */
function savedChars(repeat: Repeat, name: string): number {
  const count = repeat.hints.length
  const declarationChars = 'type  = \n'.length + name.length + repeat.text.length
  return count * repeat.text.length - declarationChars - count * name.length
}

/**
 * Shares repeated shapes among the sites and declarations, most saving first, while sharing
 * still saves {@link MIN_SAVED_CHARS}. Also points copies of an existing declaration's body at it.
 * Shapes shorter than {@link MIN_SHARED_SHAPE_CHARS} are never shared.
 * @param takenNames names already in use; names of new declarations are added to it.
 */
export function shareRepeatedShapes(
  declarations: readonly NamedType[],
  sites: readonly TypeSite[],
  takenNames: Set<string>,
): SharedShapes {
  let currentDeclarations = [...declarations]
  let currentSites = sites.map(site => site.type)
  const replaceEverywhere = (text: string, name: string): void => {
    currentSites = currentSites.map(type => replaceShape(type, text, name))
    // A declaration's own body is not replaced, or it would refer to itself.
    currentDeclarations = currentDeclarations.map(declaration => ({
      ...declaration,
      body: mapChildTypes(declaration.body, child => replaceShape(child, text, name)),
    }))
  }
  // Short bodies stay written out: `{ id: string }` is clearer than a name borrowed from elsewhere.
  for (const declaration of declarations) {
    const text = textOf(declaration.body)
    if (isShareable(declaration.body) && text.length >= MIN_SHARED_SHAPE_CHARS)
      replaceEverywhere(text, declaration.name)
  }
  for (;;) {
    const repeats = new Map<string, Repeat>()
    const count = (node: TypeNode, hint: string): void => {
      if (!isShareable(node)) return
      const text = textOf(node)
      const repeat = repeats.get(text)
      if (repeat === undefined) repeats.set(text, { node, text, hints: [hint] })
      else repeat.hints.push(hint)
    }
    currentSites.forEach((type, index) => {
      const hint = sites[index]?.nameHint ?? 'Shape'
      count(type, hint)
      forEachNested(type, hint, count)
    })
    for (const declaration of currentDeclarations) forEachNested(declaration.body, declaration.name, count)
    let best: { readonly repeat: Repeat; readonly saved: number; readonly preferredName: string } | undefined
    for (const repeat of repeats.values()) {
      if (repeat.hints.length < 2 || repeat.text.length < MIN_SHARED_SHAPE_CHARS) continue
      const preferredName = commonName(repeat.hints)
      const saved = savedChars(repeat, findUniqueName(preferredName, takenNames))
      if (saved >= MIN_SAVED_CHARS && (best === undefined || saved > best.saved))
        best = { repeat, saved, preferredName }
    }
    if (best === undefined) break
    const name = takeUniqueName(best.preferredName, takenNames)
    replaceEverywhere(best.repeat.text, name)
    currentDeclarations.push({ name, body: best.repeat.node })
  }
  return { declarations: currentDeclarations, sites: currentSites }
}
