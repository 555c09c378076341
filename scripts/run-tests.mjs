// Runs every compiled test file (`*.test.js` under packages/*/dist and bench/dist) with Node's own test runner.
// Node 20's `--test` has no glob support, so the file list is built here. Arguments keep only the files whose
// path (from the repository root, e.g. packages/core/dist/test/fuzz.test.js) contains one of them; paths are
// read from the root wherever it is started, so each package's `npm test` runs its own files through here.
import { spawnSync } from 'node:child_process'
import { readdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

// The repository root: the folder above this script's.
process.chdir(fileURLToPath(new URL('..', import.meta.url)))

function findTests(directory) {
  const found = []
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) found.push(...findTests(path))
    else if (entry.name.endsWith('.test.js')) found.push(path)
  }
  return found
}

const only = process.argv.slice(2)
const files = []
// The bench's own unit tests (option parsing, ratio maths) run with the packages'; its measuring is `npm run bench`.
const dists = [
  ...readdirSync('packages')
    .sort()
    .map(name => join('packages', name, 'dist')),
  join('bench', 'dist'),
]
for (const dist of dists) {
  if (!existsSync(dist)) continue
  files.push(...findTests(dist))
}
const selected = only.length === 0 ? files : files.filter(file => only.some(part => file.includes(part)))
if (selected.length === 0) {
  console.error('No test files found: run `npm run build` first.')
  process.exit(1)
}
// Most test files spend their time waiting on workers, children, containers and budgets they
// started, so four files at once finish the suite sooner even on two cores (measured on two cores:
// 426 s at four, against 576 s at two); Node's own default (one file fewer than the cores) would
// run them one by one there. Larger machines keep Node's default when it is higher.
// CODE_RUNTIME_TEST_CONCURRENCY overrides it (to measure, or to go one by one while debugging).
const concurrency = Number(process.env.CODE_RUNTIME_TEST_CONCURRENCY) || Math.max(4, availableParallelism() - 1)
// Node applies the limit to each file as a whole. Our slowest file, the CLI's, takes 1.5 minutes
// on a quiet machine and over 5 beside a CPU hog; a file that hangs (a child that never answers)
// fails at this limit,
// naming itself, instead of holding the whole suite until CI gives up.
const TEST_TIMEOUT_MS = 900_000
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    '--test-reporter=spec',
    ...selected.sort(),
  ],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
