/**
 * The open `/api/client/streaming` connections, grouped by scope. The change watch says when the
 * flags may have changed (no polling per connection); each scope with connections then asks the
 * delta service once, and the one serialized message goes to every connection holding the same
 * state. One timer sends every connection its heartbeat. Closing ends every stream, so SDKs
 * reconnect (with Last-Event-ID) to whichever instance is up. What one token may hold, and what a
 * client that does not read may leave behind, are bounded (docs/security.md, "Streams").
 */
import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { Principal } from '../../http/permissions.ts'
import type { FeatureFilters, ReadScope } from './client-features-service.ts'
import { scopeKey, type DeltaAnswer, type DeltaService } from './delta-service.ts'
import { eventsBody } from './delta-state.ts'

interface Connection {
  response: ServerResponse
  /** The state it holds (the last event id sent, or its Last-Event-ID); undefined: none. */
  known: string | undefined
  /** Where it is kept: the scope's `fresh` set, or the set of `held` for its state. */
  place: Set<Connection>
  /** Bytes written to it since the last heartbeat, and in the heartbeat interval before. */
  writtenNow: number
  writtenBefore: number
  /**
   * An OpenFeature (OFREP) stream: told only that its flags changed (`refetchEvaluation`, ADR-0008),
   * never sent the flags; it starts at the current state, having just fetched its evaluations.
   */
  ofrep: boolean
}

interface ScopeStreams {
  scope: ReadScope
  filters: FeatureFilters
  /** Not sent anything yet: their first message is `unleash-connected`. */
  fresh: Set<Connection>
  /** The others, by the state they hold: a change is one look-up and one message per state, not per connection. */
  held: Map<string, Set<Connection>>
  size: number
  running: boolean
  again: boolean
}

/**
 * What a stream may leave unsent (written, and not yet taken by its socket's kernel buffer) of
 * what was written to it before the previous heartbeat. More means its client is not reading:
 * the stream is cut, and an SDK reconnects with its Last-Event-ID and is caught up. What was
 * written since may wait whatever its size: the first message is the scope's whole state, ~0.9 MB
 * for 1,000 flags of three strategies each (bench/streaming-memory.ts), and a bulk change is as
 * large; the kernel takes only its buffer's worth at once (on a network, a window's worth to begin
 * with) and Node counts a message unsent until its last byte is taken, so a bound applied at the
 * write would cut SDKs that read. A reader so has one to two heartbeat intervals (30 s by default)
 * to take each message; a client that reads nothing is cut at the first write after that.
 */
export const STREAM_MAX_UNSENT_BYTES = 64 * 1024

/** Whatever its age, this much unsent cuts the stream at its next write (a burst of bulk changes to a slow reader). */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

/**
 * Which streams count as one token's (STREAMING_MAX_CONNECTIONS_PER_TOKEN): an API token's kind,
 * name and scope; undefined with AUTH_TYPE=none, where callers without a token are not told apart.
 */
export function streamOwner(principal: Principal): string | undefined {
  if (principal.kind === 'open-access') return undefined
  return JSON.stringify([principal.kind, principal.name, principal.scope?.environment, principal.scope?.projects])
}

/** A message encoded once for every stream it goes to: as is, and as one chunk of a chunked response. */
interface Message {
  bytes: Buffer
  chunk: Buffer
}

function message(text: string): Message {
  const bytes = Buffer.from(text)
  return { bytes, chunk: Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) }
}

const HEARTBEAT = message(': heartbeat\n\n')

