// The repository cites its contract, docs/CONTRACT.md, by anchor only: code comments as the
// word CONTRACT, the word section and `#<anchor>`, test titles as "[#<anchor>]", Markdown as
// links to "CONTRACT.md#<anchor>". Each cited anchor must exist as an explicit `<a id>` there (so renaming
// a heading breaks nothing), and nothing may cite the contract by section number, which would
// silently point elsewhere once sections move.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'node:test'

/** This file is packages/core/dist/test/contract-anchors.test.js. */
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url))
const CONTRACT_PATH = join(REPOSITORY, 'docs', 'CONTRACT.md')

const ANCHOR = '[a-z0-9][a-z0-9-]*'
/** Spelled apart, so that the check (grep for the two words together) lists only real citations. */
const CITE = ['CONTRACT', 'section'].join(' ')
/** The ways a text names an anchor of the contract; group 1 is the anchor. */
const CITATIONS: readonly RegExp[] = [
  new RegExp(`${CITE} #(${ANCHOR})`, 'g'),
  new RegExp(`CONTRACT\\.md#(${ANCHOR})`, 'g'),
  new RegExp(`\\[#(${ANCHOR})\\]`, 'g'),
]
/** Citations inside docs/CONTRACT.md itself: `](#anchor)`. */
const INTERNAL_LINK = new RegExp(`\\]\\(#(${ANCHOR})\\)`, 'g')
/** The contract cited by number, with or without the word section, or a bare "(section 2)". */
const NUMBERED_CITATIONS: readonly RegExp[] = [/CONTRACT(?:\.md)?[,:]?\s+(?:sections?\s+)?\d/, /\(sections?\s+\d+[):]/]

/** Explicit anchors (`<a id="...">`) of a Markdown text, in order, duplicates kept. */
function explicitAnchors(markdown: string): string[] {
  return [...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map(match => match[1] ?? '')
}

/** Every anchor `text` cites with one of {@link CITATIONS}. */
function citedAnchors(text: string): string[] {
  return CITATIONS.flatMap(pattern => [...text.matchAll(pattern)].map(match => match[1] ?? ''))
}

/** The lines of `text` that cite the contract by section number. */
function numberedCitations(text: string): string[] {
  return text.split('\n').filter(line => NUMBERED_CITATIONS.some(pattern => pattern.test(line)))
}

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs', '.md']

/** Source and documentation files under `directory`, without dependencies or build output. */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return []
  const found: string[] = []
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue
    const path = join(directory, entry.name)
    if (entry.isDirectory()) found.push(...filesUnder(path))
    else if (SOURCE_EXTENSIONS.some(extension => entry.name.endsWith(extension))) found.push(path)
  }
  return found
}

/** Every file of the repository that may cite the contract. */
function citingFiles(): string[] {
  const files = [
    join(REPOSITORY, 'README.md'),
    ...filesUnder(join(REPOSITORY, 'docs')),
    ...filesUnder(join(REPOSITORY, 'bench')),
    ...filesUnder(join(REPOSITORY, 'scripts')),
  ]
  for (const name of readdirSync(join(REPOSITORY, 'packages'))) {
    const root = join(REPOSITORY, 'packages', name)
    files.push(
      join(root, 'README.md'),
      ...['src', 'test', 'examples'].flatMap(folder => filesUnder(join(root, folder))),
    )
  }
  // This file's own examples of wrong citations are the scanners' test data.
  const ownSource = join(REPOSITORY, 'packages', 'core', 'test', 'contract-anchors.test.ts')
  return files.filter(file => existsSync(file) && file !== ownSource)
}

void describe('the scanners of this test', () => {
  void it('find explicit anchors, cited anchors and numbered citations', () => {
    assert.deepEqual(explicitAnchors('<a id="seam"></a>\n## 1. The seam\n<a id="names"></a>'), ['seam', 'names'])
    assert.deepEqual(
      citedAnchors(`// ${CITE} #output-cap: ...\nit('x [#exception]')\n[link](docs/CONTRACT.md#names)`),
      ['output-cap', 'names', 'exception'],
    )
    const numbered = [
      `// ${CITE} 4: the cap`,
      "describe('x (CONTRACT 3)')",
      `see ${CITE}s 1 to 4`,
      '**Programs (section 2).**',
      'CONTRACT.md, section 5',
    ]
    assert.deepEqual(numberedCitations(numbered.join('\n')), numbered)
    assert.deepEqual(numberedCitations(`${CITE} #lossless-json and issue 11 item 7`), [])
  })
})

void describe('citations of docs/CONTRACT.md', () => {
  const contract = readFileSync(CONTRACT_PATH, 'utf8')
  const anchors = explicitAnchors(contract)
  const known = new Set(anchors)
  const files = citingFiles()

  void it('has unique explicit anchors', () => {
    assert.ok(anchors.length > 20, `only ${anchors.length} anchors found in docs/CONTRACT.md`)
    assert.deepEqual(
      anchors.filter((anchor, index) => anchors.indexOf(anchor) !== index),
      [],
      'anchors defined twice',
    )
  })

  void it('links only to its own anchors', () => {
    const missing = [...contract.matchAll(INTERNAL_LINK)]
      .map(match => match[1] ?? '')
      .filter(anchor => !known.has(anchor))
    assert.deepEqual(missing, [], 'docs/CONTRACT.md links to anchors it does not define')
  })

  void it('is cited only by anchors it defines', () => {
    const broken: string[] = []
    for (const file of files) {
      for (const anchor of citedAnchors(readFileSync(file, 'utf8'))) {
        if (!known.has(anchor)) broken.push(`${relative(REPOSITORY, file)}: #${anchor}`)
      }
    }
    assert.deepEqual(
      broken,
      [],
      'citations of anchors missing from docs/CONTRACT.md (add an <a id> there or fix the citation)',
    )
  })

  void it('is never cited by section number', () => {
    const numbered = files.flatMap(file =>
      numberedCitations(readFileSync(file, 'utf8')).map(line => `${relative(REPOSITORY, file)}: ${line.trim()}`),
    )
    assert.deepEqual(numbered, [], 'cite the rule by its anchor instead')
  })

  void it('is cited by every block of the conformance suite', () => {
    const unanchored: string[] = []
    for (const file of filesUnder(join(REPOSITORY, 'packages', 'core', 'src', 'conformance'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/describe\(`\$\{target\.name\}: ([^`]*)`/g)) {
        if (!/\[#[a-z0-9-]+\]$/.test(match[1] ?? ''))
          unanchored.push(`${relative(REPOSITORY, file)}: ${match[1] ?? ''}`)
      }
    }
    assert.deepEqual(unanchored, [], 'each top-level block of the suite ends its title with the anchor of its rules')
  })
})
