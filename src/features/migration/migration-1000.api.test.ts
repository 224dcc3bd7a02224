/**
 * 1,000 flags in two environments from one Pennon to another: the migration chunks its exports and
 * imports, a second run writes nothing, and verify agrees. The times (t.diagnostic) are the figures
 * in docs/migration.md.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { allEvents, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { importFlags } from '../../../test/helpers/export-import.ts'
import { main } from '../../cli/migrate.ts'

const FLAGS = 1000

/** An export document of flags `from`…`to`-1, as Unleash would write it for one environment. */
function generated(from: number, to: number, environment: string) {
  const names = Array.from({ length: to - from }, (_, i) => `bulk.flag-${String(from + i).padStart(4, '0')}`)
  return {
    features: names.map((name, i) => ({
      name,
      type: ['release', 'experiment', 'operational'][i % 3],
      description: `flag ${name}`,
      impressionData: i % 7 === 0,
    })),
    featureStrategies: names.flatMap((name, i) => [
      {
        name: 'flexibleRollout',
        featureName: name,
        title: null,
        parameters: { rollout: String((i * 13) % 101), stickiness: 'userId', groupId: name },
        constraints: i % 4 === 0 ? [{ contextName: 'region', operator: 'IN', values: ['eu', 'us'] }] : [],
        variants:
          i % 5 === 0
            ? [
                { name: 'a', weight: 500, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'A' } },
                { name: 'b', weight: 500, weightType: 'variable', stickiness: 'userId' },
              ]
            : [],
      },
    ]),
    featureEnvironments: names.map((name, i) => ({
      name,
      featureName: name,
      environment,
      enabled: (i + (environment === 'production' ? 1 : 0)) % 3 !== 0,
      variants: [],
    })),
    featureTags: names.filter((_, i) => i % 10 === 0).map((featureName) => ({ featureName, tagType: 'simple', tagValue: 'bulk' })),
    contextFields: [{ name: 'region', legalValues: [{ value: 'eu' }, { value: 'us' }] }],
    tagTypes: [{ name: 'simple', description: 'Used to simplify filtering of features', icon: '#' }],
    segments: [],
    dependencies: [],
  }
}

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const address = pennon.app.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

async function timed(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; seconds: number }> {
  let out = ''
  const started = performance.now()
  const code = await main(
    argv,
    env,
    (text) => (out += text),
    () => {},
  )
  return { code, out, seconds: (performance.now() - started) / 1000 }
}

onEachDatabase('npm run migrate with 1,000 flags', (database) => {
  test('1,000 flags in two environments: migrated, then nothing to do, then verified', { timeout: 600_000 }, async (t) => {
    const source = await useTestApp(t, database)
    const target = await useTestApp(t, database)
    for (const environment of ['development', 'production']) {
      for (let from = 0; from < FLAGS; from += 100) {
        const response = await importFlags(source, { project: 'default', environment, data: generated(from, from + 100, environment) })
        assert.equal(response.status, 200, response.text)
      }
    }
    const cli = ['--from', await listening(source), '--to', await listening(target)]
    const env = { MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken }

    const first = await timed(cli, env)
    assert.equal(first.code, 0, first.out)
    assert.match(first.out, /\nflags\s+1000\s+0\s+0\n/)
    const events = (await allEvents(target)).length
    const second = await timed(cli, env)
    assert.match(second.out, /\nflags\s+0\s+0\s+1000\n/)
    assert.match(second.out, /Nothing changed/)
    assert.equal((await allEvents(target)).length, events)
    const verified = await timed([...cli, '--verify', '--generated', '20'], env)
    assert.equal(verified.code, 0, verified.out.slice(-2000))
    assert.match(verified.out, /Agreement: 100\.00% of 80000 checks \(0 differences, 0 known\)\./)
    t.diagnostic(
      `${database.name}: migrate ${first.seconds.toFixed(1)} s, second run ${second.seconds.toFixed(1)} s, verify (2 environments × 20 contexts, SDK and frontend API) ${verified.seconds.toFixed(1)} s`,
    )
  })
})
