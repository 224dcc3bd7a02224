/**
 * The SDK snippets of the README and of docs/client-api.md, run as a reader would run them: saved
 * in a fresh folder of a default `npm init -y` project (CommonJS: its package.json names no
 * "type"), with the SDK installed there, against a real Pennon listening on 127.0.0.1.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'node:test'
import { call, onEachDatabase, useTestApp, type TestApp } from './test-app.ts'

/** The documents whose snippets are marked `<!-- README test: <file> … -->`, and the files this test runs. */
const DOCUMENTS = ['README.md', 'docs/client-api.md'].map((path) => ({
  path,
  text: readFileSync(new URL(`../${path}`, import.meta.url), 'utf8'),
}))
const SNIPPETS = ['app.js', 'app-streaming.js', 'web.mjs', 'openfeature.js']
const NODE_MODULES = new URL('../node_modules/', import.meta.url)

/** The fenced block right after the `<!-- README test: <file> … -->` marker, in whichever document has it. */
function snippet(file: string): string {
  const marked = DOCUMENTS.flatMap(({ text }) => {
    const marker = text.indexOf(`<!-- README test: ${file} `)
    return marker >= 0 ? [text.slice(marker)] : []
  })
  assert.equal(marked.length, 1, `one document marks the snippet ${file}`)
  const block = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(marked[0]!)
  assert.ok(block, `no code block after the marker of ${file}`)
  return block[1]!
}

/** Replaces each placeholder, which must occur exactly once (a change of the document breaks this loudly). */
function fillIn(code: string, values: Record<string, string>): string {
  for (const [placeholder, value] of Object.entries(values)) {
    assert.equal(code.split(placeholder).length - 1, 1, `the snippet names ${placeholder} once`)
    code = code.replace(placeholder, () => value)
  }
  return code
}

/**
 * A folder as `npm init -y` and `npm install <packages>` leave it: the default package.json
 * (npm 11 writes `"type": "commonjs"`, npm 10 no "type": `.js` files are CommonJS either way),
 * each package under node_modules (linked from Pennon's own, which has them as development
 * dependencies).
 */
function projectFolder(t: { after(fn: () => void): void }, packages: string[], npm: 10 | 11 = 11): string {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-readme-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: basename(dir).toLowerCase(),
        version: '1.0.0',
        main: 'index.js',
        scripts: { test: 'echo "Error: no test specified" && exit 1' },
        keywords: [],
        author: '',
        license: 'ISC',
        ...(npm === 11 ? { type: 'commonjs' } : {}),
        description: '',
      },
      null,
      2,
    )}\n`,
  )
  mkdirSync(join(dir, 'node_modules'))
  for (const name of packages) {
    const link = join(dir, 'node_modules', name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(realpathSync(new URL(name, NODE_MODULES)), link, 'dir')
  }
  return dir
}

/**
 * `node <file>` in `dir`, its output read line by line: `next()` is the next line printed.
 * The program polls forever, as an application does: it is stopped when the test ends.
 */
function run(t: { after(fn: () => void): void }, dir: string, file: string) {
  // A clean environment: the SDK's backup file goes to the folder, nothing of the test runner's leaks in.
  const child = spawn(process.execPath, [file], { cwd: dir, env: { PATH: process.env.PATH ?? '', TMPDIR: dir, HOME: dir } })
  t.after(() => {
    child.kill()
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    async next(): Promise<string> {
      const line = await lines.next()
      assert.ok(!line.done, `${file} ended without printing more: ${stderr}`)
      return line.value
    },
    stderr: () => stderr,
  }
}

/** What the documents' curl commands do before a snippet: the flag, a production client or frontend token, the switch on. */
async function prepare(pennon: TestApp, type: 'client' | 'frontend'): Promise<string> {
  const flag = await call(pennon, 'POST', '/api/admin/projects/default/features', { name: 'new-checkout' })
  assert.ok(flag.status === 201 || flag.status === 409, flag.text)
  const token = await call(pennon, 'POST', '/api/admin/api-tokens', {
    tokenName: type === 'client' ? 'shop' : 'shop-web',
    type,
    environment: 'production',
  })
  assert.equal(token.status, 201, token.text)
  assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features/new-checkout/environments/production/on')).status, 200)
  return token.body.secret
}

async function listen(pennon: TestApp): Promise<string> {
  await pennon.app.listen({ port: 0, host: '127.0.0.1' })
  const address = pennon.app.server.address()
  assert.ok(address && typeof address === 'object')
  return `http://127.0.0.1:${address.port}`
}