/** One SSE message. */
export const sseMessage = (event: string, id: string | undefined, data: string): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`

export function createStreamingHub({
  delta,
  changes,
  heartbeatMs,
  maxConnections,
  maxPerToken,
  log,
}: {
  delta: DeltaService
  changes: ChangeWatch
  heartbeatMs: number
  maxConnections: number
  maxPerToken: number
  log: FastifyBaseLogger
}) {
  const scopes = new Map<string, ScopeStreams>()
  /** Open streams per owner (streamOwner). */
  const owners = new Map<string, number>()
  let count = 0
  let closed = false
  let scheduled = false
  let unsubscribe: (() => void) | undefined
  let heartbeat: NodeJS.Timeout | undefined

  function send(connection: Connection, message: Message): void {
    const { response } = connection
    if (response.writableEnded || response.destroyed) return
    const socket = response.socket
    // Unsent data is the newest written (a socket sends in order), so what is older than the
    // last two heartbeat intervals' writes is what exceeds them.
    const unsent = response.writableLength
    if (unsent - connection.writtenNow - connection.writtenBefore > STREAM_MAX_UNSENT_BYTES || unsent > MAX_BUFFERED_BYTES) {
      log.info({ unsentBytes: unsent }, 'streaming: a client left what it was sent unread; its stream is cut (an SDK reconnects)')
      // A reset rather than a close: the kernel drops what it still holds for the client at once,
      // instead of keeping the socket (and its buffer) until a client that does not read takes it.
      if (socket) socket.resetAndDestroy()
      else response.destroy()
      return
    }
    // One message to thousands of streams: written framed as the chunk the response would make
    // of it, straight to the socket. response.write would cork each socket until the next tick,
    // so nothing left before the last stream's turn, and cost a third more CPU per stream
    // (bench/streaming-fanout.ts). Only chunked responses (HTTP/1.1) holding their socket are written so.
    if (socket && response.chunkedEncoding) {
      socket.write(message.chunk)
      connection.writtenNow += message.chunk.length
    } else {
      response.write(message.bytes)
      connection.writtenNow += message.bytes.length
    }
  }

  /** Sends a message to connections and keeps them with the state it leaves them in. */
  function deliver(streams: ScopeStreams, connections: Iterable<Connection>, event: string, answer: DeltaAnswer): void {
    let unleash: Message | undefined
    let ofrep: Message | undefined
    const messageFor = (connection: Connection): Message | undefined => {
      if (!connection.ofrep)
        return (unleash ??= message(sseMessage(event, answer.hash, eventsBody(answer.kind === 'current' ? [] : answer.events))))
      if (event === 'unleash-connected') return undefined
      return (ofrep ??= message(sseMessage('message', answer.hash, JSON.stringify({ type: 'refetchEvaluation', etag: answer.hash }))))
    }
    let place = streams.held.get(answer.hash)
    if (!place) {
      place = new Set()
      streams.held.set(answer.hash, place)
    }
    for (const connection of [...connections]) {
      // A connection closed while the state was read is no longer in its place.
      if (!connection.place.delete(connection)) continue
      const bytes = messageFor(connection)
      if (bytes !== undefined) send(connection, bytes)
      connection.known = answer.hash
      connection.place = place
      place.add(connection)
    }
    if (place.size === 0) streams.held.delete(answer.hash)
  }

  /** Brings every connection of a scope to the current state; runs once at a time per scope, again if asked meanwhile. */
  async function flush(streams: ScopeStreams): Promise<void> {
    if (streams.running) {
      streams.again = true
      return
    }
    streams.running = true
    try {
      do {
        streams.again = false
        // New connections, by the state they say they hold.
        const fresh = new Map<string | undefined, Connection[]>()
        for (const connection of streams.fresh) {
          const group = fresh.get(connection.known)
          if (group) group.push(connection)
          else fresh.set(connection.known, [connection])
        }
        for (const [known, group] of fresh)
          deliver(streams, group, 'unleash-connected', await delta.since(streams.scope, streams.filters, known))
        for (const [known, group] of [...streams.held]) {
          const answer = await delta.since(streams.scope, streams.filters, known)
          if (answer.kind === 'current') continue
          deliver(streams, group, 'unleash-updated', answer)
          if (group.size === 0 && streams.held.get(known) === group) streams.held.delete(known)
        }
      } while (streams.again && !closed)
    } catch (error) {
      // What the connections hold is not known to be current: they reconnect and are caught up.
      log.error({ err: error }, "streaming: could not read the flags; ending the scope's streams so its SDKs reconnect")
      endAll(streams)
    } finally {
      streams.running = false
    }
  }

  function* connectionsOf(streams: ScopeStreams): Iterable<Connection> {
    yield* streams.fresh
    for (const place of streams.held.values()) yield* place
  }

  function endAll(streams: ScopeStreams): void {
    for (const connection of [...connectionsOf(streams)]) connection.response.end()
  }

  // The watch speaks of every write (metrics every second too): only a new flags version is worth a look.
  let flushedVersion: number | undefined
  function flushAll(): void {
    scheduled = false
    const version = changes.version('flags')
    if (version !== undefined && version === flushedVersion) return
    flushedVersion = version
    for (const streams of scopes.values()) void flush(streams)
  }

  // Changes that arrive together (a batch of writes) are sent together, on the next turn.
  function changed(): void {
    if (scheduled || closed) return
    scheduled = true
    setImmediate(flushAll)
  }

  function start(): void {
    unsubscribe = changes.subscribe?.(changed)
    heartbeat = setInterval(() => {
      for (const streams of scopes.values()) {
        for (const connection of connectionsOf(streams)) {
          connection.writtenBefore = connection.writtenNow
          connection.writtenNow = 0
          send(connection, HEARTBEAT)
        }
      }
    }, heartbeatMs).unref()
  }

  function stop(): void {
    unsubscribe?.()
    unsubscribe = undefined
    clearInterval(heartbeat)
    heartbeat = undefined
  }

  return {
    /** Whether another stream may open (below the limit, not closing), and, given its owner, below that owner's limit. */
    hasRoom: (owner?: string): boolean =>
      !closed && count < maxConnections && (owner === undefined || (owners.get(owner) ?? 0) < maxPerToken),

    /** Streams open now. */
    size: (): number => count,

    /**
     * Takes over a response whose headers are sent: it is sent its scope's state (or what it
     * missed since `lastEventId`), then every change, until either side closes it. An `ofrep`
     * stream is sent nothing at first, then a `refetchEvaluation` message on each change.
     */
    open(
      response: ServerResponse,
      scope: ReadScope,
      filters: FeatureFilters,
      lastEventId: string | undefined,
      owner: string | undefined,
      ofrep = false,
    ): void {
      const key = scopeKey(scope, filters)
      let streams = scopes.get(key)
      if (!streams) {
        streams = { scope, filters, fresh: new Set(), held: new Map(), size: 0, running: false, again: false }
        scopes.set(key, streams)
      }
      const connection: Connection = { response, known: lastEventId, place: streams.fresh, writtenNow: 0, writtenBefore: 0, ofrep }
      streams.fresh.add(connection)
      streams.size++
      if (count++ === 0) start()
      if (owner !== undefined) owners.set(owner, (owners.get(owner) ?? 0) + 1)
      const group = streams
      response.once('close', () => {
        if (!connection.place.delete(connection)) return
        if (connection.place.size === 0 && group.held.get(connection.known!) === connection.place) group.held.delete(connection.known!)
        if (--group.size === 0 && scopes.get(key) === group) scopes.delete(key)
        if (--count === 0) stop()
        if (owner !== undefined) {
          const left = owners.get(owner)! - 1
          if (left === 0) owners.delete(owner)
          else owners.set(owner, left)
        }
      })
      void flush(streams)
    },

    /** Ends every stream (SDKs reconnect elsewhere or later) and takes no more. */
    close(): void {
      closed = true
      stop()
      for (const streams of scopes.values()) endAll(streams)
    },
  }
}

export type StreamingHub = ReturnType<typeof createStreamingHub>
