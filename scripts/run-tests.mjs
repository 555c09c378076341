// Runs every compiled test file (`*.test.js` under packages/*/dist and bench/dist) with Node's own test runner.
// Node 20's `--test` has no glob support, so the file list is built here. Arguments keep only the files whose
// path (from the repository root, e.g. packages/core/dist/test/fuzz.test.js) contains one of them; paths are
// read from the root wherever it is started, so each package's `npm test` runs its own files through here.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
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

// The runner starts files in the order given, so a slow file started last makes the whole suite
// wait for it alone. Each run records how long every file took (test-durations-reporter.mjs), and
// the next starts the slowest first and files never timed before them (a new file may be slow).
// On CI the first Node version's run times them, and the other two run in that order.
const DURATIONS_PATH = join('node_modules', '.cache', 'code-runtime-test-durations.json')
const RUN_DURATIONS_PATH = join('node_modules', '.cache', `code-runtime-test-durations-${process.pid}.json`)

function readDurations(path) {
  try {
    const read = JSON.parse(readFileSync(path, 'utf8'))
    return typeof read === 'object' && read !== null && !Array.isArray(read) ? read : {}
  } catch {
    return {}
  }
}

const known = readDurations(DURATIONS_PATH)
const durationOf = file => (typeof known[file] === 'number' ? known[file] : Number.POSITIVE_INFINITY)
const ordered = selected.sort().sort((left, right) => durationOf(right) - durationOf(left))
mkdirSync(join('node_modules', '.cache'), { recursive: true })
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    // A test stopped at its own limit can leave what it started running (a child, a connection);
    // the file then ends once its tests have, instead of waiting for the file limit above.
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${fileURLToPath(new URL('test-durations-reporter.mjs', import.meta.url))}`,
    `--test-reporter-destination=${RUN_DURATIONS_PATH}`,
    ...ordered,
  ],
  { stdio: 'inherit' },
)
// The reporter names files by absolute path; they are kept by path from the root, merged with
// what earlier runs timed (a run of some files keeps the others' times).
const timed = {}
const lines = existsSync(RUN_DURATIONS_PATH) ? readFileSync(RUN_DURATIONS_PATH, 'utf8').split('\n') : []
for (const line of lines) {
  try {
    const { file, ms } = JSON.parse(line)
    if (typeof file === 'string' && typeof ms === 'number') timed[file] = (timed[file] ?? 0) + ms
  } catch {
    // An empty line, or the last one cut short by the runner's exit.
  }
}
rmSync(RUN_DURATIONS_PATH, { force: true })
for (const [file, milliseconds] of Object.entries(timed)) {
  known[relative(process.cwd(), resolve(file))] = Math.round(milliseconds)
}
writeFileSync(DURATIONS_PATH, `${JSON.stringify(known, null, 2)}\n`)
process.exit(result.status ?? 1)
