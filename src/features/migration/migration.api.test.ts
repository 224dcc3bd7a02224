/**
 * `npm run migrate` between two listening Pennons (Pennon's admin API is Unleash's, so a Pennon
 * stands in for the source): everything arrives, a second run writes nothing and says so, the
 * target serves what the source serves (`--verify`, with the real unleash-client), and a
 * difference is found and named.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import {
  byName,
  clientFeatures,
  comparable,
  exportFlags,
  fixture,
  importFlags,
  prepareTarget,
} from '../../../test/helpers/export-import.ts'
import { main } from '../../cli/migrate.ts'

/** The command in this process, the admin tokens in its environment (`cli`: as `args` makes it). */
async function run({ argv, env }: { argv: string[]; env: Record<string, string> }): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(
    argv,
    env,
    (t) => (out += t),
    (t) => (err += t),
  )
  return { code, out, err }
}

const ok = async (response: Promise<{ status: number; text: string }>, status = 200) => {
  const answer = await response
  assert.equal(answer.status, status, answer.text)
}

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const address = pennon.app.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

/** The fixtures' Unleash state, a second project with one environment, and archived flags. */
async function aSource(t: Parameters<typeof useTestApp>[0], database: Parameters<typeof useTestApp>[1]): Promise<TestApp> {
  const source = await useTestApp(t, database)
  await prepareTarget(source)
  for (const environment of ['development', 'production'])
    await ok(importFlags(source, { project: 'default', environment, data: fixture(`export-${environment}.json`) }))
  await ok(call(source, 'POST', '/api/admin/projects', { id: 'team-b', name: 'Team B', description: 'the other team' }), 201)
  await ok(call(source, 'DELETE', '/api/admin/projects/team-b/environments/production'))
  await ok(
    call(source, 'POST', '/api/admin/projects/team-b/features', { name: 'b.search', type: 'experiment', description: 'search' }),
    201,
  )
  await ok(
    call(source, 'POST', '/api/admin/projects/team-b/features/b.search/environments/development/strategies', {
      name: 'flexibleRollout',
      parameters: { rollout: '40', stickiness: 'userId', groupId: 'b' },
    }),
  )
  await ok(call(source, 'POST', '/api/admin/projects/team-b/features/b.search/environments/development/on'))
  await ok(call(source, 'POST', '/api/admin/projects/default/features', { name: 'old.gone', type: 'release' }), 201)
  await ok(call(source, 'POST', '/api/admin/features/old.gone/tags', { type: 'simple', value: 'legacy' }), 201)
  await ok(call(source, 'DELETE', '/api/admin/projects/default/features/old.gone'), 202)
  return source
}

const args = (source: string, sourceToken: string, target: string, targetToken: string) => ({
  argv: ['--from', source, '--to', target],
  env: { MIGRATE_FROM_TOKEN: sourceToken, MIGRATE_TO_TOKEN: targetToken },
})
const plus = (cli: ReturnType<typeof args>, ...more: string[]) => ({ ...cli, argv: [...cli.argv, ...more] })

const summaryRow = (out: string, kind: string) => {
  const line = out.split('\n').find((l) => l.startsWith(`${kind}  `) || l.startsWith(`${kind} `))
  assert.ok(line, `no summary row for ${kind} in\n${out}`)
  return line.slice(kind.length).trim().split(/\s+/).map(Number)
}

