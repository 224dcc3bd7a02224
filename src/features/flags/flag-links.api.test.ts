import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  apiToken,
  call,
  errorOf,
  onEachDatabase,
  serviceAccountToken,
  useTestApp,
  withoutId,
  type TestApp,
} from '../../../test/test-app.ts'
import {
  archive,
  createFlag,
  createProject,
  deleteFlags,
  eventMark,
  flagEvent,
  fromOneRequest,
  getFlag,
  projectPath,
} from '../../../test/helpers/flags.ts'

const linksPath = (flag: string, project = 'default') => `${projectPath(project)}/features/${flag}/link`
const addLink = (pennon: TestApp, flag: string, body: unknown, project = 'default', token?: string) =>
  call(pennon, 'POST', linksPath(flag, project), body, token === undefined ? {} : { token })
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/

/** The links of a flag as its read shows them, ids checked and left out. */
async function linksOf(pennon: TestApp, flag: string): Promise<Array<{ url: string; title: string | null; feature: string }>> {
  const { links } = await getFlag(pennon, flag)
  assert.ok(
    links.every((link: { id: string }) => ULID.test(link.id)),
    JSON.stringify(links),
  )
  return links.map(({ id: _id, ...link }: { id: string }) => link)
}

onEachDatabase('flag links', (database) => {
  test('add, change, remove: 204 with no body; the flag read lists them in the order added; one event each', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'checkout')
    assert.deepEqual((await getFlag(pennon, 'checkout')).links, [])

    const mark = await eventMark(pennon)
    const added = await addLink(pennon, 'checkout', { url: 'https://issues.example.com/PROJ-101', title: 'Rollout ticket' })
    assert.equal(added.status, 204)
    assert.equal(added.text, '')
    assert.equal(added.headers['content-type'], undefined)
    assert.deepEqual(fromOneRequest(await mark.since()), [
      flagEvent('feature-link-added', 'checkout', 'default', { url: 'https://issues.example.com/PROJ-101', title: 'Rollout ticket' }),
    ])
    // No scheme: https, as the reference; white space around it trimmed; no title (or an empty one) is none.
    assert.equal((await addLink(pennon, 'checkout', { url: '  docs.example.com/flags/rollout ' })).status, 204)
    assert.equal((await addLink(pennon, 'checkout', { url: 'http://grafana.example.com/d/1?x=1#p', title: '' })).status, 204)
    assert.equal((await addLink(pennon, 'checkout', { url: 'HTTPS://Example.com', title: null, extra: 'ignored' })).status, 204)
    const { links } = await getFlag(pennon, 'checkout')
    assert.deepEqual(
      links.map(({ id: _id, ...link }: { id: string }) => link),
      [
        { url: 'https://issues.example.com/PROJ-101', title: 'Rollout ticket', feature: 'checkout' },
        { url: 'https://docs.example.com/flags/rollout', title: null, feature: 'checkout' },
        { url: 'http://grafana.example.com/d/1?x=1#p', title: null, feature: 'checkout' },
        { url: 'HTTPS://Example.com', title: null, feature: 'checkout' },
      ],
    )
    assert.deepEqual(
      links.map((link: { id: string }) => link.id),
      links.map((link: { id: string }) => link.id).sort(),
      'ids increase in the order added',
    )
    assert.deepEqual(Object.keys(links[0]), ['id', 'url', 'title', 'feature'])

    const changeMark = await eventMark(pennon)
    const changed = await call(pennon, 'PUT', `${linksPath('checkout')}/${links[1].id}`, {
      url: 'https://docs.example.com/v2',
      title: 'Docs',
    })
    assert.equal(changed.status, 204)
    assert.equal(changed.text, '')
    assert.deepEqual(fromOneRequest(await changeMark.since()), [
      flagEvent(
        'feature-link-updated',
        'checkout',
        'default',
        { url: 'https://docs.example.com/v2', title: 'Docs' },
        { url: 'https://docs.example.com/flags/rollout' },
      ),
    ])
    // The same again: nothing changed, no event.
    const sameMark = await eventMark(pennon)
    assert.equal(
      (await call(pennon, 'PUT', `${linksPath('checkout')}/${links[1].id}`, { url: 'https://docs.example.com/v2', title: 'Docs' })).status,
      204,
    )
    assert.deepEqual(await sameMark.since(), [])

    const removeMark = await eventMark(pennon)
    const removed = await call(pennon, 'DELETE', `${linksPath('checkout')}/${links[0].id}`)
    assert.equal(removed.status, 204)
    assert.equal(removed.text, '')
    assert.deepEqual(fromOneRequest(await removeMark.since()), [
      flagEvent('feature-link-removed', 'checkout', 'default', null, {
        url: 'https://issues.example.com/PROJ-101',
        title: 'Rollout ticket',
      }),
    ])
    assert.deepEqual((await getFlag(pennon, 'checkout')).links, [
      { ...links[1], url: 'https://docs.example.com/v2', title: 'Docs' },
      links[2],
      links[3],
    ])
  })

  test('bad links: 400 naming the property and the rule, nothing written', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'f')
    const mark = await eventMark(pennon)
    // What was sent is quoted, cut after 100 characters (errors.ts, quote()).
    const shown = (sent: string) => (JSON.stringify(sent).length > 100 ? `${JSON.stringify(sent).slice(0, 100)}…` : JSON.stringify(sent))
    const rule = (path: string, text: string, sent: string) => {
      const message = `The \`${path}\` property must be ${text}. You sent ${shown(sent)}.`
      return { name: 'ValidationError', message, details: [{ path, message }] }
    }
    const long = `https://example.com/${'a'.repeat(2029)}`
    for (const [url, text] of [
      ['', 'a web address (http or https), not empty'],
      ['   ', 'a web address (http or https), not empty'],
      ['ftp://files.example.com/a', 'an http or https address'],
      ['javascript:alert(1)', 'an http or https address'],
      ['mailto:a@example.com', 'an http or https address'],
      ['https:example.com', 'an http or https address'],
      ['https://exa mple.com', 'a web address without white space or control characters'],
      ['https://example.com/\u0007', 'a web address without white space or control characters'],
      ['https://', 'a web address (http or https)'],
      [long, 'at most 2048 characters long'],
    ] as const) {
      const response = await addLink(pennon, 'f', { url })
      assert.equal(response.status, 400, url)
      assert.deepEqual(withoutId(response.body), rule('/body/url', text, url), url)
    }
    assert.equal((await addLink(pennon, 'f', { url: long.slice(0, -1) })).status, 204, 'exactly 2048 characters is fine')
    const title = 'x'.repeat(1001)
    const longTitle = await addLink(pennon, 'f', { url: 'https://example.com', title })
    assert.equal(longTitle.status, 400)
    assert.equal(longTitle.body.details[0].path, '/body/title')
    assert.equal(longTitle.body.details[0].message.startsWith('The `/body/title` property must be at most 1000 characters long.'), true)
    // The schema's faults and the rules' together.
    const both = await addLink(pennon, 'f', { url: 'ftp://x', title: 5 })
    assert.equal(both.status, 400)
    assert.deepEqual(both.body.details.map((detail: { path: string }) => detail.path).sort(), ['/body/title', '/body/url'])
    const missing = await addLink(pennon, 'f', { title: 'no url' })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.name, 'ValidationError')
    assert.deepEqual(
      missing.body.details.map((d: { path: string }) => d.path),
      ['/body/url'],
    )
    // A change is checked the same way.
    const [link] = (await getFlag(pennon, 'f')).links
    const badChange = await call(pennon, 'PUT', `${linksPath('f')}/${link.id}`, { url: 'mailto:a@example.com' })
    assert.equal(badChange.status, 400)
    assert.deepEqual(
      badChange.body.details.map((d: { path: string }) => d.path),
      ['/body/url'],
    )
    assert.deepEqual(
      (await mark.since()).map((event) => event.type),
      ['feature-link-added'],
    )
  })

  test('unknown project, flag or link, another flag’s link: 404; an archived flag: 400; both change nothing', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'other')
    await createFlag(pennon, 'mine')
    await createFlag(pennon, 'theirs', 'other')
    assert.equal((await addLink(pennon, 'mine', { url: 'https://a.example.com' })).status, 204)
    assert.equal((await addLink(pennon, 'theirs', { url: 'https://b.example.com' }, 'other')).status, 204)
    const [mine] = (await getFlag(pennon, 'mine')).links
    const [theirs] = (await getFlag(pennon, 'theirs', 'other')).links
    const mark = await eventMark(pennon)
    const body = { url: 'https://c.example.com' }
    const cases: Array<[string, Promise<Awaited<ReturnType<typeof call>>>, string]> = [
      [
        'POST ghost project',
        addLink(pennon, 'mine', body, 'ghost'),
        `There's no flag named "mine" in project "ghost", but there is one in project "default".`,
      ],
      ['POST ghost flag', addLink(pennon, 'ghost', body), `There's no flag named "ghost" in project "default".`],
      [
        'POST wrong project',
        addLink(pennon, 'theirs', body),
        `There's no flag named "theirs" in project "default", but there is one in project "other".`,
      ],
      [
        'PUT ghost link',
        call(pennon, 'PUT', `${linksPath('mine')}/01ZZZZZZZZZZZZZZZZZZZZZZZZ`, body),
        `Flag "mine" has no link with id "01ZZZZZZZZZZZZZZZZZZZZZZZZ".`,
      ],
      [
        'PUT another flag’s link',
        call(pennon, 'PUT', `${linksPath('mine')}/${theirs.id}`, body),
        `Flag "mine" has no link with id "${theirs.id}".`,
      ],
      [
        'PUT wrong project',
        call(pennon, 'PUT', `${linksPath('mine', 'other')}/${mine.id}`, body),
        `There's no flag named "mine" in project "other", but there is one in project "default".`,
      ],
      ['DELETE ghost link', call(pennon, 'DELETE', `${linksPath('mine')}/nope`), `Flag "mine" has no link with id "nope".`],
      [
        'DELETE ghost flag',
        call(pennon, 'DELETE', `${linksPath('ghost')}/${mine.id}`),
        `There's no flag named "ghost" in project "default".`,
      ],
    ]
    for (const [what, pending, message] of cases) {
      const response = await pending
      assert.equal(response.status, 404, what)
      assert.deepEqual(withoutId(response.body), errorOf('NotFoundError', message), what)
    }

    assert.deepEqual(await mark.since(), [])
    assert.equal((await archive(pennon, ['mine'])).status, 202)
    const archivedMark = await eventMark(pennon)
    // An archived flag keeps its links, and shows them; they do not change until it is revived.
    assert.deepEqual((await getFlag(pennon, 'mine')).links, [mine])
    const archivedMessage = 'Flag "mine" is archived: revive it before changing it.'
    for (const pending of [
      addLink(pennon, 'mine', body),
      call(pennon, 'PUT', `${linksPath('mine')}/${mine.id}`, body),
      call(pennon, 'DELETE', `${linksPath('mine')}/${mine.id}`),
    ]) {
      const response = await pending
      assert.equal(response.status, 400)
      assert.deepEqual(withoutId(response.body), errorOf('ArchivedFeatureError', archivedMessage))
    }
    assert.deepEqual(await archivedMark.since(), [])
    assert.deepEqual((await getFlag(pennon, 'mine')).links, [mine])
    assert.deepEqual((await getFlag(pennon, 'theirs', 'other')).links, [theirs])
  })

  test('a flag deleted for good takes its links along', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'gone')
    await createFlag(pennon, 'kept')
    assert.equal((await addLink(pennon, 'gone', { url: 'https://a.example.com' })).status, 204)
    assert.equal((await addLink(pennon, 'kept', { url: 'https://b.example.com' })).status, 204)
    assert.equal((await archive(pennon, ['gone'])).status, 202)
    assert.equal((await deleteFlags(pennon, ['gone'])).status, 200)
    const rows = await pennon.database.db.selectFrom('feature_links').select(['feature_name', 'url']).execute()
    assert.deepEqual(rows, [{ feature_name: 'kept', url: 'https://b.example.com' }])
    // A flag of the same name made again starts without links.
    await createFlag(pennon, 'gone')
    assert.deepEqual((await getFlag(pennon, 'gone')).links, [])
  })

  test('at most 10 links per flag: the 11th is a 400 ExceedsLimitError', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'busy')
    for (let i = 0; i < 10; i++) assert.equal((await addLink(pennon, 'busy', { url: `https://example.com/${i}` })).status, 204)
    const mark = await eventMark(pennon)
    const eleventh = await addLink(pennon, 'busy', { url: 'https://example.com/10' })
    assert.equal(eleventh.status, 400)
    assert.deepEqual(
      withoutId(eleventh.body),
      errorOf('ExceedsLimitError', 'Flag "busy" would have more than 10 links, the most a flag can have.'),
    )
    assert.deepEqual(await mark.since(), [])
    assert.deepEqual(
      (await linksOf(pennon, 'busy')).map((link) => link.url),
      Array.from({ length: 10 }, (_, i) => `https://example.com/${i}`),
    )
  })

  test('permissions: UPDATE_FEATURE (an editor may; a viewer or a client token may not)', async (t) => {
    const pennon = await useTestApp(t, database)
    await createFlag(pennon, 'f')
    const editor = await serviceAccountToken(pennon, 2, 'editor-account')
    const viewer = await serviceAccountToken(pennon, 3)
    const client = await apiToken(pennon, 'client')
    assert.equal((await addLink(pennon, 'f', { url: 'https://example.com' }, 'default', editor)).status, 204)
    const [link] = (await getFlag(pennon, 'f')).links
    const needs = errorOf('NoAccessError', 'Missing permission: this operation needs "UPDATE_FEATURE".', {
      permissions: ['UPDATE_FEATURE'],
    })
    for (const token of [viewer, client]) {
      for (const response of [
        await addLink(pennon, 'f', { url: 'https://example.com/2' }, 'default', token),
        await call(pennon, 'PUT', `${linksPath('f')}/${link.id}`, { url: 'https://example.com/3' }, { token }),
        await call(pennon, 'DELETE', `${linksPath('f')}/${link.id}`, undefined, { token }),
      ]) {
        assert.equal(response.status, 403)
        assert.deepEqual(withoutId(response.body), needs)
      }
    }
    assert.equal(
      (await call(pennon, 'PUT', `${linksPath('f')}/${link.id}`, { url: 'https://example.com/4' }, { token: editor })).status,
      204,
    )
    assert.equal((await call(pennon, 'DELETE', `${linksPath('f')}/${link.id}`, undefined, { token: editor })).status, 204)
    assert.deepEqual((await getFlag(pennon, 'f')).links, [])
  })
})
