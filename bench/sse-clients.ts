/**
 * The load generator of bench/streaming-fanout.ts: one child process holding a share of the
 * `/api/client/streaming` connections, over raw sockets (HTTP/1.1, chunked), reading the
 * server-sent events as an SDK does — the state each stream holds (its last `id:`), and whether
 * the watched flag is on in it. Told what to do over the IPC channel; times are reported as
 * `performance.timeOrigin + performance.now()` (milliseconds since the epoch, sub-millisecond),
 * which the parent reads the same way.
 *
 * With `reconnect`, a stream that ends or cannot be opened is opened again as the Node SDK's
 * EventSource does (unleash-client: 2 s initial delay, jitter ratio 0.5, doubling up to 30 s,
 * reset once a stream is up), sending its last id as `Last-Event-ID`.
 */
import { createConnection, type Socket } from 'node:net'

export type ToClients =
  | { type: 'open'; url: string; token: string; count: number; concurrency: number; reconnect: boolean }
  /** Follow a change: with `report`, say when every stream has it (or after 30 s). */
  | { type: 'watch'; flag: string; enabled: boolean; report: boolean }
  | { type: 'settle'; hash: string; flag: string; enabled: boolean; timeoutMs: number }
  | { type: 'close' }

export type FromClients =
  | { type: 'opened'; connected: number; failed: number; statuses: Record<string, number> }
  | { type: 'watching' }
  | { type: 'arrivals'; times: number[]; missing: number; cpuMs: number }
  | {
      type: 'settled'
      times: number[]
      wrong: number
      hydrated: number
      resumed: number
      hadChangeBeforeKill: number
      attempts: number
      statuses: Record<string, number>
    }

interface Stream {
  socket: Socket | undefined
  /** The state it holds: the last `id:` read. */
  id: string | undefined
  /** Whether the watched flag is on in what it holds (undefined: not in it). */
  enabled: boolean | undefined
  /** Got `unleash-connected` on its current connection. */
  connected: boolean
  /** When the watched change arrived (absolute ms), once watching. */
  arrived: number | undefined
  /** When it last became up to date with the settled state (absolute ms). */
  rightAt: number | undefined
  failures: number
  /** How its last reconnection's `unleash-connected` came: a hydration or the events since. */
  lastConnected: 'hydration' | 'events' | undefined
  hadChangeBeforeClose: boolean | undefined
  closedOnce: boolean
}

const now = () => performance.timeOrigin + performance.now()
const send = (message: FromClients) => process.send!(message)

let options: Extract<ToClients, { type: 'open' }>
const streams: Stream[] = []
const statuses: Record<string, number> = {}
let attempts = 0
let closing = false
let watch: { flag: string; enabled: boolean } | undefined
let settle: { hash: string; flag: string; enabled: boolean } | undefined
let onArrival: (() => void) | undefined
let onRight: (() => void) | undefined
let arrivedCount = 0

/** Applies one delta body to what a stream holds: only the watched flag is followed. */
function apply(stream: Stream, event: string, data: string): void {
  const flag = watch?.flag ?? settle?.flag
  if (flag === undefined || !data.includes(`"${flag}"`)) return
  for (const item of (JSON.parse(data) as { events: any[] }).events) {
    if (item.type === 'hydration') stream.enabled = item.features.find((f: any) => f.name === flag)?.enabled
    else if (item.type === 'feature-updated' && item.feature.name === flag) stream.enabled = item.feature.enabled
    else if (item.type === 'feature-removed' && item.featureName === flag) stream.enabled = undefined
  }
  if (event === 'unleash-updated' && watch && stream.arrived === undefined && stream.enabled === watch.enabled) {
    stream.arrived = now()
    if (++arrivedCount === streams.length) onArrival?.()
  }
}

function checkRight(stream: Stream): void {
  if (!settle || !stream.connected) return
  const right = stream.id === settle.hash && stream.enabled === settle.enabled
  if (right && stream.rightAt === undefined) {
    stream.rightAt = now()
    if (streams.every((s) => s.rightAt !== undefined)) onRight?.()
  } else if (!right) stream.rightAt = undefined
}

function onMessage(stream: Stream, block: string): void {
  let event = 'message'
  let id: string | undefined
  let data = ''
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) id = line.slice(4)
    else if (line.startsWith('event: ')) event = line.slice(7)
    else if (line.startsWith('data: ')) data = line.slice(6)
  }
  if (event !== 'unleash-connected' && event !== 'unleash-updated') return
  if (id !== undefined) stream.id = id
  if (event === 'unleash-connected') {
    stream.connected = true
    stream.failures = 0
    stream.lastConnected = data.includes('"type":"hydration"') ? 'hydration' : 'events'
  }
  apply(stream, event, data)
  checkRight(stream)
}

/**
 * Reads a chunked HTTP/1.1 response's body as it comes (latin1: one character a byte; the flag
 * names and ids looked for are ASCII).
 */