onEachDatabase('npm run migrate between Pennons', (database) => {
  test('everything arrives, the same flags are served, a second run changes nothing and says so, verify agrees', {
    timeout: 120_000,
  }, async (t) => {
    const source = await aSource(t, database)
    const target = await useTestApp(t, database)
    const [from, to] = [await listening(source), await listening(target)]
    const cli = args(from, source.adminToken, to, target.adminToken)

    const first = await run(cli)
    assert.equal(first.code, 0, first.err)
    assert.deepEqual(summaryRow(first.out, 'projects'), [1, 0, 1])
    assert.deepEqual(summaryRow(first.out, 'flags'), [41, 0, 0])
    assert.deepEqual(summaryRow(first.out, 'archived flags'), [1, 0, 0])
    assert.deepEqual(summaryRow(first.out, 'segments'), [8, 0, 0])
    assert.deepEqual(summaryRow(first.out, 'strategy definitions'), [2, 0, 0])
    assert.match(first.out, /Migrated\.\nAPI tokens: not migrated/)

    for (const environment of ['development', 'production']) {
      const [want, have] = [byName(await clientFeatures(source, environment)), byName(await clientFeatures(target, environment))]
      assert.deepEqual([...have.keys()].sort(), [...want.keys()].sort())
      for (const [name, flag] of want) assert.deepEqual(comparable(have.get(name)), comparable(flag), name)
    }
    const project = await call(target, 'GET', '/api/admin/environments/project/team-b')
    assert.deepEqual(
      project.body.environments.filter((e: any) => e.visible).map((e: any) => e.name),
      ['development'],
    )
    const archived = await call(target, 'GET', '/api/admin/projects/default/features?archived=true&limit=10')
    assert.deepEqual(
      archived.body.features.map((f: any) => f.name),
      ['old.gone'],
    )
    assert.deepEqual(
      (await call(target, 'GET', '/api/admin/features/old.gone/tags')).body,
      (await call(source, 'GET', '/api/admin/features/old.gone/tags')).body,
    )

    const events = (await allEvents(target)).length
    const second = await run(cli)
    assert.equal(second.code, 0, second.err)
    assert.match(second.out, /Nothing changed: the target already had everything\./)
    assert.deepEqual(summaryRow(second.out, 'flags'), [0, 0, 41])
    assert.equal((await allEvents(target)).length, events, 'a second run writes no event')

    const verified = await run(plus(cli, '--verify', '--generated', '20'))
    assert.equal(verified.code, 0, verified.out + verified.err)
    assert.match(
      verified.out,
      /Agreement: 100\.00% of \d+ checks \(0 differences, (\d+) known\)\.\nVerification passed: \1 known differences not counted \(--strict counts them\)\.\n$/,
    )
    assert.match(verified.out, /100\.00% {2}development release\.checkout-01 /)
    // The verification's tokens are gone again.
    assert.deepEqual(
      (await call(target, 'GET', '/api/admin/api-tokens')).body.tokens.filter((token: any) => token.tokenName.startsWith('pennon-verify')),
      [],
    )
  })

  test('changes on the source after a migration: only they are written; a difference on the target is found and named', {
    timeout: 120_000,
  }, async (t) => {
    const source = await aSource(t, database)
    const target = await useTestApp(t, database)
    const [from, to] = [await listening(source), await listening(target)]
    const cli = args(from, source.adminToken, to, target.adminToken)
    assert.equal((await run(cli)).code, 0)

    await ok(call(source, 'DELETE', '/api/admin/projects/default/features/operational.onboarding-03/dependencies'))
    await ok(call(source, 'PUT', '/api/admin/projects/default/features/release.checkout-01', { description: 'new words', type: 'release' }))
    await ok(call(source, 'POST', '/api/admin/projects/default/features/permission.checkout-25/environments/production/off'))
    await ok(call(source, 'DELETE', '/api/admin/projects/team-b/features/b.search'), 202)
    const again = await run(cli)
    assert.equal(again.code, 0, again.err)
    assert.deepEqual(summaryRow(again.out, 'flags'), [0, 3, 37])
    assert.deepEqual(summaryRow(again.out, 'archived flags'), [0, 1, 1])
    assert.deepEqual(
      (await exportFlags(target, { environment: 'development', features: ['operational.onboarding-03'] })).body.dependencies,
      [],
    )

    // A change made on the target alone: verify names the flag, the API and the context, and fails.
    await ok(call(target, 'POST', '/api/admin/projects/default/features/release.checkout-01/environments/development/off'))
    const verified = await run(plus(cli, '--verify', '--environment', 'development', '--generated', '5'))
    assert.equal(verified.code, 1, verified.out)
    assert.match(
      verified.out,
      /\[development\] client SDK release\.checkout-01 for \{"userId":"user-1","sessionId":"session-1",.*: source \{"enabled":true,.*, target \{"enabled":false,/,
    )
    assert.match(
      verified.out,
      /\[development\] frontend API release\.checkout-01 for \{"userId":"user-2",.*: source \{"enabled":true,.*, target not listed\n/,
    )
    assert.doesNotMatch(verified.out, /Agreement: 100\.00%/)
    // The last line says why it failed.
    const differences = /\nDifferences \((\d+)\):\n/.exec(verified.out)?.[1]
    assert.ok(verified.out.endsWith(`\nVerification failed: ${differences} checks differ (listed under "Differences").\n`), verified.out)
  })
})
