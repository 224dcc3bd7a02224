/**
 * GET /personal-dashboard and /personal-dashboard/:projectId for people signed in (personal access
 * tokens here): the flags they created, `default` and the projects they created, the owners, the
 * admins; a project's latest events, owners, onboarding, health and the caller's roles.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { allEvents, call, errorOf, onEachDatabase, useTestApp, withoutId, type TestApp } from '../../../test/test-app.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'
import { imageUrlOf, summarize } from './event-summary.ts'

const P = '/api/admin/projects'
const D = '/api/admin/personal-dashboard'
const BASE = 'https://flags.example.com'

const gravatar = (ident: string) => `https://gravatar.com/avatar/${createHash('sha256').update(ident).digest('hex')}?s=42&d=retro&r=g`

async function person(pennon: TestApp, email: string, rootRole: 1 | 2 | 3): Promise<{ id: number; token: string }> {
  const id = await createUser(pennon, email, rootRole)
  const body = { description: 'test', expiresAt: new Date(Date.now() + 86_400_000).toISOString() }
  const token = await call(pennon, 'POST', '/api/admin/user/tokens', body, asBrowser(await signIn(pennon, email)))
  assert.equal(token.status, 201, token.text)
  return { id, token: token.body.secret }
}

async function as(
  pennon: TestApp,
  token: string | undefined,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
  status = 200,
) {
  const response = await call(pennon, method, url, body, token === undefined ? {} : { token })
  assert.equal(response.status, status, `${method} ${url}: ${response.text}`)
  return response.body
}

test('summaries: the reference sentences, links under the public address, "triggered" for the rest', () => {
  const by = { createdBy: 'ada@example.com', project: 'lab' }
  assert.equal(
    summarize({ ...by, type: 'feature-created', featureName: 'a1' }, BASE),
    `**ada@example.com** created **[a1](${BASE}/projects/lab/features/a1)** in project **[lab](${BASE}/projects/lab)**`,
  )
  assert.equal(
    summarize({ ...by, type: 'feature-environment-enabled', featureName: 'a1', environment: 'production' }, ''),
    '**ada@example.com** enabled **[a1](/projects/lab/features/a1)** for the **production** environment in project **[lab](/projects/lab)**',
  )
  assert.equal(
    summarize({ ...by, type: 'feature-strategy-add', featureName: 'a1', environment: 'production', data: { name: 'flexibleRollout' } }, ''),
    '**ada@example.com** added strategy **flexibleRollout** to **[a1](/projects/lab/features/a1)** for the **production** environment in project **[lab](/projects/lab)**',
  )
  assert.equal(
    summarize({ ...by, type: 'feature-archived', featureName: 'a1' }, ''),
    '**ada@example.com** archived **a1** in project **[lab](/projects/lab)**',
  )
  assert.equal(summarize({ ...by, type: 'project-environment-added' }, ''), '**ada@example.com** triggered **project-environment-added**')
  assert.equal(imageUrlOf({ email: ' Ada@Example.com ' }), gravatar('ada@example.com'))
  assert.equal(imageUrlOf({ username: 'ada' }), gravatar('ada'))
})

onEachDatabase('the personal dashboard', (database) => {
  test("a person's flags and projects, the projects' owners and the admins", async (t) => {
    const pennon = await useTestApp(t, database)
    const ada = await person(pennon, 'ada@example.com', 1)
    const bob = await person(pennon, 'bob@example.com', 2)
    // Nothing made yet: `default` alone, no owners.
    const defaultProject = { id: 'default', name: 'Default', health: 100, technicalDebt: 0, memberCount: 0, featureCount: 0 }
    const adaAdmin = { id: ada.id, email: 'ada@example.com', imageUrl: gravatar('ada@example.com') }
    assert.deepEqual(await as(pennon, bob.token, 'GET', D), {
      projects: [defaultProject],
      flags: [],
      projectOwners: [],
      admins: [adaAdmin],
    })

    await as(pennon, ada.token, 'POST', P, { id: 'lab', name: 'Lab' }, 201)
    await as(pennon, undefined, 'POST', P, { id: 'shop', name: 'Shop' }, 201)
    await as(pennon, ada.token, 'POST', `${P}/lab/features`, { name: 'a1' }, 201)
    await as(pennon, ada.token, 'POST', `${P}/default/features`, { name: 'a2', type: 'kill-switch' }, 201)
    await as(pennon, ada.token, 'POST', `${P}/default/features`, { name: 'a3' }, 201)
    await as(pennon, ada.token, 'DELETE', `${P}/default/features/a3`, undefined, 202)
    await as(pennon, bob.token, 'POST', `${P}/default/features`, { name: 'b1' }, 201)
    await as(pennon, undefined, 'POST', `${P}/shop/features`, { name: 'x1' }, 201)
    // a1 made a day earlier: newest first puts it last.
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString()
    await pennon.database.db.updateTable('features').set({ created_at: dayAgo }).where('name', '=', 'a1').execute()
    await as(pennon, undefined, 'POST', `${P}/default/stale`, { features: ['b1'], stale: true }, 202)

    const owner = { ownerType: 'user', name: 'ada@example.com', email: 'ada@example.com', imageUrl: gravatar('ada@example.com') }
    const withFlags = { ...defaultProject, health: 50, technicalDebt: 50, featureCount: 2 }
    assert.deepEqual(await as(pennon, ada.token, 'GET', D), {
      projects: [withFlags, { id: 'lab', name: 'Lab', health: 100, technicalDebt: 0, memberCount: 1, featureCount: 1 }],
      flags: [
        { name: 'a2', project: 'default', type: 'kill-switch' },
        { name: 'a1', project: 'lab', type: 'release' },
      ],
      projectOwners: [owner],
      admins: [adaAdmin],
    })
    assert.deepEqual(await as(pennon, bob.token, 'GET', D), {
      projects: [withFlags],
      flags: [{ name: 'b1', project: 'default', type: 'release' }],
      projectOwners: [owner],
      admins: [adaAdmin],
    })
  })

  test("a project's details: latest events, owners, roles, onboarding and health", async (t) => {
    const pennon = await useTestApp(t, database, { env: { PUBLIC_URL: BASE } })
    const ada = await person(pennon, 'ada@example.com', 1)
    const bob = await person(pennon, 'bob@example.com', 2)
    await as(pennon, ada.token, 'POST', P, { id: 'lab', name: 'Lab' }, 201)
    const fresh = await as(pennon, bob.token, 'GET', `${D}/lab`)
    const owner = { ownerType: 'user', name: 'ada@example.com', email: 'ada@example.com', imageUrl: gravatar('ada@example.com') }
    const [created] = (await allEvents(pennon)).filter((event) => event.project === 'lab')
    const insights = {
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: 0,
      activeFlags: 0,
      staleFlags: 0,
      potentiallyStaleFlags: 0,
      health: 100,
      technicalDebt: 0,
    }
    assert.deepEqual(fresh, {
      latestEvents: [
        {
          id: created.id,
          summary: `**ada@example.com** created project **[lab](${BASE}/projects/lab)**`,
          createdBy: 'ada@example.com',
          createdByImageUrl: gravatar('ada@example.com'),
          createdAt: created.createdAt,
        },
      ],
      onboardingStatus: { status: 'onboarding-started' },
      owners: [owner],
      roles: [],
      insights,
    })

    // More than ten events: the ten latest, newest first.
    for (const name of ['f1', 'f2', 'f3', 'f4']) {
      await as(pennon, ada.token, 'POST', `${P}/lab/features`, { name }, 201)
      await as(pennon, ada.token, 'POST', `${P}/lab/features/${name}/environments/development/on`)
    }
    await as(pennon, ada.token, 'POST', `${P}/lab/stale`, { features: ['f4'], stale: true }, 202)
    const details = await as(pennon, ada.token, 'GET', `${D}/lab`)
    const latest = (await allEvents(pennon))
      .filter((event) => event.project === 'lab')
      .reverse()
      .slice(0, 10)
    assert.deepEqual(
      details.latestEvents.map((event: { id: number; createdAt: string }) => [event.id, event.createdAt]),
      latest.map((event) => [event.id, event.createdAt]),
    )
    assert.equal(
      details.latestEvents[0].summary,
      `**ada@example.com** marked **[f4](${BASE}/projects/lab/features/f4)** as stale in project **[lab](${BASE}/projects/lab)**`,
    )
    assert.deepEqual(details.roles, [{ name: 'Owner', id: 4, type: 'project' }])
    assert.deepEqual(details.owners, [owner])
    assert.deepEqual(details.onboardingStatus, { status: 'first-flag-created', feature: 'f1' })
    assert.deepEqual(details.insights, { ...insights, totalFlags: 4, activeFlags: 3, staleFlags: 1, health: 75, technicalDebt: 25 })

    // A project made by an API token has the system as owner.
    assert.deepEqual((await as(pennon, bob.token, 'GET', `${D}/default`)).owners, [{ ownerType: 'system' }])
  })

  test('an unknown project is a 404; a credential that is no person is a 404; none is a 401', async (t) => {
    const pennon = await useTestApp(t, database)
    const bob = await person(pennon, 'bob@example.com', 3)
    const missing = await call(pennon, 'GET', `${D}/nope`, undefined, { token: bob.token })
    assert.equal(missing.status, 404)
    assert.deepEqual(withoutId(missing.body), errorOf('NotFoundError', 'No project with id "nope" exists.'))
    for (const url of [D, `${D}/default`]) {
      const token = await call(pennon, 'GET', url)
      assert.equal(token.status, 404)
      assert.deepEqual(
        withoutId(token.body),
        errorOf('NotFoundError', 'This is for signed-in users and their personal access tokens: the credential used is not a person.'),
      )
      assert.equal((await call(pennon, 'GET', url, undefined, { token: null })).status, 401)
      assert.equal((await call(pennon, 'GET', url, undefined, { token: bob.token })).status, 200)
    }
  })
})
