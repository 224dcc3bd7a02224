/**
 * What one `/api/client/streaming` connection costs: idle, and with a client that never reads.
 * Pennon as `npm start` runs it (plus `--inspect` on a free port, to read its V8 heap after a full
 * collection) on SQLite, with the 1,000 flags of the SDK benches (seed.ts's flags, sdk-data.ts's
 * three strategies each) and their client token of `development`, STREAMING_HEARTBEAT_MS=1000.
 * This process is every client, over raw sockets to 127.0.0.1 (HTTP/1.1, chunked):
 *
 * 1. BENCH_IDLE_STREAMS (500) streams that read, opened 50 at a time (after four rounds of 50
 *    opened at once and closed): once every one has read its hydration, the server's RSS and V8
 *    heap per stream (against the figures before them, both after a full collection), and the
 *    kernel's socket memory per stream on each side (`ss -tm`: skmem). The heap is the steady
 *    figure; the RSS moves by megabytes between runs with what the allocator keeps of each
 *    batch's hydration buffers (built per batch, ~2.7 MB, freed after), whichever phase it falls in.
 * 2. BENCH_STALLED_STREAMS (100) more, whose clients never read: the same, once the server's
 *    kernel holds what was written to them.
 * 3. Changes pushed to all (every flag switched off, then on, in bulk: a message of about the
 *    hydration's size each), one a second, until the server has cut every stalled stream or 12
 *    changes were made; 20 readers are kept for it (the others closed). Then: how many stalled
 *    streams were cut and readers are still connected, the kernel's figures of what is still
 *    open, and the machine's TCP memory and orphaned sockets (a cut frees the kernel's buffers
 *    at once). The process's figures are not per stream there: the changes' delta history grows
 *    its heap too.
 *
 * On loopback both ends' kernel buffers are on this machine: the server side is the sockets
 * whose local port is Pennon's, the client side those whose peer is. /proc/net/sockstat's TCP
 * memory is the whole machine's (both sides, and anything else running). Takes one to three
 * minutes, most of it seeding; stopped after ten.
 *   node bench/streaming-memory.ts
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createConnection, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { printMarkdownTable, serverMemory, startProcess } from './lib.ts'
import { FLAGS, seedSdkData } from './sdk-data.ts'
import { flagName } from './seed.ts'

const IDLE = Number(process.env.BENCH_IDLE_STREAMS ?? 500)
const STALLED = Number(process.env.BENCH_STALLED_STREAMS ?? 100)
const READERS_KEPT = Math.min(20, IDLE)
const MAX_CHANGES = 12
/** The whole run, seeding included, is stopped past this (the server with it). */
const DEADLINE_MS = 10 * 60_000
const TOKEN = `*:*.${randomBytes(32).toString('hex')}`

interface Client {
  socket: Socket
  /** The client's local port: the server's socket of this stream has it as its peer port. */
  port: number
  bytes: number
  hydrated: Promise<void>
  closed: boolean
}