test('every snippet the documents mark is one this file runs', () => {
  const marked = DOCUMENTS.flatMap(({ text }) => [...text.matchAll(/<!-- README test: (\S+) /g)].map((match) => match[1]!))
  assert.deepEqual(marked.sort(), [...SNIPPETS].sort())
})

onEachDatabase('README', (database) => {
  // The SDK asks every 15 s by default: seeing the switch off takes up to one interval.
  test('the Node SDK snippet, saved as app.js in a default npm project, prints the flag, then its change', {
    timeout: 60_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listen(pennon)
    const secret = await prepare(pennon, 'client')
    const code = fillIn(snippet('app.js'), { 'http://127.0.0.1:4242/api/': `${base}/api/`, '<client token secret>': secret })
    const apps = ([10, 11] as const).map((npm) => {
      const dir = projectFolder(t, ['unleash-client'], npm)
      writeFileSync(join(dir, 'app.js'), code)
      return run(t, dir, 'app.js')
    })
    for (const app of apps) assert.equal(await app.next(), 'new-checkout is on for user 42')
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features/new-checkout/environments/production/off')).status, 200)
    for (const app of apps) {
      assert.equal(await app.next(), 'new-checkout is off for user 42')
      assert.equal(app.stderr(), '')
    }
  })

  test("the streaming snippet, saved as app-streaming.js, prints the flag, then its change before the SDK's next poll", {
    timeout: 60_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listen(pennon)
    const secret = await prepare(pennon, 'client')
    const dir = projectFolder(t, ['unleash-client'])
    writeFileSync(
      join(dir, 'app-streaming.js'),
      fillIn(snippet('app-streaming.js'), { 'http://127.0.0.1:4242/api/': `${base}/api/`, '<client token secret>': secret }),
    )
    const app = run(t, dir, 'app-streaming.js')
    assert.equal(await app.next(), 'new-checkout is on for user 42')
    const switched = performance.now()
    assert.equal((await call(pennon, 'POST', '/api/admin/projects/default/features/new-checkout/environments/production/off')).status, 200)
    assert.equal(await app.next(), 'new-checkout is off for user 42')
    const took = performance.now() - switched
    // The SDK's next poll would be 15 s away: printed sooner, the change came by the stream.
    assert.ok(took < 10_000, `the change was printed after ${took} ms`)
    t.diagnostic(`the change was printed after ${Math.round(took)} ms`)
    assert.equal(app.stderr(), '')
  })

  test("the frontend API's answer docs/client-api.md shows, and the browser SDK snippet with a frontend token", {
    timeout: 60_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listen(pennon)
    const secret = await prepare(pennon, 'frontend')
    const shown = /^# (\{"toggles".*\})$/m.exec(DOCUMENTS.find(({ path }) => path === 'docs/client-api.md')!.text)
    assert.ok(shown, 'docs/client-api.md shows an answer of the frontend API')
    const answer = await call(pennon, 'GET', '/api/frontend?userId=42', undefined, { token: secret })
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.body, JSON.parse(shown[1]!))
    const dir = projectFolder(t, ['unleash-proxy-client'])
    // An ES module, as a bundler or a <script type="module"> takes it: .mjs under Node.
    writeFileSync(
      join(dir, 'web.mjs'),
      fillIn(snippet('web.mjs'), { 'http://127.0.0.1:4242/api/frontend': `${base}/api/frontend`, '<frontend token secret>': secret }),
    )
    const web = run(t, dir, 'web.mjs')
    assert.equal(await web.next(), 'new-checkout is on for user 42')
    assert.equal(web.stderr(), '')
  })

  test('the OpenFeature snippet, saved as openfeature.js with the server SDK and the OFREP provider, prints the flag', {
    timeout: 60_000,
  }, async (t) => {
    const pennon = await useTestApp(t, database)
    const base = await listen(pennon)
    const secret = await prepare(pennon, 'client')
    const dir = projectFolder(t, ['@openfeature/server-sdk', '@openfeature/ofrep-provider'])
    writeFileSync(
      join(dir, 'openfeature.js'),
      fillIn(snippet('openfeature.js'), { 'http://127.0.0.1:4242': base, '<client token secret>': secret }),
    )
    const app = run(t, dir, 'openfeature.js')
    assert.equal(await app.next(), 'new-checkout is on for user 42')
    assert.equal(app.stderr(), '')
  })
})
