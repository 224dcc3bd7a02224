/**
 * Where flags are found by tag: the project's flag list (each flag with its tags, `?tag=`), and
 * the client API's `tag` filter — through the real Node SDK's `tags` option too — whose answers
 * are remembered, so a tag change must show at once here and a moment later on another instance.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { test } from 'node:test'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import { apiToken, call, eventually, onEachDatabase, useTestApp, useTwoInstances, type TestApp } from '../../../test/test-app.ts'
import { archive, createFlag, createProject, projectPath } from '../../../test/helpers/flags.ts'
import { jsonOk, toggle } from '../../../test/helpers/strategies.ts'
import { assertEmpty, createTagType, flagTagsPath, TAG_TYPES, tagFlag, tagPath } from '../../../test/helpers/tags.ts'

const names = (features: Array<{ name: string }>) => features.map((flag) => flag.name)
const listed = (type: string, value: string) => ({ value, type })

async function clientNames(pennon: Pick<TestApp, 'app' | 'adminToken'>, token: string, search: string): Promise<string[]> {
  const response = await call(pennon, 'GET', `/api/client/features${search}`, undefined, { token })
  assert.equal(response.status, 200, response.text)
  return names(response.body.features)
}

onEachDatabase('tag filters', (database) => {
  test("the project flag list shows each flag's tags, and ?tag= keeps the flags with any of them, paged or not", async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team')
    await createProject(pennon, 'shop')
    for (const name of ['a', 'b', 'c', 'd']) await createFlag(pennon, name)
    await createFlag(pennon, 'shop-a', 'shop')
    await tagFlag(pennon, 'a', 'team', 'core')
    await tagFlag(pennon, 'a', 'simple', 'web')
    await tagFlag(pennon, 'b', 'simple', 'web')
    await tagFlag(pennon, 'c', 'team', 'growth')
    await tagFlag(pennon, 'shop-a', 'simple', 'web')
    await createFlag(pennon, 'gone')
    await tagFlag(pennon, 'gone', 'simple', 'web')
    assert.equal((await archive(pennon, ['gone'])).status, 202)

    const all = jsonOk(await call(pennon, 'GET', `${projectPath()}/features`))
    assert.deepEqual(
      all.features.map((flag: { name: string; tags: unknown[] }) => [flag.name, flag.tags]),
      [
        ['a', [listed('simple', 'web'), listed('team', 'core')]],
        ['b', [listed('simple', 'web')]],
        ['c', [listed('team', 'growth')]],
        ['d', []],
      ],
    )
    assert.deepEqual(Object.keys(all.features[0]), [
      'name',
      'description',
      'type',
      'project',
      'stale',
      'createdAt',
      'impressionData',
      'archived',
      'potentiallyStale',
      'tags',
    ])

    const web = jsonOk(await call(pennon, 'GET', `${projectPath()}/features?tag=simple:web`))
    assert.deepEqual(Object.keys(web), ['version', 'features'])
    assert.deepEqual(names(web.features), ['a', 'b'])
    assert.deepEqual(web.features[0].tags, [listed('simple', 'web'), listed('team', 'core')])
    assert.deepEqual(names(jsonOk(await call(pennon, 'GET', `${projectPath()}/features?tag=simple:web&tag=team:growth`)).features), [
      'a',
      'b',
      'c',
    ])
    assert.deepEqual(names(jsonOk(await call(pennon, 'GET', `${projectPath()}/features?tag=team:nobody`)).features), [])
    assert.deepEqual(names(jsonOk(await call(pennon, 'GET', `${projectPath('shop')}/features?tag=simple:web`)).features), ['shop-a'])

    // With paging: the page of the matching flags, and how many match.
    const page = jsonOk(await call(pennon, 'GET', `${projectPath()}/features?tag=simple:web&tag=team:growth&limit=2&sortOrder=desc`))
    assert.deepEqual({ names: names(page.features), total: page.total }, { names: ['c', 'b'], total: 3 })
    const archived = jsonOk(await call(pennon, 'GET', `${projectPath()}/features?tag=simple:web&archived=true`))
    assert.deepEqual(
      archived.features.map((flag: { name: string; tags: unknown[] }) => [flag.name, flag.tags]),
      [['gone', [listed('simple', 'web')]]],
    )

    const malformed = await call(pennon, 'GET', `${projectPath()}/features?tag=simple:web&tag=web`)
    assert.equal(malformed.status, 400)
    assert.equal(malformed.body.details[0].path, '/query/tag/1')
    assert.equal(malformed.body.message, 'The `/query/tag` filter must look like "type:value". You sent "web".')
  })

  test("the client API's tag filter follows the tags at once on this instance: tagged, untagged, a tag or its type deleted", async (t) => {
    const pennon = await useTestApp(t, database)
    const client = await apiToken(pennon, 'client')
    await createTagType(pennon, 'team')
    for (const name of ['a', 'b', 'c']) await createFlag(pennon, name)
    await tagFlag(pennon, 'a', 'team', 'core')
    const filter = '?tag=team:core'
    assert.deepEqual(await clientNames(pennon, client, filter), ['a'])
    const first = await call(pennon, 'GET', `/api/client/features${filter}`, undefined, { token: client })

    await tagFlag(pennon, 'b', 'team', 'core')
    assert.deepEqual(await clientNames(pennon, client, filter), ['a', 'b'])
    const second = await call(pennon, 'GET', `/api/client/features${filter}`, undefined, { token: client })
    assert.notEqual(second.headers.etag, first.headers.etag)
    // The old ETag is no longer current: the whole answer, not a 304.
    assert.equal(
      (
        await call(pennon, 'GET', `/api/client/features${filter}`, undefined, {
          token: client,
          headers: { 'if-none-match': first.headers.etag as string },
        })
      ).status,
      200,
    )

    assertEmpty(await call(pennon, 'DELETE', `${flagTagsPath('a')}/team/core`))
    assert.deepEqual(await clientNames(pennon, client, filter), ['b'])
    await tagFlag(pennon, 'c', 'team', 'core')
    assertEmpty(await call(pennon, 'DELETE', tagPath('team', 'core')))
    assert.deepEqual(await clientNames(pennon, client, filter), [])
    await tagFlag(pennon, 'c', 'team', 'core')
    assert.deepEqual(await clientNames(pennon, client, filter), ['c'])
    assertEmpty(await call(pennon, 'DELETE', `${TAG_TYPES}/team`))
    assert.deepEqual(await clientNames(pennon, client, filter), [])
    // Unfiltered answers are the same whatever the tags.
    assert.deepEqual(await clientNames(pennon, client, ''), ['a', 'b', 'c'])
  })

  test('another instance serves a tag change a moment after it commits', async (t) => {
    const { first, second } = await useTwoInstances(t, database)
    const client = await apiToken(first, 'client')
    await createFlag(first, 'a')
    await createFlag(first, 'b')
    assert.deepEqual(await clientNames(second, client, '?tag=simple:web'), [])
    await tagFlag(first, 'b', 'simple', 'web')
    await eventually(
      async () => (await clientNames(second, client, '?tag=simple:web')).join() === 'b',
      'the second instance serves the new tag',
    )
    assertEmpty(await call(first, 'DELETE', tagPath('simple', 'web')))
    await eventually(
      async () => (await clientNames(second, client, '?tag=simple:web')).length === 0,
      'the second instance serves the deleted tag',
    )
  })

  test('the real Node SDK with its tags option gets the flags with any of those tags', { timeout: 60_000 }, async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team')
    for (const name of ['checkout', 'search', 'billing', 'other']) await createFlag(pennon, name)
    for (const name of ['checkout', 'search', 'billing', 'other'])
      assert.equal((await toggle(pennon, name, 'development', 'on')).status, 200)
    await tagFlag(pennon, 'checkout', 'team', 'a: b/c')
    await tagFlag(pennon, 'search', 'simple', 'web')
    await tagFlag(pennon, 'other', 'simple', 'mobile')
    await pennon.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = pennon.app.server.address() as { port: number }
    const sdk = new Unleash({
      url: `http://127.0.0.1:${port}/api/`,
      appName: 'tags',
      customHeaders: { Authorization: await apiToken(pennon, 'client') },
      tags: [
        { name: 'team', value: 'a: b/c' },
        { name: 'simple', value: 'web' },
      ],
      disableMetrics: true,
      refreshInterval: 60_000,
      storageProvider: new InMemStorageProvider(),
    })
    t.after(() => sdk.destroy())
    const failed = once(sdk, 'error').then(([error]) => Promise.reject(error))
    await Promise.race([once(sdk, 'synchronized'), failed])
    assert.deepEqual(
      sdk
        .getFeatureToggleDefinitions()
        .map((flag) => flag.name)
        .sort(),
      ['checkout', 'search'],
    )
    assert.equal(sdk.isEnabled('checkout'), true)
    assert.equal(sdk.isEnabled('billing'), false)
  })
})
