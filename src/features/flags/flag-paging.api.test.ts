import assert from 'node:assert/strict'
import { test } from 'node:test'
import { call, onEachDatabase, useTestApp, withoutId } from '../../../test/test-app.ts'
import { archive, createFlag, createProject, projectPath } from '../../../test/helpers/flags.ts'

const names = (body: { features: Array<{ name: string }> }) => body.features.map((flag) => flag.name)

onEachDatabase('flag list paging', (database) => {
  test('without paging parameters the answer is every active flag, as before (other parameters are ignored)', async (t) => {
    const pennon = await useTestApp(t, database)
    for (const name of ['b-flag', 'a-flag']) await createFlag(pennon, name)
    const plain = await call(pennon, 'GET', `${projectPath()}/features`)
    const ignored = await call(pennon, 'GET', `${projectPath()}/features?foo=1`)
    assert.equal(plain.status, 200)
    assert.deepEqual(Object.keys(plain.body), ['version', 'features'])
    assert.deepEqual(names(plain.body), ['a-flag', 'b-flag'])
    assert.equal(ignored.text, plain.text)
  })

  test('offset and limit page the flags by name, with the total over every page', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'paged')
    for (let i = 0; i < 12; i++) await createFlag(pennon, `flag-${String(i).padStart(2, '0')}`, 'paged')
    const first = await call(pennon, 'GET', `${projectPath('paged')}/features?limit=5`)
    assert.equal(first.status, 200)
    assert.deepEqual(Object.keys(first.body), ['version', 'features', 'total'])
    assert.deepEqual(names(first.body), ['flag-00', 'flag-01', 'flag-02', 'flag-03', 'flag-04'])
    assert.equal(first.body.total, 12)
    const last = await call(pennon, 'GET', `${projectPath('paged')}/features?limit=5&offset=10`)
    assert.deepEqual(names(last.body), ['flag-10', 'flag-11'])
    assert.equal(last.body.total, 12)
    const beyond = await call(pennon, 'GET', `${projectPath('paged')}/features?offset=50`)
    assert.deepEqual(beyond.body, { version: 1, features: [], total: 12 })
  })

  test('query keeps the names containing it in any case; the total counts the matches', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'search')
    for (const name of ['checkout-v1', 'Checkout-v2', 'search-box', 'new_checkout', '100%_done'])
      await createFlag(pennon, encodeURIComponent(name) === name ? name : 'x', 'search')
    const found = await call(pennon, 'GET', `${projectPath('search')}/features?query=CHECKOUT`)
    assert.deepEqual(names(found.body), ['Checkout-v2', 'checkout-v1', 'new_checkout'])
    assert.equal(found.body.total, 3)
    // Characters LIKE would treat as wildcards are plain text here.
    const literal = await call(pennon, 'GET', `${projectPath('search')}/features?query=${encodeURIComponent('_')}`)
    assert.deepEqual(names(literal.body), ['new_checkout'])
  })

  test('sortBy name, type or createdAt, ascending or descending; ties by name', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'sorted')
    await createFlag(pennon, 'b', 'sorted', { type: 'release' })
    await createFlag(pennon, 'a', 'sorted', { type: 'experiment' })
    await createFlag(pennon, 'c', 'sorted', { type: 'experiment' })
    const get = async (query: string) => names((await call(pennon, 'GET', `${projectPath('sorted')}/features?${query}`)).body)
    assert.deepEqual(await get('sortBy=name&sortOrder=desc'), ['c', 'b', 'a'])
    assert.deepEqual(await get('sortBy=type'), ['a', 'c', 'b'])
    assert.deepEqual(await get('sortBy=createdAt'), ['b', 'a', 'c'])
    assert.deepEqual(await get('sortBy=createdAt&sortOrder=desc'), ['c', 'a', 'b'])
  })

  test('archived=true pages the archived flags instead', async (t) => {
    const pennon = await useTestApp(t, database)
    await createProject(pennon, 'arch')
    for (const name of ['kept', 'gone-1', 'gone-2']) await createFlag(pennon, name, 'arch')
    assert.equal((await archive(pennon, ['gone-1', 'gone-2'], 'arch')).status, 202)
    const archived = await call(pennon, 'GET', `${projectPath('arch')}/features?archived=true`)
    assert.deepEqual(names(archived.body), ['gone-1', 'gone-2'])
    assert.equal(archived.body.features[0].archived, true)
    const active = await call(pennon, 'GET', `${projectPath('arch')}/features?archived=false`)
    assert.deepEqual(names(active.body), ['kept'])
  })

  test('bad paging parameters are 400s naming the parameter; an unknown project is a 404', async (t) => {
    const pennon = await useTestApp(t, database)
    const limit = await call(pennon, 'GET', `${projectPath()}/features?limit=0`)
    assert.equal(limit.status, 400)
    assert.deepEqual(withoutId(limit.body).details, [
      { path: '/query/limit', message: 'The `/query/limit` parameter must be a whole number from 1 to 1000. You sent "0".' },
    ])
    assert.equal((await call(pennon, 'GET', `${projectPath()}/features?offset=-1`)).status, 400)
    const sort = await call(pennon, 'GET', `${projectPath()}/features?sortBy=stale`)
    assert.equal(sort.status, 400)
    assert.match(sort.body.message, /sortBy/)
    assert.equal((await call(pennon, 'GET', `${projectPath('nope')}/features?limit=5`)).status, 404)
  })
})
