import { Readable } from 'node:stream'

/** A response body made of JSON text: whole when short, a stream when long. */
export type JsonBody = string | Readable

// Text handed to the response per write: large enough to keep per-write overhead low, small enough
// that little is alive at any moment (V8 grows its young generation with what survives a collection).
const PIECE_SIZE = 16 * 1024
// Answers up to this size are read whole and sent with a content-length (most flags' histories).
const WHOLE_SIZE = 64 * 1024

/**
 * The text of `{…"events":[e1,e2,…],"totalEvents":N}` built from pages of stored event
 * JSON: `head` opens the document up to `"events":[`; N is counted along the way, so it
 * is exactly the number of events sent. The bytes equal `JSON.stringify` of the same
 * object, because each event is stored as JSON.stringify wrote it.
 */
export async function* eventListPieces(head: string, pages: AsyncIterable<readonly { json: string }[]>): AsyncGenerator<string, void, undefined> {
  let count = 0
  let piece = head
  for await (const page of pages) {
    for (const row of page) {
      piece += count++ === 0 ? row.json : `,${row.json}`
      if (piece.length >= PIECE_SIZE) {
        yield piece
        piece = ''
      }
    }
  }
  yield `${piece}],"totalEvents":${count}}`
}

/**
 * Reads the first pieces of a document before anything is sent: a failure there (no
 * connection, a bad query) still becomes an ordinary error response. A short document
 * comes back whole as a string; a long one as a stream that goes on where reading
 * stopped, pulling the next piece only when the client has taken the previous ones.
 * Destroying the stream (the client went away) ends `pieces`, so its cursor is closed.
 */
export async function openJsonBody(pieces: AsyncGenerator<string, void, undefined>, bufferSize = WHOLE_SIZE): Promise<JsonBody> {
  let head = ''
  while (head.length < bufferSize) {
    const next = await pieces.next()
    if (next.done) return head
    head += next.value
  }
  return continuedStream(head, pieces)
}

/**
 * A stream of the text `first` then the rest of `pieces`, read one piece per demand. Destroying
 * it (at any time, even before its first read) ends `pieces`, which closes their cursor.
 */
function continuedStream(first: string, pieces: AsyncGenerator<string, void, undefined>): Readable {
  let pending: string | undefined = first
  return new Readable({
    // Strings, not Buffers: the socket copies a string into native memory freed when the write is done,
    // while a Buffer per piece is garbage that only a collection reclaims (tens of MB on a long stream).
    objectMode: true,
    highWaterMark: 2,
    read() {
      if (pending !== undefined) {
        this.push(pending)
        pending = undefined
        return
      }
      pieces.next().then(
        (next) => this.push(next.done ? null : next.value),
        (error: unknown) => this.destroy(error as Error),
      )
    },
    destroy(error, callback) {
      // Waits for a read in progress, then runs the generators' `finally`: the cursor is closed, the connection released.
      pieces.return().then(() => callback(error), (cleanupError: unknown) => callback(error ?? (cleanupError as Error)))
    },
  })
}
