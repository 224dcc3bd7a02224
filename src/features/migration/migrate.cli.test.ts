/**
 * `npm run migrate` as an operator runs it: a child process between two listening Pennons. The
 * admin tokens come from the environment or from files, never from the command line, and no
 * output prints them: not a success, not a refusal, not a server that refuses a token, is not
 * there, or echoes the token back. `--verify` lists the flags only the target has apart, and says
 * why a run fails.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { allEvents, call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { runCommand } from '../../../test/run-command.ts'
import { main } from '../../cli/migrate.ts'

const migrate = (env: Record<string, string>, args: string[]) => runCommand('src/cli/migrate.ts', env, args)

async function listening(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(pennon.app.server.address() as AddressInfo).port}`
}

const ok = async (response: Promise<{ status: number; text: string }>, status = 200) => {
  const answer = await response
  assert.equal(answer.status, status, answer.text)
}

/** A flag with the default strategy, on in development. */
async function aFlag(pennon: TestApp, name: string): Promise<void> {
  await ok(call(pennon, 'POST', '/api/admin/projects/default/features', { name }), 201)
  await ok(call(pennon, 'POST', `/api/admin/projects/default/features/${name}/environments/development/strategies`, { name: 'default' }))
  await ok(call(pennon, 'POST', `/api/admin/projects/default/features/${name}/environments/development/on`))
}

/** Neither output holds any of the secrets, whole or as its secret part (after `*:*.`). */
function assertNoSecret(result: { stdout: string; stderr: string }, secrets: string[]): void {
  for (const secret of secrets) {
    for (const part of [secret, secret.slice(secret.indexOf('.') + 1)]) {
      assert.ok(!result.stdout.includes(part) && !result.stderr.includes(part), `a secret was printed:\n${result.stdout}\n${result.stderr}`)
    }
  }
}

const USAGE = `usage: MIGRATE_FROM_TOKEN=<admin token> MIGRATE_TO_TOKEN=<admin token> npm run migrate -- --from <source url> --to <pennon url>
         (or --from-token-file <path> and --to-token-file <path>, files holding the tokens)
         [--verify [--environment <name>]… [--contexts <file.json>] [--generated <n>] [--strict]
                   [--from-client-token <env>=<secret>]… [--to-client-token <env>=<secret>]…
                   [--from-frontend-token <env>=<secret>]… [--to-frontend-token <env>=<secret>]…]
`

/** The summary of a run between two fresh Pennons, the source with one flag: its row, and the line after. */
const summary = (flags: string, outcome: string) => `kind                  created  updated  unchanged
environments                0        0          2
projects                    0        0          1
project environments        0        0          2
tag types                   0        0          1
context fields              0        0          5
flags                       ${flags}

${outcome}
API tokens: not migrated. Unleash does not show token secrets through its API. Create the tokens your SDKs need on Pennon (POST /api/admin/api-tokens {tokenName, type, environment, projects}) and give the new secrets to the SDKs: see docs/migration.md.
`

const PROGRESS =
  'migrating environments…\nmigrating projects…\nmigrating tag types, context fields, strategy definitions, segments…\nmigrating flags of project default…\n'

