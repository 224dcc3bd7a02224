import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../../http/errors.ts'
import {
  checkDependency,
  checkNoOrphans,
  checkNotSelf,
  checkSameProject,
  dependencyAddedData,
  dependencyToStore,
  nameList,
  type DependencyCandidate,
  type FlagState,
} from './dependency-rules.ts'

const flag = (name: string, project = 'default', archived = false): FlagState => ({ name, project, archived })

/** Runs `fn` and returns the API error it threw as [status, name, message], or 'ok'. */
function outcome(fn: () => void): 'ok' | [number, string, string] {
  try {
    fn()
    return 'ok'
  } catch (error) {
    assert.ok(error instanceof AppError)
    return [error.status, error.errorName, error.message]
  }
}

const candidate = (overrides: Partial<DependencyCandidate> = {}): DependencyCandidate => ({
  project: 'default',
  childName: 'c',
  parentName: 'p',
  child: flag('c'),
  parent: flag('p'),
  childChildren: [],
  parentParent: undefined,
  ...overrides,
})

test('nameList quotes names and cuts long lists', () => {
  assert.equal(nameList(['a']), '"a"')
  assert.equal(nameList(['a', 'b"c']), '"a", "b\\"c"')
  assert.equal(
    nameList(Array.from({ length: 12 }, (_, i) => `f${i}`)),
    '"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9" and 2 more',
  )
})

test('a flag cannot depend on itself (400 at /body/feature); names are case-sensitive', () => {
  assert.deepEqual(
    outcome(() => checkNotSelf('x', 'x')),
    [400, 'ValidationError', 'The `/body/feature` property names the flag itself ("x"): a flag cannot depend on itself.'],
  )
  try {
    checkNotSelf('x', 'x')
  } catch (error) {
    assert.deepEqual((error as AppError).details?.[0]?.path, '/body/feature')
  }
  assert.equal(
    outcome(() => checkNotSelf('x', 'X')),
    'ok',
  )
})

test('checkDependency: both flags active in the project, child first', () => {
  assert.equal(
    outcome(() => checkDependency(candidate())),
    'ok',
  )
  const missingChild: [number, string, string] = [404, 'NotFoundError', `There's no active flag named "c" in project "default".`]
  const missingParent: [number, string, string] = [
    404,
    'NotFoundError',
    `There's no active flag named "p" in project "default" to depend on.`,
  ]
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ child: undefined }))),
    missingChild,
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ child: flag('c', 'other') }))),
    missingChild,
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ child: flag('c', 'default', true) }))),
    missingChild,
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ child: undefined, parent: undefined }))),
    missingChild,
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ parent: undefined }))),
    missingParent,
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ parent: flag('p', 'other') }))),
    missingParent,
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ parent: flag('p', 'default', true) }))),
    missingParent,
  )
})

test('checkDependency: one level deep, and existence is checked before depth', () => {
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ childChildren: ['k'] }))),
    [409, 'InvalidOperationError', 'Flag "c" cannot depend on another flag: "k" depends on it, and dependencies are only one level deep.'],
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ childChildren: ['k1', 'k2'] }))),
    [
      409,
      'InvalidOperationError',
      'Flag "c" cannot depend on another flag: "k1", "k2" depend on it, and dependencies are only one level deep.',
    ],
  )
  assert.deepEqual(
    outcome(() => checkDependency(candidate({ parentParent: 'g' }))),
    [409, 'InvalidOperationError', 'Flag "p" cannot be a parent: it depends on "g" itself, and dependencies are only one level deep.'],
  )
  // Both broken: the child's side is reported first; an unknown parent before either.
  assert.equal(outcome(() => checkDependency(candidate({ childChildren: ['k'], parentParent: 'g' })))[2]?.startsWith('Flag "c"'), true)
  assert.equal(outcome(() => checkDependency(candidate({ childChildren: ['k'], parent: undefined })))[0], 404)
})

test('a disabled dependency stores no variants; the event echoes what was sent', () => {
  assert.deepEqual(dependencyToStore(undefined, undefined), { enabled: true, variants: [] })
  assert.deepEqual(dependencyToStore(true, ['a']), { enabled: true, variants: ['a'] })
  assert.deepEqual(dependencyToStore(false, ['a']), { enabled: false, variants: [] })
  assert.deepEqual(dependencyAddedData('p', true, undefined), { feature: 'p', enabled: true })
  assert.deepEqual(dependencyAddedData('p', false, ['a']), { feature: 'p', enabled: false, variants: ['a'] })
  assert.deepEqual(dependencyAddedData('p', true, []), { feature: 'p', enabled: true, variants: [] })
})

test('batch operations refuse flags of other projects, naming them and their projects', () => {
  assert.equal(
    outcome(() => checkSameProject('archive', 'default', [flag('a'), flag('b', 'default', true)])),
    'ok',
  )
  assert.equal(
    outcome(() => checkSameProject('archive', 'default', [])),
    'ok',
  )
  assert.deepEqual(
    outcome(() => checkSameProject('revive', 'default', [flag('a'), flag('x', 'other')])),
    [409, 'InvalidOperationError', 'Cannot revive flag "x": it belongs to project "other", not to project "default". Nothing was changed.'],
  )
  assert.deepEqual(
    outcome(() => checkSameProject('delete', 'default', [flag('x', 'z'), flag('y', 'b'), flag('w', 'z')])),
    [
      409,
      'InvalidOperationError',
      'Cannot delete flags "x", "y", "w": they belong to projects "b", "z", not to project "default". Nothing was changed.',
    ],
  )
})

test('archiving parents whose children stay behind is refused', () => {
  assert.equal(
    outcome(() => checkNoOrphans([])),
    'ok',
  )
  assert.deepEqual(
    outcome(() => checkNoOrphans(['p'])),
    [
      409,
      'InvalidOperationError',
      'Cannot archive flag "p": other flags depend on it. Archive those flags in the same batch, or remove their dependencies first. Nothing was changed.',
    ],
  )
  assert.match(
    (outcome(() => checkNoOrphans(['p', 'q'])) as string[])[2] ?? '',
    /^Cannot archive flags "p", "q": other flags depend on them\./,
  )
})
