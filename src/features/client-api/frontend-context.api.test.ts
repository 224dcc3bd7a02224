/**
 * The context the frontend API evaluates, through the real app on each database: the reference's
 * defaults for fields not sent, and REGEX constraints on hostile values — matched in linear time
 * (RE2), with the matching work of one request bounded (MAX_REGEX_WORK).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import { compileRegex, MAX_REGEX_WORK } from '../evaluation/regex.ts'
import { createFlag } from '../../../test/helpers/flags.ts'
import { addStrategy, toggle } from '../../../test/helpers/strategies.ts'
import { FRONTEND, frontendToken, queryOf, togglesOf } from '../../../test/helpers/frontend.ts'

onEachDatabase('frontend API context', (database) => {
  test('fields not sent take the reference\'s defaults: appName "frontend-api", environment "default"; an empty field counts as not sent', async (t) => {
    const pennon = await useTestApp(t, database)
    const on = async (name: string, constraints: unknown[]) => {
      await createFlag(pennon, name)
      await addStrategy(pennon, name, 'development', { name: 'default', constraints })
      assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    }
    await on('default-app', [{ contextName: 'appName', operator: 'IN', values: ['frontend-api'] }])
    await on('default-environment', [{ contextName: 'environment', operator: 'IN', values: ['default'] }])
    await on('with-session', [{ contextName: 'sessionId', operator: 'STR_STARTS_WITH', values: ['s-'] }])
    const token = await frontendToken(pennon)
    const names = async (context: Record<string, string>) =>
      togglesOf(await call(pennon, 'GET', `${FRONTEND}${queryOf(context)}`, undefined, { token })).map((toggle) => toggle.name)
    const posted = async (context: Record<string, string>) =>
      togglesOf(await call(pennon, 'POST', FRONTEND, { context }, { token })).map((toggle) => toggle.name)

    assert.deepEqual(await names({}), ['default-app', 'default-environment'])
    assert.deepEqual(await posted({}), ['default-app', 'default-environment'])
    assert.deepEqual(await names({ appName: '', environment: '' }), ['default-app', 'default-environment'])
    assert.deepEqual(await names({ appName: 'web', environment: 'production' }), [])
    assert.deepEqual(await posted({ appName: 'web', sessionId: 's-1' }), ['default-environment', 'with-session'])
  })

  test('REGEX on hostile values: catastrophic patterns answer at once; a request whose REGEX work is over the limit is a 400', async (t) => {
    const pennon = await useTestApp(t, database)
    const regexFlag = async (name: string, value: string) => {
      await createFlag(pennon, name)
      await addStrategy(pennon, name, 'development', { name: 'default', constraints: [{ contextName: 'email', operator: 'REGEX', value }] })
      assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    }
    await regexFlag('nested', '(a+)+$')
    await regexFlag('alternation', '^(a|aa)+$')
    const token = await frontendToken(pennon)
    const names = async (email: string) =>
      togglesOf(await call(pennon, 'POST', FRONTEND, { context: { properties: { email } } }, { token })).map((toggle) => toggle.name)

    // A backtracking engine takes hours on the first (20 s with 30 characters); RE2 answers at once.
    assert.deepEqual(await names(`${'a'.repeat(9_999)}!`), [])
    assert.deepEqual(await names('a'.repeat(10_000)), ['alternation', 'nested'])

    // A large program on a long value: 10,000 characters times its program size is over the limit.
    const large = '[a-z]{1,1000}!'
    await regexFlag('large', large)
    const work =
      10_000 *
      (compileRegex(large, false)!.programSize() +
        compileRegex('(a+)+$', false)!.programSize() +
        compileRegex('^(a|aa)+$', false)!.programSize())
    assert.ok(work > MAX_REGEX_WORK)
    const refused = await call(pennon, 'GET', `${FRONTEND}${queryOf({}, { email: 'a'.repeat(10_000) })}`, undefined, { token })
    assert.equal(refused.status, 400)
    assert.equal(refused.headers['content-type'], 'application/json; charset=utf-8')
    const message =
      `The context's values are too long for this instance's REGEX constraints: matching them would cost ${work} units of work ` +
      `(each value's length times the program size of the patterns on its field), more than the limit of ${MAX_REGEX_WORK} per request. Send shorter values.`
    assert.deepEqual(withoutId(refused.body), errorOf('ValidationError', message))
    // Shorter values of the same request are answered.
    assert.deepEqual(await names('a'.repeat(400)), ['alternation', 'nested'])
  })
})