onEachDatabase('npm run migrate: the admin tokens', (database) => {
  test('from MIGRATE_FROM_TOKEN and MIGRATE_TO_TOKEN, or from files: migrated and verified, neither token printed', {
    timeout: 120_000,
  }, async (t) => {
    const [source, target] = [await useTestApp(t, database), await useTestApp(t, database)]
    await aFlag(source, 'shared')
    const [from, to] = [await listening(source), await listening(target)]
    const secrets = [source.adminToken, target.adminToken]

    const first = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken }, [
      '--from',
      from,
      '--to',
      to,
    ])
    assert.equal(first.code, 0, first.stderr)
    assert.equal(first.stdout, summary('1        0          0', 'Migrated.'))
    assert.match(first.stderr, new RegExp(`^${PROGRESS}took \\d+\\.\\d s\\n$`))
    assertNoSecret(first, secrets)

    // Files (as a secret store mounts them: a trailing line break) take the place of the variables.
    const dir = mkdtempSync(join(tmpdir(), 'pennon-migrate-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'from'), `${source.adminToken}\n`, { mode: 0o600 })
    writeFileSync(join(dir, 'to'), `${target.adminToken}\n`, { mode: 0o600 })
    const files = ['--from', from, '--to', to, '--from-token-file', join(dir, 'from'), '--to-token-file', join(dir, 'to')]
    const second = await migrate({}, files)
    assert.equal(second.code, 0, second.stderr)
    assert.equal(second.stdout, summary('0        0          1', 'Nothing changed: the target already had everything.'))
    assertNoSecret(second, secrets)

    const verified = await migrate({}, [...files, '--verify', '--environment', 'development', '--generated', '2'])
    assert.equal(verified.code, 0, verified.stdout + verified.stderr)
    assert.equal(
      verified.stdout,
      'Environments: development; 2 contexts per flag, through the client SDK and the frontend API.\n\nAgreement per flag:\n  100.00%  development shared  (4/4)\n\n' +
        'Agreement: 100.00% of 4 checks (0 differences, 0 known).\nVerification passed.\n',
    )
    assertNoSecret(verified, secrets)
  })

  test('a token on the command line is refused, naming the variables, before anything is sent; the token is not repeated', async (t) => {
    const [source, target] = [await useTestApp(t, database), await useTestApp(t, database)]
    const [from, to] = [await listening(source), await listening(target)]
    const events = (await allEvents(target)).length
    for (const [args, message] of [
      [
        ['--from', from, '--from-token', source.adminToken, '--to', to],
        '--from-token is refused: a token on the command line is visible to every user of this machine (ps) and in logs (npm prints the command). Set MIGRATE_FROM_TOKEN in the environment, or give --from-token-file <path> (a file holding the token).',
      ],
      [
        ['--from', from, '--to', to, `--to-token=${target.adminToken}`],
        '--to-token is refused: a token on the command line is visible to every user of this machine (ps) and in logs (npm prints the command). Set MIGRATE_TO_TOKEN in the environment, or give --to-token-file <path> (a file holding the token).',
      ],
    ] as const) {
      const refused = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken }, [...args])
      assert.deepEqual(refused, { code: 2, stdout: '', stderr: `pennon migrate: ${message}\n${USAGE}` })
    }
    const missing = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: '' }, ['--from', from, '--to', to])
    assert.deepEqual(missing, {
      code: 2,
      stdout: '',
      stderr: `pennon migrate: the target's admin token is required: set MIGRATE_TO_TOKEN, or give --to-token-file <path>\n${USAGE}`,
    })
    const twice = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken }, [
      '--from',
      from,
      '--to',
      to,
      '--to-token-file',
      '/nonexistent',
    ])
    assert.deepEqual(twice, {
      code: 2,
      stdout: '',
      stderr: `pennon migrate: the target's admin token is given twice (MIGRATE_TO_TOKEN and --to-token-file): give one\n${USAGE}`,
    })
    const unreadable = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken }, [
      '--from',
      from,
      '--to',
      to,
      '--to-token-file',
      '/nonexistent/token',
    ])
    assert.deepEqual(unreadable, {
      code: 2,
      stdout: '',
      stderr: `pennon migrate: --to-token-file: cannot read /nonexistent/token (ENOENT)\n${USAGE}`,
    })
    assert.equal((await allEvents(target)).length, events)
  })

  test('a wrong token, a server that is not there, a server that echoes the token: exit 1, what failed and which token to check, no token printed', async (t) => {
    const [source, target] = [await useTestApp(t, database), await useTestApp(t, database)]
    const [from, to] = [await listening(source), await listening(target)]
    const wrong = `${target.adminToken.slice(0, -4)}0000`
    const secrets = [source.adminToken, target.adminToken, wrong]

    const refused = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: wrong }, ['--from', from, '--to', to])
    const answer = /^migrating environments…\npennon migrate: GET (\S+) answered 401: (\{.*\})\n(.*)\n$/.exec(refused.stderr)
    assert.ok(answer, refused.stderr)
    assert.equal(refused.code, 1)
    assert.equal(refused.stdout, '')
    assert.equal(answer[1], `${to}/api/admin/environments`)
    const { id: _id, ...body } = JSON.parse(answer[2]!)
    const message = 'Authentication failed: the token in the Authorization header is unknown, deleted or expired.'
    assert.deepEqual(body, { name: 'AuthenticationRequired', message, details: [{ message }] })
    assert.equal(
      answer[3],
      'The target server refused its admin token: check MIGRATE_TO_TOKEN (or --to-token-file); it must be an admin token of the --to server.',
    )
    assertNoSecret(refused, secrets)

    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`
    closed.close()
    const absent = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken }, [
      '--from',
      from,
      '--to',
      nowhere,
    ])
    assert.deepEqual(absent, {
      code: 1,
      stdout: '',
      stderr: `migrating environments…\npennon migrate: GET ${nowhere}/api/admin/environments failed: connect ECONNREFUSED ${nowhere.slice('http://'.length)}\n`,
    })
    assertNoSecret(absent, secrets)

    // A server (or a proxy before it) that puts the Authorization header it got into its error.
    const echo = createServer((request, response) =>
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: `bad token ${request.headers.authorization}` })),
    )
    echo.listen(0, '127.0.0.1')
    await once(echo, 'listening')
    t.after(() => echo.close())
    const echoing = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`
    const echoed = await migrate({ MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken }, [
      '--from',
      echoing,
      '--to',
      to,
    ])
    assert.deepEqual(echoed, {
      code: 1,
      stdout: '',
      stderr:
        `migrating environments…\npennon migrate: GET ${echoing}/api/admin/environments answered 401: {"message":"bad token [redacted]"}\n` +
        'The source server refused its admin token: check MIGRATE_FROM_TOKEN (or --from-token-file); it must be an admin token of the --from server.\n',
    })
    assertNoSecret(echoed, secrets)
  })
})

