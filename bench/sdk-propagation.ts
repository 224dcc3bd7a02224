/**
 * How long a switch takes to reach an application: the README's Node SDK snippet (app.js,
 * unleash-client with its defaults: a poll every 15 s) runs against Pennon listening on
 * 127.0.0.1 on a temporary SQLite file; the flag is switched BENCH_SWITCHES times (default 20),
 * each at a random moment, and the time until the snippet prints the new state is measured.
 * It includes the snippet's own check, once a second.
 *   node bench/sdk-propagation.ts
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { median, startProcess } from './lib.ts'

const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 20)
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

const dir = mkdtempSync(join(tmpdir(), 'pennon-propagation-'))
const server = await startProcess('src/main.ts', { INIT_ADMIN_API_TOKENS: TOKEN, DATABASE_FILE: join(dir, 'pennon.sqlite') })
const admin = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}/api/admin${path}`, {
    method,
    headers: { authorization: TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.status === 200 || response.status === 201 ? response.text() : ''
}
const switchTo = (on: boolean) => admin('POST', `/projects/default/features/new-checkout/environments/production/${on ? 'on' : 'off'}`)

await admin('POST', '/projects/default/features', { name: 'new-checkout' })
const { secret } = JSON.parse(await admin('POST', '/api-tokens', { tokenName: 'shop', type: 'client', environment: 'production' }))
await switchTo(true)

// The snippet as the README shows it, in a CommonJS project with unleash-client installed.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const snippet = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(readme.slice(readme.indexOf('<!-- README test: app.js ')))![1]!
const app = join(dir, 'app')
mkdirSync(join(app, 'node_modules'), { recursive: true })
writeFileSync(join(app, 'package.json'), '{"name":"app","version":"1.0.0","type":"commonjs"}\n')
symlinkSync(realpathSync(new URL('../node_modules/unleash-client', import.meta.url)), join(app, 'node_modules', 'unleash-client'), 'dir')
writeFileSync(
  join(app, 'app.js'),
  snippet.replace('http://127.0.0.1:4242/api/', `${server.url}/api/`).replace('<client token secret>', secret),
)
const child = spawn(process.execPath, ['app.js'], { cwd: app, env: { PATH: process.env.PATH ?? '', TMPDIR: app } })
const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
const nextLine = async () => String((await lines.next()).value)

try {
  console.log(await nextLine())
  const delays: number[] = []
  let on = true
  for (let i = 0; i < SWITCHES; i++) {
    await sleep(Math.random() * 15_000)
    on = !on
    const started = performance.now()
    await switchTo(on)
    const line = await nextLine()
    delays.push((performance.now() - started) / 1000)
    console.log(`${line}: ${delays.at(-1)!.toFixed(1)} s after the switch`)
  }
  const mean = delays.reduce((sum, delay) => sum + delay, 0) / delays.length
  console.log(
    `${SWITCHES} switches: mean ${mean.toFixed(1)} s, median ${median(delays).toFixed(1)} s, min ${Math.min(...delays).toFixed(1)} s, max ${Math.max(...delays).toFixed(1)} s`,
  )
} finally {
  child.kill()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