function dechunker(onBody: (text: string) => void): (text: string) => void {
  let raw = ''
  let remaining = 0
  let trailer = 0
  return (text) => {
    raw += text
    for (;;) {
      if (trailer > 0) {
        const skip = Math.min(trailer, raw.length)
        raw = raw.slice(skip)
        trailer -= skip
        if (trailer > 0) return
      }
      if (remaining === 0) {
        const line = raw.indexOf('\r\n')
        if (line < 0) return
        remaining = parseInt(raw.slice(0, line), 16)
        raw = raw.slice(line + 2)
        if (remaining === 0) return
      }
      if (raw.length === 0) return
      const take = Math.min(remaining, raw.length)
      onBody(raw.slice(0, take))
      raw = raw.slice(take)
      remaining -= take
      if (remaining === 0) trailer = 2
    }
  }
}

/**
 * Opens a stream's connection over a raw socket (the cheapest reader, so the generator takes
 * little of the CPU the server needs); resolves when its first message came, or it failed.
 */
function connect(stream: Stream): Promise<void> {
  attempts++
  return new Promise((resolve) => {
    let done = false
    const finish = () => {
      if (!done) (done = true), resolve()
    }
    const url = new URL(options.url)
    const socket = createConnection({ host: url.hostname, port: Number(url.port) })
    socket.setEncoding('latin1')
    socket.write(
      `GET /api/client/streaming HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: ${options.token}\r\naccept: text/event-stream\r\nunleash-appname: fanout-bench\r\n` +
        (stream.id === undefined ? '' : `last-event-id: ${stream.id}\r\n`) +
        '\r\n',
    )
    stream.socket = socket
    let head: string | undefined = ''
    let buffer = ''
    const body = dechunker((text) => {
      buffer += text
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        onMessage(stream, buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        if (stream.connected) finish()
      }
    })
    socket.on('data', (text: string) => {
      if (head === undefined) return body(text)
      head += text
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) return
      const status = head.slice(9, 12)
      statuses[status] = (statuses[status] ?? 0) + 1
      const rest = head.slice(end + 4)
      head = undefined
      // Anything but a stream (a 429) ends the connection: it is tried again later.
      if (status !== '200') socket.destroy()
      else if (rest) body(rest)
    })
    socket.on('close', () => lost(stream, socket, finish))
    socket.on('error', () => {})
  })
}

/** A connection ended or could not be made: it is opened again after the SDK's delay, when reconnecting. */
function lost(stream: Stream, socket: Socket, finish: () => void): void {
  finish()
  if (stream.socket !== socket) return
  stream.socket = undefined
  if (!stream.closedOnce) {
    stream.closedOnce = true
    stream.hadChangeBeforeClose = watch !== undefined && stream.enabled === watch.enabled
  }
  stream.connected = false
  stream.rightAt = undefined
  if (closing || !options.reconnect) return
  const base = Math.min(30_000, 2_000 * 2 ** stream.failures++)
  setTimeout(() => void connect(stream), base - Math.random() * 0.5 * base)
}

async function open(message: Extract<ToClients, { type: 'open' }>): Promise<void> {
  options = message
  for (let i = 0; i < message.count; i++) {
    streams.push({
      socket: undefined,
      id: undefined,
      enabled: undefined,
      connected: false,
      arrived: undefined,
      rightAt: undefined,
      failures: 0,
      lastConnected: undefined,
      hadChangeBeforeClose: undefined,
      closedOnce: false,
    })
  }
  // A bounded number of opens in flight: the server's accept queue is not flooded.
  let next = 0
  await Promise.all(
    Array.from({ length: message.concurrency }, async () => {
      while (next < streams.length) await connect(streams[next++]!)
    }),
  )
  send({
    type: 'opened',
    connected: streams.filter((s) => s.connected).length,
    failed: streams.filter((s) => !s.connected).length,
    statuses,
  })
}

process.on('message', (message: ToClients) => {
  if (message.type === 'open') void open(message)
  else if (message.type === 'watch') {
    watch = { flag: message.flag, enabled: message.enabled }
    for (const stream of streams) stream.arrived = undefined
    arrivedCount = 0
    const cpu = process.cpuUsage()
    const report = () => {
      clearTimeout(timer)
      onArrival = undefined
      const times = streams.flatMap((s) => (s.arrived === undefined ? [] : [s.arrived]))
      const used = process.cpuUsage(cpu)
      send({ type: 'arrivals', times, missing: streams.length - times.length, cpuMs: (used.user + used.system) / 1000 })
    }
    const timer = message.report ? setTimeout(report, 30_000) : undefined
    onArrival = message.report ? report : undefined
    send({ type: 'watching' })
  } else if (message.type === 'settle') {
    settle = { hash: message.hash, flag: message.flag, enabled: message.enabled }
    for (const stream of streams) checkRight(stream)
    const report = () => {
      clearTimeout(timer)
      onRight = undefined
      const times = streams.flatMap((s) => (s.rightAt === undefined ? [] : [s.rightAt]))
      send({
        type: 'settled',
        times,
        wrong: streams.length - times.length,
        hydrated: streams.filter((s) => s.lastConnected === 'hydration').length,
        resumed: streams.filter((s) => s.lastConnected === 'events').length,
        hadChangeBeforeKill: streams.filter((s) => s.hadChangeBeforeClose).length,
        attempts,
        statuses,
      })
    }
    const timer = setTimeout(report, message.timeoutMs)
    onRight = report
    if (streams.every((s) => s.rightAt !== undefined)) report()
  } else if (message.type === 'close') {
    closing = true
    for (const stream of streams) stream.socket?.destroy()
    process.exit(0)
  }
})
