import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ADMIN_ONLY_PERMISSIONS, EDITOR_PERMISSIONS, PERMISSIONS, ROOT_ROLES, rolePermissions } from './permissions.ts'

test('the Editor holds every permission but the admin-only ones', () => {
  assert.deepEqual(
    new Set(rolePermissions(ROOT_ROLES.Editor)),
    new Set(PERMISSIONS.filter((permission) => !ADMIN_ONLY_PERMISSIONS.includes(permission))),
  )
  for (const permission of [
    'ADMIN',
    'UPDATE_PROJECT_SEGMENT',
    'UPDATE_PROJECT_CONTEXT',
    'SKIP_CHANGE_REQUEST',
    'PROJECT_CHANGE_REQUEST_WRITE',
  ] as const) {
    assert.equal(rolePermissions(ROOT_ROLES.Editor).has(permission), false, permission)
  }
})

test("the Editor's permissions, as the reference's Editor has them: a new permission is the Editor's unless made admin-only", () => {
  assert.deepEqual(EDITOR_PERMISSIONS, [
    'CREATE_FEATURE',
    'UPDATE_FEATURE',
    'DELETE_FEATURE',
    'UPDATE_FEATURE_DEPENDENCY',
    'UPDATE_FEATURE_ENVIRONMENT',
    'CREATE_FEATURE_STRATEGY',
    'UPDATE_FEATURE_STRATEGY',
    'DELETE_FEATURE_STRATEGY',
    'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
    'CREATE_STRATEGY',
    'UPDATE_STRATEGY',
    'DELETE_STRATEGY',
    'CREATE_SEGMENT',
    'UPDATE_SEGMENT',
    'DELETE_SEGMENT',
    'CREATE_PROJECT',
    'UPDATE_PROJECT',
    'DELETE_PROJECT',
    'CREATE_CONTEXT_FIELD',
    'UPDATE_CONTEXT_FIELD',
    'DELETE_CONTEXT_FIELD',
    'CREATE_TAG_TYPE',
    'UPDATE_TAG_TYPE',
    'DELETE_TAG_TYPE',
    'CREATE_ADDON',
    'UPDATE_ADDON',
    'DELETE_ADDON',
    'READ_PROJECT_API_TOKEN',
    'CREATE_PROJECT_API_TOKEN',
    'DELETE_PROJECT_API_TOKEN',
    'APPROVE_CHANGE_REQUEST',
    'APPLY_CHANGE_REQUEST',
    'UPDATE_APPLICATION',
  ])
})

test('an Admin holds ADMIN (which grants everything); a Viewer, nothing', () => {
  assert.deepEqual([...rolePermissions(ROOT_ROLES.Admin)], ['ADMIN'])
  assert.deepEqual([...rolePermissions(ROOT_ROLES.Viewer)], [])
})
