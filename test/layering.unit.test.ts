// The layering of src/ as a test: every folder has a rank, and a file may import only from its own
// folder or from folders ranked below it. An import upward, or any cycle between files, fails with
// the file → file that causes it. docs/architecture.md draws the same list as floors.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { test } from 'node:test'

/** Lowest first. A new folder must be placed here before it may be imported. */
export const LAYERS = [
  'config.ts',
  'db',
  'http',
  'features/evaluation',
  'features/constraints',
  'features/events',
  'features/projects',
  'features/api-tokens',
  'features/environments',
  'features/feature-types',
  'features/tags',
  'features/context-fields',
  'features/segments',
  'features/strategy-definitions',
  'features/lifecycle',
  'features/flags',
  'features/favorites',
  'features/flag-environments',
  'features/email',
  'features/users',
  'features/sessions',
  'features/invite-links',
  'features/personal-tokens',
  'features/me',
  'features/client-api',
  'features/metrics',
  'features/feature-search',
  'features/project-status',
  'features/openfeature',
  'features/applications',
  'features/project-insights',
  'features/personal-dashboard',
  'features/playground',
  'features/edge',
  'features/revert',
  'features/export-import',
  'features/change-requests',
  'features/integrations',
  'features/maintenance',
  'features/sso',
  'features/instance-admin',
  'features/ui-config',
  'features/console',
  'features/migration',
  'cli',
  'app.ts',
  'compile-cache.mjs',
  'main.ts',
]

const root = join(import.meta.dirname, '..')
const src = join(root, 'src')

/** Source files of the application: tests are users of the layers, not part of them. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The folder (or top-level file) a path of src/ belongs to, as LAYERS names it. */
export function layerOf(path: string): string {
  const parts = relative(src, path).split('/')
  if (parts[0] === 'features') return `features/${parts[1]}`
  return parts[0]!
}

/** Relative imports of a file: static, re-exports and dynamic import(). */
export function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]!)
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)))
}

const files = sourceFiles(src)
const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]))
const show = (path: string) => relative(root, path)

test('every folder of src/ has a place in the layers', () => {
  const unplaced = [...new Set(files.map(layerOf))].filter((layer) => !LAYERS.includes(layer)).sort()
  assert.deepEqual(unplaced, [], 'add these to LAYERS in test/layering.test.ts (and to docs/architecture.md)')
})

test('no file imports from a folder ranked above its own', () => {
  const upward: string[] = []
  for (const [file, imports] of graph) {
    const rank = LAYERS.indexOf(layerOf(file))
    for (const target of imports) {
      if (!target.startsWith(src)) {
        upward.push(`${show(file)} → ${show(target)} (outside src/)`)
        continue
      }
      const targetRank = LAYERS.indexOf(layerOf(target))
      if (targetRank > rank) upward.push(`${show(file)} → ${show(target)} (${layerOf(file)} is below ${layerOf(target)})`)
    }
  }
  assert.deepEqual(upward, [])
})

test('no cycle between files', () => {
  // Tarjan's strongly connected components; any component of more than one file is a cycle.
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (file: string) => {
    index.set(file, next)
    low.set(file, next++)
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(show(member))
      } while (member !== file)
      if (component.length > 1) cycles.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  assert.deepEqual(cycles, [])
})

test('docs/architecture.md lists the same floors in the same order', () => {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
  const block = /## Floors[\s\S]*?```\n[^\n]*\n([\s\S]*?)```/.exec(doc)?.[1] ?? ''
  const listed = block
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/)[1])
  assert.deepEqual(listed, LAYERS)
})

test('the import reader sees static, re-exported and dynamic imports', () => {
  const file = join(src, 'features/flags/x.ts')
  // Built in pieces so that test/unit-isolation.unit.test.ts, which reads this file's imports, does not take it for one.
  const dynamicImport = ['const c = await import', "('../tags/c.ts')"].join('')
  const text = `import { a } from '../../db/a.ts'\nexport { b } from './b.ts'\n${dynamicImport}\nimport type { D } from "../../http/d.ts"`
  assert.deepEqual(
    importsOf(file, text).map((path) => relative(src, path)),
    ['db/a.ts', 'features/flags/b.ts', 'features/tags/c.ts', 'http/d.ts'],
  )
  assert.equal(layerOf(join(src, 'features/flags/x.ts')), 'features/flags')
  assert.equal(layerOf(join(src, 'db/migrations/0001.ts')), 'db')
  assert.equal(layerOf(join(src, 'app.ts')), 'app.ts')
})
