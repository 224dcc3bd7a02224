/**
 * The unit loop (`npm run test:unit`: every `*.unit.test.ts`) needs nothing running and takes
 * seconds, and stays so: no unit test file reaches the database, the app or a server through its
 * imports (followed from file to file; `import type` is erased, so not followed), nor starts a
 * server or a process itself. A test that needs any of them is named `*.api.test.ts` or the like.
 */
import assert from 'node:assert/strict'
import { existsSync, globSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, relative, resolve } from 'node:path'
import { test } from 'node:test'

const root = resolve(import.meta.dirname, '..')
/** The app, the database and the test harness that builds both, the benchmarks' process starter. */
const FORBIDDEN_FILES = ['src/main.ts', 'src/app.ts', 'src/db/database.ts', 'src/db/migrate.ts', 'test/test-app.ts', 'bench/lib.ts']
/** Database drivers, the web framework, servers, processes and browsers. */
const FORBIDDEN_MODULES = [
  'pg',
  'pg-cursor',
  'node:sqlite',
  'fastify',
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:child_process',
  'node:cluster',
  'node:worker_threads',
  'playwright-core',
]
/** What starts a server or a process, in a unit test file itself (besides the modules above, which it needs). */
const STARTS_SOMETHING = /\bcreateServer\s*\(|\.listen\s*\(|\bspawn(?:Sync)?\s*\(|\bexecFile(?:Sync)?\s*\(|\bfork\s*\(|\bnew\s+Worker\s*\(/

// Static imports and re-exports (not `import type`/`export type`), and dynamic imports.
const IMPORT =
  /(?:^|[;\n])\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s*)?['"]([^'"\n]+)['"]|\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g

function specifiers(source: string): string[] {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  return [...withoutComments.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!)
}

/** Every file and module `file` loads, directly or through the files it loads, with the path that reaches it. */
function importsOf(file: string): Map<string, string[]> {
  const reached = new Map<string, string[]>()
  const visit = (path: string, chain: string[]) => {
    for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
      const local = specifier.startsWith('.') || specifier.startsWith('/')
      const key = local
        ? relative(root, resolve(dirname(path), specifier))
        : builtinModules.includes(specifier)
          ? `node:${specifier}`
          : specifier.startsWith('@')
            ? specifier.split('/').slice(0, 2).join('/')
            : specifier.split('/')[0]!
      // A file that is not there is no import but text that looks like one (another test's example).
      if (reached.has(key) || (local && !existsSync(resolve(root, key)))) continue
      const via = [...chain, key]
      reached.set(key, via)
      if (local && /\.[cm]?[jt]s$/.test(key)) visit(resolve(root, key), via)
    }
  }
  visit(resolve(root, file), [file])
  return reached
}

const unitTests = globSync(['src/**/*.unit.test.ts', 'test/**/*.unit.test.ts'], { cwd: root }).sort()
// This file's own examples below would trip the check.
const SELF = relative(root, import.meta.filename)

test('there are unit tests to run', () => assert.ok(unitTests.length > 10, unitTests.join('\n')))

test('no unit test file loads the database, the app or a server, nor starts a server or process', () => {
  const problems: string[] = []
  for (const file of unitTests.filter((f) => f !== SELF)) {
    for (const [key, chain] of importsOf(file)) {
      if (FORBIDDEN_FILES.includes(key) || FORBIDDEN_MODULES.includes(key)) problems.push(chain.join(' → '))
    }
    const starts = STARTS_SOMETHING.exec(readFileSync(resolve(root, file), 'utf8'))
    if (starts) problems.push(`${file} calls ${starts[0]}`)
  }
  assert.deepEqual(
    problems,
    [],
    'a *.unit.test.ts file that needs the database, the app or a server belongs in the full suite: rename it (e.g. *.api.test.ts)',
  )
})

test('the check catches what it should', () => {
  assert.deepEqual(
    specifiers(
      "import a from './a.ts'\nimport type { B } from './b.ts'\nimport {\n  c,\n  type D,\n} from 'pg'\nexport { e } from \"./e.ts\"\nexport type { F } from './f.ts'\nconst g = await import('node:http')\n// import h from './h.ts'\n/* import i from './i.ts' */\nimport './j.ts'",
    ),
    ['./a.ts', 'pg', './e.ts', 'node:http', './j.ts'],
  )
  assert.ok(importsOf('test/test-app.ts').has('src/db/database.ts'))
  assert.ok(STARTS_SOMETHING.test('const server = createServer((req, res) => {})'))
  assert.ok(STARTS_SOMETHING.test("spawn('node', ['src/main.ts'])"))
})
