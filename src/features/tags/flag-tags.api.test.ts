import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, errorOf, onEachDatabase, serviceAccountToken, useTestApp, withoutId } from '../../../test/test-app.ts'
import { archive, createFlag, createProject, deleteFlags, eventMark, projectPath } from '../../../test/helpers/flags.ts'
import { at, jsonOk, toggle, validationError } from '../../../test/helpers/strategies.ts'
import {
  assertEmpty,
  createTagType,
  event,
  eventTag,
  flagTags,
  flagTagsPath,
  fromOneRequest,
  TAGS,
  tagFlag,
} from '../../../test/helpers/tags.ts'

const tag = (type: string, value: string) => ({ type, value })
const colored = (type: string, value: string, color: string | null = '#FFFFFF') => ({ type, value, color })

onEachDatabase('flag tags', (database) => {
  test("add: 201, Location, the tag; the tag is created if missing; its events record the flag's tags; adding it again changes nothing", async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assert.deepEqual(jsonOk(await call(pennon, 'GET', flagTagsPath('checkout'))), { version: 1, tags: [] })

    const mark = await eventMark(pennon)
    const added = await call(pennon, 'POST', flagTagsPath('checkout'), { type: 'simple', value: ' web ', color: '#000000' })
    assert.equal(added.status, 201, added.text)
    assert.equal(added.headers.location, 'checkout/tags')
    assert.deepEqual(added.body, tag('simple', 'web'))
    assert.deepEqual(fromOneRequest(await mark.since()), [
      event('tag-created', { data: tag('simple', 'web') }),
      event('feature-tagged', { featureName: 'checkout', data: tag('simple', 'web'), tags: [eventTag('simple', 'web')] }),
    ])

    // The tag exists now: only the flag's event. A type without a color shows null.
    await createTagType(pennon, 'team')
    await createFlag(pennon, 'other')
    await tagFlag(pennon, 'other', 'simple', 'web')
    const second = await eventMark(pennon)
    await tagFlag(pennon, 'checkout', 'team', 'core')
    assert.deepEqual(
      fromOneRequest(await second.since()).map((e) => e.type),
      ['tag-created', 'feature-tagged'],
    )
    assert.deepEqual(await flagTags(pennon, 'checkout'), [colored('simple', 'web'), colored('team', 'core', null)])

    const again = await eventMark(pennon)
    const repeated = await call(pennon, 'POST', flagTagsPath('checkout'), { type: 'simple', value: 'web' })
    assert.equal(repeated.status, 201)
    assert.deepEqual(repeated.body, tag('simple', 'web'))
    assert.deepEqual(await again.since(), [])
  })

  test("a flag created with tags (the reference's createFeatureSchema `tags`) has them; its events say so; a bad tag creates nothing", async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team')
    await tagFlag(pennon, (await createFlag(pennon, 'other')).name, 'team', 'core')
    const mark = await eventMark(pennon)
    const created = await call(pennon, 'POST', `${projectPath()}/features`, {
      name: 'checkout',
      tags: [tag('team', 'core'), tag('simple', ' web '), tag('simple', 'web')],
    })
    assert.equal(created.status, 201, created.text)
    assert.deepEqual(await flagTags(pennon, 'checkout'), [colored('simple', 'web'), colored('team', 'core', null)])
    const flagEvents = [eventTag('simple', 'web'), eventTag('team', 'core')]
    const events = fromOneRequest(await mark.since())
    assert.deepEqual(
      events.map((e) => [e.type, e.featureName, e.data && { type: e.data.type, value: e.data.value }, e.tags]),
      [
        ['feature-created', 'checkout', { type: 'release', value: undefined }, flagEvents],
        ['tag-created', null, tag('simple', 'web'), []],
        // In the order sent, a tag sent twice once.
        ['feature-tagged', 'checkout', tag('team', 'core'), flagEvents],
        ['feature-tagged', 'checkout', tag('simple', 'web'), flagEvents],
      ],
    )

    const refused = async (tags: object[], path: string, message: string) => {
      const response = await call(pennon, 'POST', `${projectPath()}/features`, { name: 'refused', tags })
      assert.equal(response.status, 400, response.text)
      assert.deepEqual(withoutId(response.body), { name: 'ValidationError', message, details: [{ path, message }] })
    }
    const before = await eventMark(pennon)
    await refused(
      [tag('simple', 'web'), tag('nope', 'web')],
      '/body/tags/1/type',
      'The `/body/tags/1/type` property must name an existing tag type. You sent "nope".',
    )
    await refused(
      [tag('simple', ' x ')],
      '/body/tags/0/value',
      'The `/body/tags/0/value` property must be 2 to 50 characters long, leading and trailing white space aside. You sent " x ".',
    )
    assert.equal((await call(pennon, 'GET', `${projectPath()}/features/refused`)).status, 404)
    assert.deepEqual(await before.since(), [])
  })

  test('add refuses: an unknown flag (404), an unknown type or a bad value (400); nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const mark = await eventMark(pennon)
    const unknown = await call(pennon, 'POST', flagTagsPath('ghost'), { type: 'simple', value: 'web' })
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'There\'s no flag named "ghost".'))
    const badType = await call(pennon, 'POST', flagTagsPath('checkout'), { type: 'team', value: 'core' })
    assert.equal(badType.status, 400)
    assert.deepEqual(
      withoutId(badType.body),
      validationError(at('/body/type', 'The `/body/type` property must name an existing tag type. You sent "team".')),
    )
    const badValue = await call(pennon, 'POST', flagTagsPath('checkout'), { type: 'simple', value: 'w' })
    assert.equal(badValue.status, 400)
    assert.deepEqual(
      withoutId(badValue.body),
      validationError(
        at(
          '/body/value',
          'The `/body/value` property must be 2 to 50 characters long, leading and trailing white space aside. You sent "w".',
        ),
      ),
    )
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS)).tags, [])
    const unknownList = await call(pennon, 'GET', flagTagsPath('ghost'))
    assert.equal(unknownList.status, 404)
  })

  test('PUT: adds, then removes (removal wins); only real changes are events; answers the tags after', async (t) => {
    const pennon = await useTestApp(t, database)
    await createTagType(pennon, 'team', { color: '#112233' })
    await createFlag(pennon, 'checkout')
    await tagFlag(pennon, 'checkout', 'simple', 'old')
    await tagFlag(pennon, 'checkout', 'simple', 'kept')
    const mark = await eventMark(pennon)
    const updated = await call(pennon, 'PUT', flagTagsPath('checkout'), {
      addedTags: [tag('team', 'core'), tag('simple', 'kept'), tag('simple', 'both'), tag('team', 'core')],
      removedTags: [tag('simple', 'old'), tag('simple', 'both'), tag('simple', 'never')],
    })
    assert.deepEqual(jsonOk(updated), { version: 1, tags: [colored('simple', 'kept'), colored('team', 'core', '#112233')] })
    const after = [eventTag('simple', 'kept'), eventTag('team', 'core')]
    assert.deepEqual(fromOneRequest(await mark.since()), [
      // `both` is created (as the reference does), but ends up not on the flag.
      event('tag-created', { data: tag('team', 'core') }),
      event('tag-created', { data: tag('simple', 'both') }),
      event('feature-tagged', { featureName: 'checkout', data: tag('team', 'core'), tags: after }),
      event('feature-untagged', { featureName: 'checkout', preData: tag('simple', 'old'), tags: after }),
    ])

    const nothing = await eventMark(pennon)
    assert.deepEqual(
      jsonOk(await call(pennon, 'PUT', flagTagsPath('checkout'), { addedTags: [tag('simple', 'kept')], removedTags: [] })).tags.length,
      2,
    )
    assert.deepEqual(await nothing.since(), [])

    const refused = await call(pennon, 'PUT', flagTagsPath('checkout'), {
      addedTags: [tag('simple', 'ok'), tag('color', 'red')],
      removedTags: [tag('simple', 'x')],
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      withoutId(refused.body),
      validationError(
        at(
          '/body/removedTags/0/value',
          'The `/body/removedTags/0/value` property must be 2 to 50 characters long, leading and trailing white space aside. You sent "x".',
        ),
      ),
    )
    const unknownType = await call(pennon, 'PUT', flagTagsPath('checkout'), {
      addedTags: [tag('simple', 'ok'), tag('color', 'red')],
      removedTags: [],
    })
    assert.equal(unknownType.status, 400)
    assert.deepEqual(
      withoutId(unknownType.body),
      validationError(
        at('/body/addedTags/1/type', 'The `/body/addedTags/1/type` property must name an existing tag type. You sent "color".'),
      ),
    )
    const missing = await call(pennon, 'PUT', flagTagsPath('checkout'), { addedTags: [] })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.details[0].path, '/body/removedTags')
    assert.equal((await call(pennon, 'PUT', flagTagsPath('ghost'), { addedTags: [], removedTags: [] })).status, 404)
    assert.deepEqual(await nothing.since(), [])
  })

  test('DELETE: removes the tag (its event records what is left); a flag without it is left as it is; an unknown flag is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    await tagFlag(pennon, 'checkout', 'simple', 'a b/c')
    await tagFlag(pennon, 'checkout', 'simple', 'web')
    const mark = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', `${flagTagsPath('checkout')}/simple/${encodeURIComponent('a b/c')}`))
    assert.deepEqual(fromOneRequest(await mark.since()), [
      event('feature-untagged', { featureName: 'checkout', preData: tag('simple', 'a b/c'), tags: [eventTag('simple', 'web')] }),
    ])
    // The tag itself stays, as the reference.
    assert.deepEqual(jsonOk(await call(pennon, 'GET', TAGS)).tags, [tag('simple', 'a b/c'), tag('simple', 'web')])
    const nothing = await eventMark(pennon)
    assertEmpty(await call(pennon, 'DELETE', `${flagTagsPath('checkout')}/simple/a%20b%2Fc`))
    assertEmpty(await call(pennon, 'DELETE', `${flagTagsPath('checkout')}/nope/nope`))
    assert.deepEqual(await nothing.since(), [])
    const unknown = await call(pennon, 'DELETE', `${flagTagsPath('ghost')}/simple/web`)
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'There\'s no flag named "ghost".'))
  })

  test('every event about a tagged flag records its tags; archived flags keep (and may change) theirs; deleted for good, they go, and feature-deleted records them', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    await tagFlag(pennon, 'checkout', 'simple', 'web')
    await tagFlag(pennon, 'checkout', 'simple', 'core')
    const tags = [eventTag('simple', 'core'), eventTag('simple', 'web')]
    const mark = await eventMark(pennon)
    assert.equal((await toggle(pennon, 'checkout', 'development', 'on')).status, 200)
    const switched = await mark.since()
    assert.deepEqual(
      switched.map((e) => [e.type, e.tags]),
      [
        ['feature-strategy-add', tags],
        ['feature-environment-enabled', tags],
      ],
    )

    assert.equal((await archive(pennon, ['checkout'])).status, 202)
    assert.deepEqual(await flagTags(pennon, 'checkout'), [colored('simple', 'core'), colored('simple', 'web')])
    await tagFlag(pennon, 'checkout', 'simple', 'gone')
    const deleting = await eventMark(pennon)
    assert.equal((await deleteFlags(pennon, ['checkout'])).status, 200)
    const [deleted] = await deleting.since()
    assert.equal(deleted.type, 'feature-deleted')
    assert.deepEqual(deleted.tags, [eventTag('simple', 'core'), eventTag('simple', 'gone'), eventTag('simple', 'web')])
    assert.deepEqual(await pennon.database.db.selectFrom('feature_tags').selectAll().execute(), [])
    // The tags stay; a flag of the same name starts without them.
    assert.equal(jsonOk(await call(pennon, 'GET', TAGS)).tags.length, 3)
    await createFlag(pennon, 'checkout')
    assert.deepEqual(await flagTags(pennon, 'checkout'), [])
  })

  test('PUT /projects/:projectId/tags: tags several flags of the project at once; all or none', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'shop')
    for (const name of ['a', 'b', 'c']) await createFlag(pennon, name)
    await createFlag(pennon, 'elsewhere', 'shop')
    await tagFlag(pennon, 'b', 'simple', 'old')
    const mark = await eventMark(pennon)
    assertEmpty(
      await call(pennon, 'PUT', `${projectPath()}/tags`, {
        features: ['b', 'a', 'b'],
        tags: { addedTags: [tag('simple', 'web'), tag('simple', 'old')], removedTags: [tag('simple', 'old')] },
      }),
    )
    assert.deepEqual(fromOneRequest(await mark.since()), [
      event('tag-created', { data: tag('simple', 'web') }),
      event('feature-tagged', { featureName: 'b', data: tag('simple', 'web'), tags: [eventTag('simple', 'web')] }),
      event('feature-tagged', { featureName: 'a', data: tag('simple', 'web'), tags: [eventTag('simple', 'web')] }),
      event('feature-untagged', { featureName: 'b', preData: tag('simple', 'old'), tags: [eventTag('simple', 'web')] }),
    ])
    assert.deepEqual(await flagTags(pennon, 'a'), [colored('simple', 'web')])
    assert.deepEqual(await flagTags(pennon, 'c'), [])

    const nothing = await eventMark(pennon)
    const refused = await call(pennon, 'PUT', `${projectPath()}/tags`, {
      features: ['c', 'elsewhere', 'ghost'],
      tags: { addedTags: [tag('simple', 'new')], removedTags: [] },
    })
    assert.equal(refused.status, 400)
    assert.deepEqual(
      withoutId(refused.body),
      validationError(
        at(
          '/body/features/1',
          'The `/body/features/1` property must name a flag of project "default": flag "elsewhere" is in project "shop".',
        ),
        at('/body/features/2', 'The `/body/features/2` property must name a flag of project "default": flag "ghost" does not exist.'),
      ),
    )
    const badType = await call(pennon, 'PUT', `${projectPath()}/tags`, {
      features: ['c'],
      tags: { addedTags: [tag('team', 'x1')], removedTags: [] },
    })
    assert.deepEqual(
      withoutId(badType.body),
      validationError(
        at('/body/tags/addedTags/0/type', 'The `/body/tags/addedTags/0/type` property must name an existing tag type. You sent "team".'),
      ),
    )
    const unknown = await call(pennon, 'PUT', `${projectPath('ghost')}/tags`, { features: [], tags: { addedTags: [], removedTags: [] } })
    assert.equal(unknown.status, 404)
    assert.deepEqual(withoutId(unknown.body), errorOf('NotFoundError', 'Project "ghost" does not exist.'))
    assert.deepEqual(await nothing.since(), [])
    assert.deepEqual(await flagTags(pennon, 'c'), [])
  })

  test("permissions: Viewers read a flag's tags; tagging needs UPDATE_FEATURE (Editors have it)", async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    const viewer = await serviceAccountToken(pennon, 3)
    const editor = await serviceAccountToken(pennon, 2)
    assert.equal((await call(pennon, 'GET', flagTagsPath('checkout'), undefined, { token: viewer })).status, 200)
    for (const [method, path, body] of [
      ['POST', flagTagsPath('checkout'), tag('simple', 'web')],
      ['PUT', flagTagsPath('checkout'), { addedTags: [], removedTags: [] }],
      ['DELETE', `${flagTagsPath('checkout')}/simple/web`, undefined],
      ['PUT', `${projectPath()}/tags`, { features: [], tags: { addedTags: [], removedTags: [] } }],
    ] as const) {
      const refused = await call(pennon, method, path, body, { token: viewer })
      assert.equal(refused.status, 403, `${method} ${path}`)
      assert.deepEqual(refused.body.permissions, ['UPDATE_FEATURE'])
      const allowed = await call(pennon, method, path, body, { token: editor })
      assert.ok(allowed.status === 200 || allowed.status === 201, `${method} ${path}: ${allowed.status}`)
    }
  })
})
