/**
 * The open `/api/client/streaming` connections, grouped by scope. The change watch says when the
 * flags may have changed (no polling per connection); each scope with connections then asks the
 * delta service once, and the one serialized message goes to every connection holding the same
 * state. One timer sends every connection its heartbeat. Closing ends every stream, so SDKs
 * reconnect (with Last-Event-ID) to whichever instance is up.
 */
import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import type { ChangeWatch } from '../../db/change-watch.ts'
import type { FeatureFilters, ReadScope } from './client-features-service.ts'
import { scopeKey, type DeltaService } from './delta-service.ts'
import { eventsBody } from './delta-state.ts'

interface Connection {
  response: ServerResponse
  /** The state it holds (the last event id sent, or its Last-Event-ID); undefined: none. */
  known: string | undefined
  /** Not sent anything yet: its first message is `unleash-connected`. */
  fresh: boolean
}

interface ScopeStreams {
  scope: ReadScope
  filters: FeatureFilters
  connections: Set<Connection>
  running: boolean
  again: boolean
}

/** A connection whose client reads slower than this much is queued for it is cut (it reconnects and catches up). */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024
const HEARTBEAT = ': heartbeat\n\n'

/** One SSE message. */
export const sseMessage = (event: string, id: string | undefined, data: string): string => `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`

export function createStreamingHub({ delta, changes, heartbeatMs, maxConnections, log }: {
  delta: DeltaService
  changes: ChangeWatch
  heartbeatMs: number
  maxConnections: number
  log: FastifyBaseLogger
}) {
  const scopes = new Map<string, ScopeStreams>()
  let count = 0
  let closed = false
  let scheduled = false
  let unsubscribe: (() => void) | undefined
  let heartbeat: NodeJS.Timeout | undefined

  function send(connection: Connection, text: string): void {
    if (connection.response.writableEnded || connection.response.destroyed) return
    connection.response.write(text)
    if (connection.response.writableLength > MAX_BUFFERED_BYTES) connection.response.destroy()
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
        const groups = new Map<string, Connection[]>()
        for (const connection of streams.connections) {
          const group = `${connection.fresh ? 'fresh' : 'held'}:${connection.known ?? ''}`
          groups.set(group, [...(groups.get(group) ?? []), connection])
        }
        for (const group of groups.values()) {
          const { fresh, known } = group[0]!
          const answer = await delta.since(streams.scope, streams.filters, known)
          if (answer.kind === 'current' && !fresh) continue
          const text = sseMessage(fresh ? 'unleash-connected' : 'unleash-updated', answer.hash, eventsBody(answer.kind === 'current' ? [] : answer.events))
          for (const connection of group) {
            if (!streams.connections.has(connection)) continue
            send(connection, text)
            connection.known = answer.hash
            connection.fresh = false
          }
        }
      } while (streams.again && !closed)
    } catch (error) {
      // What the connections hold is not known to be current: they reconnect and are caught up.
      log.error({ err: error }, 'streaming: could not read the flags; ending the scope\'s streams so its SDKs reconnect')
      for (const connection of streams.connections) connection.response.end()
    } finally {
      streams.running = false
    }
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
      for (const streams of scopes.values()) for (const connection of streams.connections) send(connection, HEARTBEAT)
    }, heartbeatMs).unref()
  }

  function stop(): void {
    unsubscribe?.()
    unsubscribe = undefined
    clearInterval(heartbeat)
    heartbeat = undefined
  }

  return {
    /** Whether another stream may open (below the limit, not closing). */
    hasRoom: (): boolean => !closed && count < maxConnections,

    /** Streams open now. */
    size: (): number => count,

    /**
     * Takes over a response whose headers are sent: it is sent its scope's state (or what it
     * missed since `lastEventId`), then every change, until either side closes it.
     */
    open(response: ServerResponse, scope: ReadScope, filters: FeatureFilters, lastEventId: string | undefined): void {
      const key = scopeKey(scope, filters)
      let streams = scopes.get(key)
      if (!streams) {
        streams = { scope, filters, connections: new Set(), running: false, again: false }
        scopes.set(key, streams)
      }
      const connection: Connection = { response, known: lastEventId, fresh: true }
      streams.connections.add(connection)
      if (count++ === 0) start()
      const group = streams
      response.once('close', () => {
        if (!group.connections.delete(connection)) return
        if (group.connections.size === 0 && scopes.get(key) === group) scopes.delete(key)
        if (--count === 0) stop()
      })
      void flush(streams)
    },

    /** Ends every stream (SDKs reconnect elsewhere or later) and takes no more. */
    close(): void {
      closed = true
      stop()
      for (const streams of scopes.values()) for (const connection of streams.connections) connection.response.end()
    },
  }
}

export type StreamingHub = ReturnType<typeof createStreamingHub>