/** The command in this process (as the other migration tests run it), the admin tokens in its environment. */
async function verify(cli: { argv: string[]; env: Record<string, string> }, ...more: string[]): Promise<{ code: number; out: string }> {
  let out = ''
  const code = await main(
    [...cli.argv, '--verify', '--environment', 'development', '--generated', '2', ...more],
    cli.env,
    (text) => (out += text),
    () => {},
  )
  return { code, out }
}

const names = (count: number) => Array.from({ length: count }, (_, i) => `only.target-${String(i + 1).padStart(2, '0')}`)

onEachDatabase('npm run migrate --verify: flags only on the target', (database) => {
  test('listed apart (at most 20 named), not compared and not failing the run; --strict fails it, saying why', {
    timeout: 120_000,
  }, async (t) => {
    const [source, target] = [await useTestApp(t, database), await useTestApp(t, database)]
    for (const pennon of [source, target]) await aFlag(pennon, 'shared')
    for (const name of names(22)) await aFlag(target, name)
    const cli = {
      argv: ['--from', await listening(source), '--to', await listening(target)],
      env: { MIGRATE_FROM_TOKEN: source.adminToken, MIGRATE_TO_TOKEN: target.adminToken },
    }

    const listed = [
      '',
      'Flags only on the target (22), not compared, not counted against the agreement:',
      ...names(20).map((name) => `  ${name} (development)`),
      '  … and 2 more',
      '',
      'Agreement: 100.00% of 4 checks (0 differences, 0 known).',
    ].join('\n')
    const head =
      'Environments: development; 2 contexts per flag, through the client SDK and the frontend API.\n\nAgreement per flag:\n  100.00%  development shared  (4/4)\n'
    const verified = await verify(cli)
    assert.deepEqual(verified, {
      code: 0,
      out: `${head}${listed}\nVerification passed: 22 flags only on the target not counted (--strict counts them).\n`,
    })

    const strict = await verify(cli, '--strict')
    assert.deepEqual(strict, {
      code: 1,
      out: `${head}${listed.replace(', not counted against the agreement:', ':')}\nVerification failed: 22 flags are only on the target, counted under --strict.\n`,
    })
  })
})
