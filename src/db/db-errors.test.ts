import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import { test } from 'node:test'
import { isUniqueViolation, uniqueConstraintOf } from './db-errors.ts'

function sqliteError(sql: string): unknown {
  const db = new DatabaseSync(':memory:')
  db.exec('create table users (id integer primary key, username text unique, email text unique, a text, b text, unique (a, b))')
  db.exec("insert into users values (1, 'ann', 'ann@example.com', 'x', 'y')")
  try {
    db.exec(sql)
  } catch (error) {
    return error
  } finally {
    db.close()
  }
  assert.fail('no error')
}

test("node:sqlite: the constraint's PostgreSQL default name, from the columns the driver names", () => {
  assert.equal(uniqueConstraintOf(sqliteError("insert into users values (2, 'bob', 'ann@example.com', null, null)")), 'users_email_key')
  assert.equal(uniqueConstraintOf(sqliteError("insert into users values (2, 'ann', 'bob@example.com', null, null)")), 'users_username_key')
  assert.equal(uniqueConstraintOf(sqliteError("insert into users values (2, 'bob', 'bob@example.com', 'x', 'y')")), 'users_a_b_key')
  assert.equal(uniqueConstraintOf(sqliteError("insert into users values (1, 'bob', 'bob@example.com', null, null)")), 'users_pkey')
  assert.equal(uniqueConstraintOf(sqliteError('insert into nowhere values (1)')), undefined)
})

test('pg: the constraint the error names; undefined for anything but a unique violation', () => {
  const pgError = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
    code: '23505',
    constraint: 'users_email_key',
  })
  assert.equal(isUniqueViolation(pgError), true)
  assert.equal(uniqueConstraintOf(pgError), 'users_email_key')
  assert.equal(uniqueConstraintOf(Object.assign(new Error('fk'), { code: '23503', constraint: 'users_fkey' })), undefined)
  assert.equal(uniqueConstraintOf(new Error('UNIQUE constraint failed: users.email')), undefined)
})
