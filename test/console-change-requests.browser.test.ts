/**
 * Change requests in a real browser (test/browser.ts): an Admin requires them in production from the
 * project's page; an Editor's switch there is refused and becomes a draft, which they send to review
 * (and may not approve themselves); another Editor approves; the author applies; a client token then
 * gets the flag on. CONSOLE_SCREENSHOTS=1 writes docs/console/change-request.png.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { heading, signIn, skip, startBrowserAndApp } from './browser.ts'
import { createFlag, projectPath } from './helpers/flags.ts'
import { asBrowser, createUser, PASSWORD, signIn as signInByApi } from './people.ts'
import { call, onEachDatabase, serviceAccountToken, type TestApp } from './test-app.ts'

async function clientFlag(pennon: TestApp, name: string): Promise<any> {
  const token = await call(pennon, 'POST', '/api/admin/api-tokens', {
    tokenName: `client-${Date.now()}`,
    type: 'client',
    environment: 'production',
    projects: ['*'],
  })
  assert.equal(token.status, 201, token.text)
  const features = await call(pennon, 'GET', '/api/client/features', undefined, { token: token.body.secret })
  assert.equal(features.status, 200, features.text)
  return features.body.features.find((feature: { name: string }) => feature.name === name)
}

onEachDatabase('console: change requests', (database) => {
  test('a switch in a protected environment goes through a draft, a review, an approval by another Editor and an apply', {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    const open = async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
      page.setDefaultTimeout(15_000)
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      return page
    }
    const signInAs = async (page: Page, email: string) => {
      await page.goto(`${base}/`)
      await page.getByLabel('Email or username').fill(email)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('#nav:not([hidden])').waitFor()
    }
    await createUser(pennon, 'author@example.com', 2)
    await createUser(pennon, 'reviewer@example.com', 2)
    await createFlag(pennon, 'checkout')
    const strategy = await call(pennon, 'POST', `${projectPath()}/features/checkout/environments/production/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' },
      constraints: [],
    })
    assert.equal(strategy.status, 200, strategy.text)

    await t.test('an Admin requires change requests in production from the project page', async () => {
      const admin = await open()
      await signIn(admin, base, pennon.adminToken)
      await admin.goto(`${base}/#/projects/default`)
      await heading(admin, 'Project default')
      const row = admin.locator('[data-change-request-settings] tr[data-environment="production"]')
      await row.getByLabel('Change requests in production').check()
      await row.getByLabel('Approvals needed in production').fill('1')
      await row.getByRole('button', { name: 'Save change requests of production' }).click()
      await admin.locator('[data-change-request-settings] tr[data-environment="production"][data-required="true"]').waitFor()
      const config = await call(pennon, 'GET', `${projectPath()}/change-requests/config`)
      assert.deepEqual(
        config.body.find((setting: { environment: string }) => setting.environment === 'production'),
        { environment: 'production', type: 'production', changeRequestEnabled: true, requiredApprovals: 1 },
      )
    })

    const author = await open()
    let id = 0
    await t.test('the Editor’s switch is refused, added to a draft, and sent to review', async () => {
      await signInAs(author, 'author@example.com')
      await author.goto(`${base}/#/projects/default/features/checkout`)
      await heading(author, 'checkout')
      await author.getByRole('switch', { name: 'checkout in production' }).click()
      const offer = author.locator('[data-change-request-offer="production"]')
      await offer.getByText('changes there need a change request').waitFor()
      await offer.getByRole('button', { name: 'Add to a change request' }).click()
      const draftLink = author.getByRole('link', { name: /Open change request #\d+/ })
      await draftLink.waitFor()
      id = Number((await draftLink.textContent())?.match(/#(\d+)/)?.[1])
      assert.ok(id > 0)
      // The flag shows its pending change, and is still off.
      await author.locator('[data-pending-change-requests="1"]').waitFor()
      assert.equal(await author.getByRole('switch', { name: 'checkout in production' }).getAttribute('aria-checked'), 'false')

      // A strategy's edit is refused the same way, and joins the same draft.
      await author.getByRole('button', { name: 'Edit strategy flexibleRollout in production' }).click()
      await author.getByRole('dialog').getByLabel('Rollout (%)').fill('100')
      await author.getByRole('dialog').getByRole('button', { name: 'Save strategy' }).click()
      await author.locator('[data-change-request-offer="production"]').getByText('change strategy flexibleRollout').waitFor()
      await author.getByRole('button', { name: 'Add to a change request' }).click()
      await author.getByRole('link', { name: `Open change request #${id}` }).waitFor()
      // Variants too; that change is then discarded from the draft.
      await author.getByRole('button', { name: 'Edit variants in production' }).click()
      await author.getByRole('dialog').getByRole('button', { name: 'Add variant' }).click()
      await author.getByRole('dialog').getByLabel('Name', { exact: true }).fill('blue')
      await author.getByRole('dialog').getByRole('button', { name: 'Save variants' }).click()
      await author.locator('[data-change-request-offer="production"]').getByText('set 1 variant(s)').waitFor()
      await author.getByRole('button', { name: 'Add to a change request' }).click()
      await author.getByRole('link', { name: `Open change request #${id}` }).click()

      await heading(author, `Change request #${id}`)
      const changes = author.locator('[data-feature="checkout"] .change')
      await changes.nth(2).getByText('+ becomes variant blue: variable weight').waitFor()
      await changes.nth(2).getByRole('button', { name: 'Discard' }).click()
      await author.getByText('Change discarded.').waitFor({ state: 'attached' })
      await changes.nth(2).waitFor({ state: 'detached' })
      await changes.nth(1).waitFor()
      assert.deepEqual(await changes.locator('strong').allTextContents(), ['switch on', 'change strategy flexibleRollout'])
      assert.deepEqual(await changes.nth(0).locator('.change-diff li').allTextContents(), ['- was off', '+ becomes on'])
      assert.deepEqual(await changes.nth(1).locator('.change-diff li').allTextContents(), ['- was rollout: 50', '+ becomes rollout: 100'])
      await author.getByRole('button', { name: 'Send to review' }).click()
      await author.locator(`[data-state-of="${id}"] [data-state="In review"]`).waitFor()
      // Approving one's own request: the server's refusal, shown.
      await author.getByRole('button', { name: 'Approve' }).click()
      await author.getByRole('alert').getByText(`The author of change request ${id} cannot approve it.`).waitFor()
      // The list shows it with its state, environment and author.
      await author.goto(`${base}/#/projects/default/change-requests`)
      await heading(author, 'Change requests of default')
      const row = author.locator(`tr[data-change-request="${id}"]`)
      assert.match((await row.textContent()) ?? '', /In review.*production.*author@example\.com/)
      // And the project's flag list marks the flag.
      await author.goto(`${base}/#/projects/default`)
      await heading(author, 'Project default')
      await author.locator('table.flags tr', { hasText: 'checkout' }).getByText('pending changes').waitFor()
    })

    await t.test('another Editor comments and approves', async () => {
      const reviewer = await open()
      await signInAs(reviewer, 'reviewer@example.com')
      await reviewer.goto(`${base}/#/projects/default/change-requests/${id}`)
      await heading(reviewer, `Change request #${id}`)
      assert.equal(await reviewer.getByRole('button', { name: 'Send to review' }).count(), 0)
      await reviewer.getByLabel('Your comment').fill('Looks right.')
      await reviewer.getByRole('button', { name: 'Add comment' }).click()
      await reviewer.locator('.comments', { hasText: 'Looks right.' }).waitFor()
      await reviewer.getByRole('button', { name: 'Approve' }).click()
      await reviewer.locator(`[data-state-of="${id}"] [data-state="Approved"]`).waitFor()
      if (process.env.CONSOLE_SCREENSHOTS === '1' && database.name === 'sqlite')
        await reviewer.screenshot({ path: 'docs/console/change-request.png', fullPage: true })
    })

    await t.test('the author applies it; a client then gets the flag on', async () => {
      assert.equal((await clientFlag(pennon, 'checkout')).enabled, false)
      await author.goto(`${base}/#/projects/default/change-requests/${id}`)
      await heading(author, `Change request #${id}`)
      await author.getByRole('button', { name: 'Apply' }).click()
      await author.getByRole('dialog').getByRole('button', { name: 'Apply' }).click()
      await author.locator(`[data-state-of="${id}"] [data-state="Applied"]`).waitFor()
      const applied = await clientFlag(pennon, 'checkout')
      assert.equal(applied.enabled, true)
      assert.deepEqual(
        applied.strategies.map((one: { parameters: unknown }) => one.parameters),
        [{ rollout: '100', stickiness: 'default', groupId: 'checkout' }],
      )
      await author.goto(`${base}/#/projects/default/features/checkout`)
      await heading(author, 'checkout')
      assert.equal(await author.getByRole('switch', { name: 'checkout in production' }).getAttribute('aria-checked'), 'true')
      assert.equal(await author.locator('[data-pending-change-requests]').count(), 0)
    })

    assert.deepEqual(problems, [])
  })

  test('without approvals: an Admin sets 0; the author’s request is Approved once sent to review, and they apply it', {
    skip,
    timeout: 120_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    const open = async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
      page.setDefaultTimeout(15_000)
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      return page
    }
    await createFlag(pennon, 'checkout')
    await createUser(pennon, 'author@example.com', 2)

    const admin = await open()
    await signIn(admin, base, pennon.adminToken)
    await admin.goto(`${base}/#/projects/default`)
    await heading(admin, 'Project default')
    const row = admin.locator('[data-change-request-settings] tr[data-environment="production"]')
    await row.getByLabel('Change requests in production').check()
    await row.getByLabel('Approvals needed in production').fill('0')
    await row.getByRole('button', { name: 'Save change requests of production' }).click()
    await admin.locator('[data-change-request-settings] tr[data-environment="production"][data-required="true"]').waitFor()
    assert.equal(await row.getByLabel('Approvals needed in production').inputValue(), '0')
    const config = await call(pennon, 'GET', `${projectPath()}/change-requests/config`)
    assert.deepEqual(
      config.body.find((setting: { environment: string }) => setting.environment === 'production'),
      { environment: 'production', type: 'production', changeRequestEnabled: true, requiredApprovals: 0 },
    )

    const cookie = await signInByApi(pennon, 'author@example.com')
    const added = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/production/change-requests`,
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      asBrowser(cookie),
    )
    assert.equal(added.status, 200, added.text)
    const id = added.body.id
    const author = await open()
    await author.goto(`${base}/`)
    await author.getByLabel('Email or username').fill('author@example.com')
    await author.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await author.getByRole('button', { name: 'Sign in' }).click()
    await author.locator('#nav:not([hidden])').waitFor()
    await author.goto(`${base}/#/projects/default/change-requests/${id}`)
    await heading(author, `Change request #${id}`)
    assert.equal(await author.locator('[data-approvals="0"]').textContent(), 'none needed')
    await author.getByRole('button', { name: 'Send to review' }).click()
    await author.locator(`[data-state-of="${id}"] [data-state="Approved"]`).waitFor()
    await author.getByRole('button', { name: 'Apply', exact: true }).click()
    await author.getByRole('dialog').getByRole('button', { name: 'Apply' }).click()
    await author.locator(`[data-state-of="${id}"] [data-state="Applied"]`).waitFor()
    assert.equal((await clientFlag(pennon, 'checkout')).enabled, true)
    assert.deepEqual(problems, [])
  })

  test('a request that archives a flag, changes dependencies and segments says so, flag by flag and segment by segment', {
    skip,
    timeout: 120_000,
  }, async (t) => {
    const { pennon, base, browser } = await startBrowserAndApp(t, database)
    const problems: string[] = []
    for (const name of ['parent', 'child', 'linked', 'retired']) await createFlag(pennon, name)
    assert.equal((await call(pennon, 'POST', `${projectPath()}/features/linked/dependencies`, { feature: 'parent' })).status, 200)
    const segmentIds: number[] = []
    for (const name of ['beta', 'old']) {
      const segment = await call(pennon, 'POST', '/api/admin/segments', { name, project: 'default', constraints: [] })
      assert.equal(segment.status, 201, segment.text)
      segmentIds.push(segment.body.id)
    }
    const config = await call(pennon, 'PUT', `${projectPath()}/environments/production/change-requests/config`, {
      changeRequestsEnabled: true,
    })
    assert.equal(config.status, 204, config.text)
    const editor = await serviceAccountToken(pennon, 2, 'editor')
    // As Unleash's UI sends them: an array, payloads left out where there is none.
    const added = await call(
      pennon,
      'POST',
      `${projectPath()}/environments/production/change-requests`,
      [
        { feature: 'child', action: 'addDependency', payload: { feature: 'parent', enabled: false } },
        { feature: 'linked', action: 'deleteDependency' },
        { feature: 'retired', action: 'archiveFeature' },
        {
          feature: null,
          action: 'updateSegment',
          payload: {
            id: segmentIds[0],
            name: 'beta-users',
            project: 'default',
            constraints: [{ contextName: 'userId', operator: 'IN', values: ['7'] }],
          },
        },
        { feature: null, action: 'deleteSegment', payload: { id: segmentIds[1] } },
      ],
      { token: editor },
    )
    assert.equal(added.status, 200, added.text)

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.setDefaultTimeout(15_000)
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    await signIn(page, base, pennon.adminToken)
    await page.goto(`${base}/#/projects/default/change-requests/${added.body.id}`)
    await heading(page, `Change request #${added.body.id}`)
    await page.locator('[data-feature="retired"] .change').waitFor()
    const said = async (feature: string) => page.locator(`[data-feature="${feature}"] .change strong`).allTextContents()
    assert.deepEqual(await said('child'), ['depend on parent being off'])
    assert.deepEqual(await said('linked'), ['remove its dependencies'])
    assert.deepEqual(await said('retired'), ['archive the flag (in every environment)'])
    assert.deepEqual(await page.locator('[data-segments] .change strong').allTextContents(), [
      'change segment beta-users: 1 constraint, project default',
      'delete segment old',
    ])
    assert.deepEqual(problems, [])
  })
})
