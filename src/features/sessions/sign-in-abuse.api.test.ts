/** Sign-in, links and password changes tried as an attacker would (docs/security.md, "Failed sign-ins"). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, useTestApp, useTwoInstances, withoutId } from '../../../test/test-app.ts'
import { asBrowser, createUser, PASSWORD, signIn } from '../../../test/people.ts'

const from = (address: string, headers: Record<string, string> = {}) => ({
  token: null,
  headers: { 'x-forwarded-for': address, ...headers },
})
const MADE_UP_LINK = 'f'.repeat(64)
const throttledBody = (seconds: string | string[] | undefined) =>
  errorOf('TooManyRequestsError', `Too many failed sign-ins from this address: try again in ${seconds} seconds.`)
const AT_ONCE = errorOf('TooManyRequestsError', 'Too many sign-ins and password changes from this address at once: try again in a second.')
function statusCounts(responses: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

onEachDatabase('sign-in abuse', (database) => {
  test('45 bogus resets kept in flight from one address: the address is refused, and a real sign-in from another address is 200', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true' } })
    await createUser(pennon, 'ed@example.com', 2)
    const bogus = Array.from({ length: 45 }, (_, i) =>
      call(pennon, 'POST', '/auth/reset/password', { token: MADE_UP_LINK, password: `Made-Up-Passw0rd-${i}` }, from('10.9.9.9')),
    )
    const real = call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: PASSWORD }, from('10.0.0.2'))
    const [answers, signedIn] = await Promise.all([Promise.all(bogus), real])
    assert.equal(signedIn.status, 200, signedIn.text)
    // The link is looked up before anything is hashed: 20 (4 × LOGIN_FAILURES_PER_ACCOUNT) are told "unknown link", the rest wait.
    assert.deepEqual(statusCounts(answers), { 401: 20, 429: 25 })
    const refused = answers.find((answer) => answer.status === 429)!
    assert.deepEqual(withoutId(refused.body), throttledBody(refused.headers['retry-after']))
    assert.equal(withoutId(answers.find((answer) => answer.status === 401)!.body).name, 'AuthenticationRequired')
    // Past the limit the address waits for everything under /auth, before anything is read.
    const validate = await call(pennon, 'GET', `/auth/reset/validate?token=${MADE_UP_LINK}`, undefined, from('10.9.9.9'))
    assert.equal(validate.status, 429)
    assert.ok(Number(validate.headers['retry-after']) > 800 && Number(validate.headers['retry-after']) <= 900)
    assert.equal((await call(pennon, 'POST', '/auth/reset/validate-password', { password: PASSWORD }, from('10.9.9.9'))).status, 429)
  })

  test('40 sign-ins kept in flight from one address hold at most 4 places in the hashing queue; others sign in meanwhile', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true', LOGIN_FAILURES_PER_ACCOUNT: '100' } })
    await createUser(pennon, 'ed@example.com', 2)
    await createUser(pennon, 'vi@example.com', 3)
    const flood = Array.from({ length: 40 }, (_, i) =>
      call(pennon, 'POST', '/auth/simple/login', { username: `u${i}@example.com`, password: 'Wrong-Passw0rd-1' }, from('10.9.9.9')),
    )
    const others = ['ed@example.com', 'vi@example.com'].map((username, i) =>
      call(pennon, 'POST', '/auth/simple/login', { username, password: PASSWORD }, from(`10.0.0.${i + 2}`)),
    )
    const [answers, signedIn] = await Promise.all([Promise.all(flood), Promise.all(others)])
    assert.deepEqual(
      signedIn.map((answer) => answer.status),
      [200, 200],
    )
    assert.deepEqual(statusCounts(answers), { 401: 4, 429: 36 })
    const refused = answers.find((answer) => answer.status === 429)!
    assert.deepEqual(withoutId(refused.body), AT_ONCE)
    assert.equal(refused.headers['retry-after'], '1')
  })

  test('31 tries at once for one account from one address: at most 5 verdicts, 429 for the rest, the right password included', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true' } })
    await createUser(pennon, 'ed@example.com', 2)
    const tries = Array.from({ length: 31 }, (_, i) =>
      call(
        pennon,
        'POST',
        '/auth/simple/login',
        { username: 'ed@example.com', password: i === 30 ? PASSWORD : `Wrong-Passw0rd-${i}` },
        from('10.0.0.1'),
      ),
    )
    const answers = await Promise.all(tries)
    const verdicts = answers.filter((answer) => answer.status === 401 || answer.status === 200)
    assert.ok(verdicts.length <= 5, `${verdicts.length} verdicts: ${JSON.stringify(statusCounts(answers))}`)
    assert.equal(answers.filter((answer) => answer.status === 429).length, 31 - verdicts.length)
    assert.equal(answers[30]!.status, 429, 'the right password, sent after the limit was reached, gets no verdict')
    // The real user elsewhere is not locked out.
    await signIn(pennon, 'ed@example.com', PASSWORD, { 'x-forwarded-for': '10.0.0.2' })
  })

  test('changing your own password: guesses of the current one are counted as failed sign-ins are', async (t) => {
    const pennon = await useTestApp(t, database, { env: { TRUST_PROXY: 'true', LOGIN_FAILURES_PER_ACCOUNT: '3' } })
    await createUser(pennon, 'ed@example.com', 2)
    const cookie = await signIn(pennon, 'ed@example.com', PASSWORD, { 'x-forwarded-for': '10.0.0.1' })
    const change = (oldPassword: string) =>
      call(
        pennon,
        'POST',
        '/api/admin/user/change-password',
        { password: 'New-Passw0rd-2026', oldPassword },
        { token: null, headers: { ...asBrowser(cookie).headers, 'x-forwarded-for': '10.0.0.1' } },
      )
    const guesses = await Promise.all(Array.from({ length: 10 }, (_, i) => change(`Guess-Passw0rd-${i}`)))
    assert.deepEqual(statusCounts(guesses), { 401: 3, 429: 7 })
    const refused = guesses.find((answer) => answer.status === 429)!
    assert.deepEqual(withoutId(refused.body), throttledBody(refused.headers['retry-after']))
    assert.equal((await change(PASSWORD)).status, 429, 'the right one too, from this address, until the window ends')
    assert.equal(
      (await call(pennon, 'POST', '/auth/simple/login', { username: 'ed@example.com', password: 'New-Passw0rd-2026' }, from('10.0.0.2')))
        .status,
      401,
      'nothing was changed',
    )
  })
})

onEachDatabase('sign-in abuse, two instances', (database) => {
  test('the counts are per instance: 31 tries spread over two instances get at most 5 verdicts from each', async (t) => {
    const { first, second } = await useTwoInstances(t, database, { TRUST_PROXY: 'true' })
    await createUser(first, 'ed@example.com', 2)
    const answers = await Promise.all(
      Array.from({ length: 31 }, (_, i) =>
        call(
          i % 2 === 0 ? first : second,
          'POST',
          '/auth/simple/login',
          { username: 'ed@example.com', password: `Wrong-Passw0rd-${i}` },
          from('10.0.0.1'),
        ),
      ),
    )
    const verdicts = answers.filter((answer) => answer.status === 401).length
    assert.ok(verdicts <= 10, `${verdicts} verdicts`)
    assert.equal(answers.filter((answer) => answer.status === 429).length, 31 - verdicts)
  })
})
