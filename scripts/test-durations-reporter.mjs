// A reporter for Node's test runner beside the spec one: one JSON line per top-level test as it
// ends, `{ "file": ..., "ms": ... }`. run-tests.mjs sums them per file and keeps the sums between
// runs to start the slowest files first. A line per test, not one object at the end: with
// --test-force-exit the runner exits before a reporter's last output is written.
export default async function* testFileDurations(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { nesting, file, details } = event.data
    if (nesting !== 0 || typeof file !== 'string') continue
    yield `${JSON.stringify({ file, ms: details?.duration_ms ?? 0 })}\n`
  }
}
