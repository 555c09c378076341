// A reporter for Node's test runner beside the spec one: how long each test file's top-level
// tests took, summed, as one JSON object of file path → milliseconds. run-tests.mjs keeps these
// between runs to start the slowest files first.
export default async function* testFileDurations(source) {
  const durations = {}
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { nesting, file, details } = event.data
    if (nesting !== 0 || typeof file !== 'string') continue
    durations[file] = (durations[file] ?? 0) + (details?.duration_ms ?? 0)
  }
  yield `${JSON.stringify(durations)}\n`
}
