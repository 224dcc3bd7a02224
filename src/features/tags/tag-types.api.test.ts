import assert from 'node:assert/strict'
import { test } from 'node:test'
import { apiToken, call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { createFlag, eventMark } from '../../../test/helpers/flags.ts'
import { at, jsonOk, validationError } from '../../../test/helpers/strategies.ts'
import {
  assertEmpty,
  createTagType,
  event,
  eventTag,
  flagTags,
  fromOneRequest,
  SIMPLE,
  TAG_TYPES,
  TAGS,
  tagFlag,
} from '../../../test/helpers/tags.ts'

const tagType = (name: string, fields: Record<string, unknown> = {}) => ({ name, description: null, icon: null, color: null, ...fields })

onEachDatabase('tag types', (database) => {
  test('a fresh instance has the built-in type simple, as the reference shows it; GET one; an unknown name is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAG_TYPES)), { version: 1, tagTypes: [SIMPLE] })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${TAG_TYPES}/simple`)), { version: 1, tagType: SIMPLE })
    const unknown = await call(pennon, 'GET', `${TAG_TYPES}/nope`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Tag type "nope" does not exist.'))
  })

  test('create: 201, Location, the tag type and its event; listed by name (code point)', async (t) => {
    const pennon = await useTestApp(t, database)
    const mark = await eventMark(pennon)
    const created = await call(pennon, 'POST', TAG_TYPES, { name: 'team', description: 'Owning team', icon: 'people' })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.headers.location, 'tag-types/team')
    const team = tagType('team', { description: 'Owning team', icon: 'people' })
    assert.deepEqual(created.body, team)
    assert.deepEqual(fromOneRequest(await mark.since()), [event('tag-type-created', { data: team })])

    await createTagType(pennon, 'Component', { color: '#00ff00', icon: null, description: '' })
    await createTagType(pennon, 'aa')
    const component = tagType('Component', { color: '#00ff00', description: '' })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAG_TYPES)).tagTypes, [component, tagType('aa'), SIMPLE, team])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${TAG_TYPES}/Component`)), { version: 1, tagType: component })
  })

  test('create refuses: a taken name (409); names not URL-friendly or not 2–50 characters, bad colors, other properties (400); nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team')
    const mark = await eventMark(pennon)
    for (const name of ['team', 'simple']) {
      const taken = await call(pennon, 'POST', TAG_TYPES, { name })
      assert.equal(taken.status, 409)
      assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', `A tag type named "${name}" already exists.`))
    }
    const refuse = async (body: unknown, ...details: Array<{ path: string; message: string }>) => {
      const response = await call(pennon, 'POST', TAG_TYPES, body)
      assert.equal(response.status, 400, JSON.stringify(body))
      assert.deepEqual(withoutId(response.body), validationError(...details))
    }
    const length = (sent: string) =>
      at('/body/name', `The \`/body/name\` property must be 2 to 50 characters long. You sent ${JSON.stringify(sent)}.`)
    await refuse({ name: 'a' }, length('a'))
    await refuse({ name: 'x'.repeat(51) }, length('x'.repeat(51)))
    await refuse(
      { name: 'my team' },
      at(
        '/body/name',
        'The `/body/name` property must be URL-friendly (letters, digits and - _ . ! ~ * \' ( ) only, not "." or ".."). You sent "my team".',
      ),
    )
    await refuse(
      { name: 'team:a' },
      at(
        '/body/name',
        'The `/body/name` property must be URL-friendly (letters, digits and - _ . ! ~ * \' ( ) only, not "." or ".."). You sent "team:a".',
      ),
    )
    // The schema's faults and the name rule are listed together.
    await refuse(
      { name: 'a b', color: 'red', description: 5, extra: true },
      at('/body/extra', 'The `/body` object does not allow the property `/body/extra`. Remove it.'),
      at('/body/description', 'The `/body/description` property must be string. You sent 5.'),
      at('/body/color', 'The `/body/color` property must match pattern "^#[0-9A-Fa-f]{6}$". You sent "red".'),
      at('/body/color', 'The `/body/color` property must be null. You sent "red".'),
      at(
        '/body/name',
        'The `/body/name` property must be URL-friendly (letters, digits and - _ . ! ~ * \' ( ) only, not "." or ".."). You sent "a b".',
      ),
    )
    await refuse({}, at('/body/name', 'The `/body/name` property is required. It was not present on the data you sent.'))
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(
      jsonOk(await call(pennon, 'GET', TAG_TYPES)).tagTypes.map((type: { name: string }) => type.name),
      ['simple', 'team'],
    )
  })

  test('validate: the body when a create would work; 409 for a taken name, 400 for a bad one; writes nothing; a Viewer may ask', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const mark = await eventMark(pennon)
    const body = { name: 'team', icon: null }
    assert.deepEqual(jsonOk(await call(pennon, 'POST', `${TAG_TYPES}/validate`, body, { token: viewer })), { valid: true, tagType: body })
    const taken = await call(pennon, 'POST', `${TAG_TYPES}/validate`, { name: 'simple' })
    assert.equal(taken.status, 409)
    assert.deepEqual(withoutId(taken.body), errorOf('NameExistsError', 'A tag type named "simple" already exists.'))
    const bad = await call(pennon, 'POST', `${TAG_TYPES}/validate`, { name: '.' })
    assert.equal(bad.status, 400)
    assert.deepEqual(
      withoutId(bad.body),
      validationError(at('/body/name', 'The `/body/name` property must be 2 to 50 characters long. You sent ".".')),
    )
    assert.deepEqual(await mark.since(), [])
    assert.equal((await call(pennon, 'GET', `${TAG_TYPES}/team`)).status, 404)
  })

  test('update: what is sent replaces, what is not is kept, null clears; its event has both; nothing changed, no event; unknown → 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team', { description: 'Owning team', icon: 'people', color: '#123456' })
    const before = tagType('team', { description: 'Owning team', icon: 'people', color: '#123456' })
    const mark = await eventMark(pennon)
    // The name is the path's: a name in the body is ignored, as the reference.
    assertEmpty(await call(pennon, 'PUT', `${TAG_TYPES}/team`, { name: 'other', description: 'The team that owns it', color: null }))
    const after = tagType('team', { description: 'The team that owns it', icon: 'people' })
    assert.deepEqual(jsonOk(await call(pennon, 'GET', `${TAG_TYPES}/team`)).tagType, after)
    assert.deepEqual(fromOneRequest(await mark.since()), [event('tag-type-updated', { data: after, preData: before })])

    const again = await eventMark(pennon)
    assertEmpty(await call(pennon, 'PUT', `${TAG_TYPES}/team`, { icon: 'people' }))
    assertEmpty(await call(pennon, 'PUT', `${TAG_TYPES}/team`, {}))
    assert.deepEqual(await again.since(), [])

    const unknown = await call(pennon, 'PUT', `${TAG_TYPES}/nope`, { description: 'x' })
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Tag type "nope" does not exist.'))
    const bad = await call(pennon, 'PUT', `${TAG_TYPES}/team`, { color: '#12345' })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.details[0].path, '/body/color')
  })

  test('delete: its tags go, and leave the flags that had them, each with its event; other tags stay; unknown → 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team')
    await createFlag(pennon, 'a')
    await createFlag(pennon, 'b')
    await tagFlag(pennon, 'a', 'team', 'web')
    await tagFlag(pennon, 'b', 'team', 'core')
    await tagFlag(pennon, 'a', 'team', 'core')
    await tagFlag(pennon, 'a', 'simple', 'keep')
    assert.equal((await call(pennon, 'POST', TAGS, { type: 'team', value: 'unused' })).status, 201)
    const mark = await eventMark(pennon)

    assertEmpty(await call(pennon, 'DELETE', `${TAG_TYPES}/team`))
    // By tag, then by flag (code point order); each flag event records the tags the flag has left.
    assert.deepEqual(fromOneRequest(await mark.since()), [
      event('feature-untagged', { featureName: 'a', preData: { type: 'team', value: 'core' }, tags: [eventTag('simple', 'keep')] }),
      event('feature-untagged', { featureName: 'b', preData: { type: 'team', value: 'core' } }),
      event('feature-untagged', { featureName: 'a', preData: { type: 'team', value: 'web' }, tags: [eventTag('simple', 'keep')] }),
      event('tag-deleted', { data: { type: 'team', value: 'core' } }),
      event('tag-deleted', { data: { type: 'team', value: 'unused' } }),
      event('tag-deleted', { data: { type: 'team', value: 'web' } }),
      event('tag-type-deleted', { preData: tagType('team') }),
    ])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAG_TYPES)).tagTypes, [SIMPLE])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS)).tags, [{ type: 'simple', value: 'keep' }])
    assert.deepEqual(await flagTags(pennon, 'a'), [{ type: 'simple', value: 'keep', color: '#FFFFFF' }])
    assert.deepEqual(await flagTags(pennon, 'b'), [])
    const rows = await pennon.database.db.selectFrom('feature_tags').select(['feature_name', 'tag_type', 'tag_value']).execute()
    assert.deepEqual(rows, [{ feature_name: 'a', tag_type: 'simple', tag_value: 'keep' }])

    const unknown = await call(pennon, 'DELETE', `${TAG_TYPES}/team`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Tag type "team" does not exist.'))
  })

  test('permissions: Viewers read; Editors create, change and delete tag types; client tokens are refused', async (t) => {
    const pennon = await useTestApp(t, database)
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    const client = await apiToken(pennon, 'client')
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAG_TYPES, undefined, { token: viewer })).tagTypes, [SIMPLE])
    assert.equal((await call(pennon, 'GET', `${TAG_TYPES}/simple`, undefined, { token: viewer })).status, 200)
    for (const [method, path, body, permission] of [
      ['POST', TAG_TYPES, { name: 'team' }, 'CREATE_TAG_TYPE'],
      ['PUT', `${TAG_TYPES}/simple`, { description: 'x' }, 'UPDATE_TAG_TYPE'],
      ['DELETE', `${TAG_TYPES}/simple`, undefined, 'DELETE_TAG_TYPE'],
    ] as const) {
      const refused = await call(pennon, method, path, body, { token: viewer })
      assert.equal(refused.status, 403, `${method} ${path}`)
      assert.deepEqual(refused.body.permissions, [permission])
      assert.equal((await call(pennon, method, path, body, { token: client })).status, 403)
    }
    assert.equal((await call(pennon, 'POST', TAG_TYPES, { name: 'team' }, { token: editor })).status, 201)
    assertEmpty(await call(pennon, 'PUT', `${TAG_TYPES}/team`, { description: 'Owning team' }, { token: editor }))
    assertEmpty(await call(pennon, 'DELETE', `${TAG_TYPES}/team`, undefined, { token: editor }))
    assert.equal((await call(pennon, 'GET', TAG_TYPES, undefined, { token: client })).status, 403)
  })
})
