/**
 * A test reporter that lists where a run's time went: each test file's wall time (its process,
 * start to exit), slowest first, then the slowest tests. Use it beside another reporter:
 *   node --test --test-reporter=spec --test-reporter-destination=stdout \
 *     --test-reporter=./scripts/test-durations.ts --test-reporter-destination=durations.txt 'src/**\/*.test.ts' 'test/**\/*.test.ts'
 * Add TEST_DURATIONS_TOP=<n> to list more (or fewer) tests than 25.
 */
import { relative } from 'node:path'

interface TestEvent {
  type: string
  data: { name: string; nesting: number; file?: string; details?: { duration_ms?: number; passed?: boolean } }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(7)} s`

export default async function* durations(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const started = Date.now()
  const files: { file: string; ms: number; failed: boolean }[] = []
  const tests: { name: string; file: string; ms: number }[] = []
  for await (const event of source) {
    if (event.type !== 'test:complete') continue
    const { name, nesting, file, details } = event.data
    const ms = details?.duration_ms ?? 0
    const path = file ? relative(process.cwd(), file) : ''
    // The runner completes each file as a test named by its path, once its process exited.
    if (nesting === 0 && name === path) files.push({ file: path, ms, failed: details?.passed === false })
    else if (nesting <= 1) tests.push({ name, file: path, ms })
  }
  const total = files.reduce((sum, { ms }) => sum + ms, 0)
  yield `${files.length} files in ${seconds(Date.now() - started).trim()} of wall time; their processes took ${seconds(total).trim()} added up\n\n`
  for (const { file, ms, failed } of files.sort((a, b) => b.ms - a.ms)) yield `${seconds(ms)}  ${file}${failed ? '  (failed)' : ''}\n`
  yield '\nslowest tests (a suite counts as one):\n'
  const top = Number(process.env.TEST_DURATIONS_TOP ?? 25)
  for (const { name, file, ms } of tests.sort((a, b) => b.ms - a.ms).slice(0, top)) yield `${seconds(ms)}  ${file}  ${name}\n`
}
