import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from './errors.ts'
import { applyPatch, type PatchOperation } from './json-patch.ts'

function failure(document: unknown, operations: PatchOperation[]): { path: string | undefined; message: string } {
  try {
    applyPatch(document, operations)
  } catch (error) {
    assert.ok(error instanceof AppError && error.status === 400)
    return { path: error.details?.[0]?.path, message: error.message }
  }
  throw new Error('the patch applied')
}

test('add, remove, replace, move, copy and test follow RFC 6902, on a copy', () => {
  const document = { a: 1, list: [1, 2, 3], nested: { x: 'y' } }
  const result = applyPatch(document, [
    { op: 'add', path: '/b', value: { c: true } },
    { op: 'add', path: '/list/-', value: 4 },
    { op: 'add', path: '/list/0', value: 0 },
    { op: 'remove', path: '/list/1' },
    { op: 'replace', path: '/a', value: 'one' },
    { op: 'move', from: '/nested/x', path: '/moved' },
    { op: 'copy', from: '/b', path: '/nested/copy' },
    { op: 'test', path: '/moved', value: 'y' },
    { op: 'add', path: '/with~1slash~0tilde', value: 1 },
  ])
  assert.deepEqual(result, {
    a: 'one',
    list: [0, 2, 3, 4],
    nested: { copy: { c: true } },
    b: { c: true },
    moved: 'y',
    'with/slash~tilde': 1,
  })
  assert.deepEqual(document, { a: 1, list: [1, 2, 3], nested: { x: 'y' } }, 'the original is untouched')
  assert.deepEqual(applyPatch([1], [{ op: 'replace', path: '', value: [] }]), [])
})

test('an operation that cannot apply is a 400 naming it, and nothing applies', () => {
  assert.deepEqual(
    failure({ a: 1 }, [
      { op: 'add', path: '/b', value: 1 },
      { op: 'replace', path: '/nope', value: 1 },
    ]),
    {
      path: '/body/1/path',
      message: 'Patch operation 1 ("replace") cannot apply: the `/body/1/path` property names "nope", which does not exist.',
    },
  )
  assert.deepEqual(failure([1, 2], [{ op: 'remove', path: '/5' }]), {
    path: '/body/0/path',
    message:
      'Patch operation 0 ("remove") cannot apply: the `/body/0/path` property names array index "5", which does not exist (the array has 2 items).',
  })
  assert.deepEqual(failure({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), {
    path: '/body/0/value',
    message: 'Patch operation 0 ("test") cannot apply: the `/body/0/value` property does not equal the value at "/a": the test failed.',
  })
  assert.equal(failure({}, [{ op: 'add', path: 'a', value: 1 }]).path, '/body/0/path')
  assert.equal(failure({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]).path, '/body/0/path')
  assert.equal(failure({}, [{ op: 'add', path: '/a' }]).path, '/body/0/value')
  assert.equal(failure({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]).path, '/body/0/from')
  assert.equal(failure({ a: 1 }, [{ op: 'copy', path: '/b' }]).path, '/body/0/from')
  assert.equal(failure({ a: 1 }, [{ op: 'add', path: '/a/b', value: 1 }]).path, '/body/0/path')
  assert.equal(failure([1], [{ op: 'add', path: '/01', value: 1 }]).path, '/body/0/path')
  assert.equal(({} as Record<string, unknown>).polluted, undefined)
})
