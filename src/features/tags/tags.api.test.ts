import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { createFlag, eventMark } from '../../../test/helpers/flags.ts'
import { at, jsonOk, validationError } from '../../../test/helpers/strategies.ts'
import {
  assertEmpty,
  createTagType,
  event,
  eventTag,
  flagTags,
  fromOneRequest,
  TAGS,
  tagFlag,
  tagPath,
} from '../../../test/helpers/tags.ts'

onEachDatabase('tags', (database) => {
  test('create: 201, Location, {version, tag}, its event; the value stored trimmed; listed by type then value; GET by type and one', async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team')
    const mark = await eventMark(pennon)
    const created = await call(pennon, 'POST', TAGS, { type: 'team', value: '  core  ' })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.headers.location, 'tags/team/core')
    assert.deepEqual(created.body, { version: 1, tag: { type: 'team', value: 'core' } })
    assert.deepEqual(fromOneRequest(await mark.since()), [event('tag-created', { data: { type: 'team', value: 'core' } })])

    // Any characters: the Location names it encoded, the path finds it decoded; `color` is accepted and ignored.
    const odd = await call(pennon, 'POST', TAGS, { type: 'simple', value: 'a/b: ü 日本 %', color: '#000000' })
    assert.equal(odd.status, 201, odd.text)
    assert.equal(odd.headers.location, `tags/simple/${encodeURIComponent('a/b: ü 日本 %')}`)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', tagPath('simple', 'a/b: ü 日本 %'))), {
      version: 1,
      tag: { type: 'simple', value: 'a/b: ü 日本 %' },
    })
    for (const [type, value] of [
      ['team', 'ab'],
      ['simple', 'Zed'],
      ['simple', 'web'],
    ])
      assert.equal((await call(pennon, 'POST', TAGS, { type, value })).status, 201)

    const all = [
      { type: 'simple', value: 'Zed' },
      { type: 'simple', value: 'a/b: ü 日本 %' },
      { type: 'simple', value: 'web' },
      { type: 'team', value: 'ab' },
      { type: 'team', value: 'core' },
    ]
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS)), { version: 1, tags: all })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${TAGS}/team`)), { version: 1, tags: all.slice(3) })
    // An unknown type has no tags, as the reference answers.
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${TAGS}/nope`)), { version: 1, tags: [] })
    const unknown = await call(pennon, 'GET', tagPath('team', 'nope'))
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'There\'s no tag of type "team" with value "nope".'))
  })

  test('create refuses: a tag that exists (409, trimmed or not); an unknown type, values not 2–50 characters once trimmed, other properties (400); nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.equal((await call(pennon, 'POST', TAGS, { type: 'simple', value: 'web' })).status, 201)
    const mark = await eventMark(pennon)
    for (const value of ['web', ' web ']) {
      const taken = await call(pennon, 'POST', TAGS, { type: 'simple', value })
      assert.equal(taken.status, 409)
      assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', 'A tag of type "simple" with value "web" already exists.'))
    }
    const refuse = async (body: unknown, ...details: Array<{ path: string; message: string }>) => {
      const response = await call(pennon, 'POST', TAGS, body)
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), validationError(...details))
    }
    await refuse(
      { type: 'team', value: 'core' },
      at('/body/type', 'The `/body/type` property must name an existing tag type. You sent "team".'),
    )
    const length = (sent: string) =>
      at(
        '/body/value',
        `The \`/body/value\` property must be 2 to 50 characters long, leading and trailing white space aside. You sent ${JSON.stringify(sent)}.`,
      )
    await refuse({ type: 'simple', value: ' a ' }, length(' a '))
    await refuse({ type: 'simple', value: 'x'.repeat(51) }, length('x'.repeat(51)))
    await refuse(
      { type: 's', value: '', other: 1 },
      at('/body/other', 'The `/body` object does not allow the property `/body/other`. Remove it.'),
      at('/body/type', 'The `/body/type` property must NOT have fewer than 2 characters. You sent "s".'),
      length(''),
    )
    await refuse({ value: 'web' }, at('/body/type', 'The `/body/type` property is required. It was not present on the data you sent.'))
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS)).tags, [{ type: 'simple', value: 'web' }])
  })

  test('delete: the tag leaves every flag that had it (an event each, recording the tags left), then goes; unknown → 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'a')
    await createFlag(pennon, 'b')
    await createFlag(pennon, 'c')
    await tagFlag(pennon, 'b', 'simple', 'web')
    await tagFlag(pennon, 'a', 'simple', 'web')
    await tagFlag(pennon, 'a', 'simple', 'mobile')
    await tagFlag(pennon, 'c', 'simple', 'mobile')
    const mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', tagPath('simple', 'web')))
    assert.deepEqual(fromOneRequest(await mark.since()), [
      event('feature-untagged', { featureName: 'a', preData: { type: 'simple', value: 'web' }, tags: [eventTag('simple', 'mobile')] }),
      event('feature-untagged', { featureName: 'b', preData: { type: 'simple', value: 'web' } }),
      event('tag-deleted', { data: { type: 'simple', value: 'web' } }),
    ])
    assert.deepEqual(await flagTags(pennon, 'a'), [{ type: 'simple', value: 'mobile', color: '#FFFFFF' }])
    assert.deepEqual(await flagTags(pennon, 'b'), [])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS)).tags, [{ type: 'simple', value: 'mobile' }])

    const unknown = await call(pennon, 'DELETE', tagPath('simple', 'web'))
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'There\'s no tag of type "simple" with value "web".'))
    // A tag on no flag goes with only its own event.
    assert.equal((await call(pennon, 'POST', TAGS, { type: 'simple', value: 'alone' })).status, 201)
    const alone = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', tagPath('simple', 'alone')))
    assert.deepEqual(fromOneRequest(await alone.since()), [event('tag-deleted', { data: { type: 'simple', value: 'alone' } })])
  })

  test('permissions: anyone with an admin credential reads; creating and deleting a tag needs UPDATE_FEATURE (Editors have it)', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'POST', TAGS, { type: 'simple', value: 'web' }, { token: editor })).status, 201)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS, undefined, { token: viewer })).tags, [{ type: 'simple', value: 'web' }])
    assert.equal((await call(pennon, 'GET', tagPath('simple', 'web'), undefined, { token: viewer })).status, 200)
    for (const [method, path, body] of [
      ['POST', TAGS, { type: 'simple', value: 'other' }],
      ['DELETE', tagPath('simple', 'web'), undefined],
    ] as const) {
      const refused = await call(pennon, method, path, body, { token: viewer })
      assert.equal(refused.status, 403, `${method} ${path}`)
      assert.deepEqual(refused.body.permissions, ['UPDATE_FEATURE'])
    }
    assertEmpty(await call(pennon, 'DELETE', tagPath('simple', 'web'), undefined, { token: editor }))
  })
})