/** Opens a stream; a reader reads everything (counting it), a stalled client never reads a byte. */
function openStream(port: number, token: string, read: boolean): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    // Before the connection is up: not a byte is read from the kernel, ever.
    if (!read) socket.pause()
    let markHydrated!: () => void
    const client: Client = { socket, port: 0, bytes: 0, hydrated: new Promise((done) => (markHydrated = done)), closed: false }
    // Past the connection, an error (a reset) only closes the socket: the promise is settled by then.
    socket.on('error', reject)
    socket.once('close', () => (client.closed = true))
    socket.once('connect', () => {
      client.port = socket.localPort!
      socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${token}\r\n\r\n`)
      resolve(client)
    })
    if (!read) return
    // The first message is the hydration: it has been read once its end (an empty line) follows its name.
    let tail = ''
    let named = false
    let done = false
    socket.on('data', (chunk: Buffer) => {
      client.bytes += chunk.length
      if (done) return
      const text = tail + chunk.toString('latin1')
      const at = named ? 0 : text.indexOf('event: unleash-connected')
      if (at >= 0) named = true
      if (named && text.indexOf('\n\n', at) >= 0) {
        done = true
        markHydrated()
      }
      tail = text.slice(-32)
    })
  })
}

interface SocketMemory {
  /** skmem: r (receive queue), w (send queue), f (reserved ahead), o and bl: what the socket is charged. */
  receive: number
  send: number
  charged: number
}

/** The kernel's memory of established TCP sockets on one side of Pennon's port (`ss -tm`), by the client's port. */
function kernelSockets(serverPort: number, side: 'server' | 'client'): Map<number, SocketMemory> {
  const filter = side === 'server' ? `( sport = :${serverPort} )` : `( dport = :${serverPort} )`
  const output = execFileSync('ss', ['-tmnH', 'state', 'established', filter], { encoding: 'utf8' })
  const sockets = new Map<number, SocketMemory>()
  for (const match of output.matchAll(/^\d+\s+\d+\s+\S+:(\d+)\s+\S+:(\d+)\s*\n\s*skmem:\(([^)]*)\)/gm)) {
    const fields = Object.fromEntries(match[3]!.split(',').map((field) => [field.replace(/\d+$/, ''), Number(field.match(/\d+$/)![0])]))
    const clientPort = Number(side === 'server' ? match[2] : match[1])
    sockets.set(clientPort, { receive: fields.r!, send: fields.w!, charged: fields.r! + fields.w! + fields.f! + fields.o! + fields.bl! })
  }
  return sockets
}

/** Per stream, the mean of a figure over the given clients' sockets on one side. */
function perStream(sockets: Map<number, SocketMemory>, clients: readonly Client[], figure: keyof SocketMemory): number {
  const found = clients.map((client) => sockets.get(client.port)).filter((memory) => memory !== undefined)
  return found.reduce((sum, memory) => sum + memory[figure], 0) / Math.max(1, found.length)
}

/** The machine's TCP memory (all sockets, both sides), in bytes. */
function tcpMemory(): { bytes: number; orphans: number } {
  const line = readFileSync('/proc/net/sockstat', 'utf8').match(/^TCP: .*$/m)![0]
  return { bytes: Number(line.match(/ mem (\d+)/)![1]) * 4096, orphans: Number(line.match(/ orphan (\d+)/)![1]) }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

async function send(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
  return text === '' ? undefined : JSON.parse(text)
}

async function seed(base: string): Promise<string> {
  let next = 0
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < FLAGS) await send(base, 'POST', '/api/admin/projects/default/features', { name: flagName(next++) })
    }),
  )
  return (await seedSdkData(base, TOKEN)).client
}

/** Waits until the server's kernel holds no more for these streams than a moment ago. */
async function settled(port: number, clients: readonly Client[]): Promise<void> {
  let last = -1
  for (let i = 0; i < 50; i++) {
    await sleep(200)
    const now = perStream(kernelSockets(port, 'server'), clients, 'send')
    if (now === last) return
    last = now
  }
}

const rows: string[][] = []

/** One row: the process's figures per stream against `before` (when they are the streams' alone), the kernel's per open stream; the machine's TCP memory since `tcpBefore`. */
function row(
  label: string,
  port: number,
  clients: readonly Client[],
  tcpBefore: number,
  process?: { before: { rssMb: number; heapMb: number }; after: { rssMb: number; heapMb: number } },
): void {
  const serverSide = kernelSockets(port, 'server')
  const clientSide = kernelSockets(port, 'client')
  const open = clients.filter((client) => serverSide.has(client.port))
  const perClient = (mb: number) => kb((mb * 1024 * 1024) / clients.length)
  rows.push([
    label,
    `${open.length} of ${clients.length}`,
    process ? perClient(process.after.rssMb - process.before.rssMb) : '–',
    process ? perClient(process.after.heapMb - process.before.heapMb) : '–',
    open.length === 0 ? '–' : `${kb(perStream(serverSide, open, 'charged'))} (send queue ${kb(perStream(serverSide, open, 'send'))})`,
    open.length === 0 ? '–' : `${kb(perStream(clientSide, open, 'charged'))} (receive queue ${kb(perStream(clientSide, open, 'receive'))})`,
  ])
  console.log(`[${label}] the machine's TCP memory (/proc/net/sockstat): ${kb(tcpBefore)} before, ${kb(tcpMemory().bytes)} now`)
}

console.log(`Streaming memory: ${IDLE} idle and ${STALLED} stalled streams, node ${process.version}, ${new Date().toISOString()}`)
const dir = mkdtempSync(join(tmpdir(), 'pennon-stream-memory-'))
const server = await startProcess('src/main.ts', {
  DATABASE_FILE: join(dir, 'pennon.sqlite'),
  INIT_ADMIN_API_TOKENS: TOKEN,
  STREAMING_MAX_CONNECTIONS: String(IDLE + STALLED + 100),
  STREAMING_MAX_CONNECTIONS_PER_TOKEN: String(IDLE + STALLED + 100),
  STREAMING_HEARTBEAT_MS: '1000',
  NODE_OPTIONS: '--inspect=127.0.0.1:0',
})
const port = Number(new URL(server.url).port)
const deadline = setTimeout(() => {
  console.error(`stopped: not done within ${DEADLINE_MS / 60_000} minutes`)
  server.child.kill('SIGKILL')
  process.exit(1)
}, DEADLINE_MS)
const all: Client[] = []
try {
  const started = Date.now()
  const token = await seed(server.url)
  const hydration = Buffer.byteLength(await (await fetch(`${server.url}/api/client/delta`, { headers: { authorization: token } })).text())
  console.log(
    `seeded ${FLAGS} flags in ${((Date.now() - started) / 1000).toFixed(0)} s; the hydration (the first message) is ${kb(hydration)}`,
  )

  // Neither code compiled on first use nor the allocator's arenas that sending ~1 MB hydrations
  // to 50 streams at once grows (kept and reused, not per stream) are counted per stream.
  for (let round = 0; round < 4; round++) {
    const warm = await Promise.all(Array.from({ length: 50 }, () => openStream(port, token, true)))
    await Promise.all(warm.map((client) => client.hydrated))
    for (const client of warm) client.socket.destroy()
  }
  await sleep(500)
  const base = await serverMemory(server)
  const tcpBase = tcpMemory().bytes

  const readers: Client[] = []
  for (let i = 0; i < IDLE; i += 50)
    readers.push(...(await Promise.all(Array.from({ length: Math.min(50, IDLE - i) }, () => openStream(port, token, true)))))
  all.push(...readers)
  await Promise.all(readers.map((reader) => reader.hydrated))
  await sleep(1000)
  const withReaders = await serverMemory(server)
  row('idle (reading), after the hydration', port, readers, tcpBase, { before: base, after: withReaders })
  console.log(
    `server RSS ${base.rssMb.toFixed(0)} MB and heap ${base.heapMb.toFixed(0)} MB before the readers, ${withReaders.rssMb.toFixed(0)} and ${withReaders.heapMb.toFixed(0)} MB with them`,
  )
  const tcpReaders = tcpMemory().bytes

  const stalled: Client[] = []
  for (let i = 0; i < STALLED; i += 50)
    stalled.push(...(await Promise.all(Array.from({ length: Math.min(50, STALLED - i) }, () => openStream(port, token, false)))))
  all.push(...stalled)
  await settled(port, stalled)
  const withStalled = await serverMemory(server)
  row('not read, after the hydration', port, stalled, tcpReaders, { before: withReaders, after: withStalled })

  for (const reader of readers.slice(READERS_KEPT)) reader.socket.destroy()
  const kept = readers.slice(0, READERS_KEPT)
  await sleep(500)
  const tcpKept = tcpMemory().bytes
  const readBefore = kept[0]!.bytes
  const names = Array.from({ length: FLAGS }, (_, i) => flagName(i))
  let changes = 0
  const pushStarted = Date.now()
  while (changes < MAX_CHANGES) {
    await send(
      server.url,
      'POST',
      `/api/admin/projects/default/bulk_features/environments/development/${changes % 2 === 0 ? 'off' : 'on'}`,
      { features: names },
    )
    changes++
    await sleep(1000)
    const serverSide = kernelSockets(port, 'server')
    if (!stalled.some((client) => serverSide.has(client.port))) break
  }
  const pushed = kept[0]!.bytes - readBefore
  await sleep(2500)
  const serverSide = kernelSockets(port, 'server')
  const cut = stalled.filter((client) => !serverSide.has(client.port)).length
  const connected = kept.filter((reader) => !reader.closed && serverSide.has(reader.port)).length
  row(`not read, after ${changes} changes (${kb(pushed)} sent to each reader)`, port, stalled, tcpKept)
  console.log(
    `${changes} changes in ${((Date.now() - pushStarted) / 1000).toFixed(1)} s, ${kb(pushed)} read by each reader: ` +
      `${cut} of ${STALLED} streams not read were cut by the server, ${connected} of ${READERS_KEPT} readers still connected; ` +
      `TCP orphans ${tcpMemory().orphans}`,
  )
  console.log(
    `server RSS: ${withStalled.rssMb.toFixed(0)} MB with the streams not read, ${(await serverMemory(server)).rssMb.toFixed(0)} after the changes`,
  )
} finally {
  clearTimeout(deadline)
  for (const client of all) client.socket.destroy()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
console.log()
printMarkdownTable(
  ['streams', 'open', 'server RSS per stream', 'V8 heap per stream', 'server kernel per open stream', 'client kernel per open stream'],
  rows,
)
