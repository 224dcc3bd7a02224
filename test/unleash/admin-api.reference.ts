/**
 * One scenario driven through the admin API of a REAL Unleash 8.2 and of Pennon (on SQLite, and on
 * PostgreSQL too with TEST_DATABASE_URL), with admin tokens, comparing every answer: its status and
 * its body, normalised (ids, secrets and timestamps removed, and each documented difference named
 * where it is removed). Not part of `npm test` (its name does not end in .test.ts): `npm run
 * test:reference` installs Unleash into .unleash-server/ and runs it.
 *
 * A step is one request: adding a comparison for another route is one entry of the steps
 * (admin-api-steps.ts, then admin-api-later-steps.ts).
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { call, createTestApp, DATABASES, type TestApp } from '../test-app.ts'
import { type RealUnleash, startUnleash } from './unleash-server.ts'
import { type Answer, compared, type Server, STEPS as FIRST_STEPS } from './admin-api-steps.ts'
import { LATER_STEPS } from './admin-api-later-steps.ts'

const STEPS = [...FIRST_STEPS, ...LATER_STEPS]

let unleash: RealUnleash
let reference: Answer[]

/** Unleash through its socket, ids it answered kept by the steps in `saved`. */
function unleashServer(real: RealUnleash): Server {
  return {
    name: 'unleash',
    saved: {},
    async send(method, path, body) {
      const response = await fetch(`${real.url}${path}`, {
        method,
        headers: { authorization: real.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      return { status: response.status, body: parse(text) }
    },
  }
}

function pennonServer(pennon: TestApp): Server {
  return {
    name: 'pennon',
    saved: {},
    async send(method, path, body) {
      const response = await call(pennon, method, path, body)
      return { status: response.status, body: parse(response.text) }
    },
  }
}

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text)
  } catch {
    return text
  }
}

/** Every step on one server, in order: what each answered, normalised. */
async function run(server: Server): Promise<Answer[]> {
  const answers: Answer[] = []
  for (const step of STEPS) answers.push(await compared(step, server))
  return answers
}

before(async () => {
  unleash = await startUnleash()
  reference = await run(unleashServer(unleash))
})
after(() => unleash?.stop())

for (const database of DATABASES) {
  test(`Pennon answers the admin API as Unleash 8.2 [${database.name}]`, async (t) => {
    const pennon = await createTestApp(database)
    t.after(() => pennon.close())
    const answers = await run(pennonServer(pennon))
    const differences = STEPS.flatMap((step, i) => {
      try {
        assert.deepEqual(answers[i], reference[i])
        return []
      } catch {
        return [`${step.name}\n  unleash: ${JSON.stringify(reference[i])}\n  pennon:  ${JSON.stringify(answers[i])}`]
      }
    })
    assert.equal(differences.length, 0, `${differences.length} of ${STEPS.length} steps differ:\n${differences.join('\n')}`)
  })
}
