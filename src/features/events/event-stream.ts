import { Readable } from 'node:stream'
import { setImmediate } from 'node:timers/promises'

// Text handed to the response per write: large enough to keep per-write overhead low, small enough
// that little is alive at any moment (V8 grows its young generation with what survives a collection).
const PIECE_SIZE = 16 * 1024
// Answers up to this size are read whole and sent with a content-length (most flags' histories).
const WHOLE_SIZE = 64 * 1024
// Bytes a document read ahead grows by at least (about 1% of the longest one remembered).
const GROWTH = 1024 * 1024

/**
 * The text of `{…"events":[e1,e2,…],"totalEvents":N}` built from pages of stored event
 * JSON: `head` opens the document up to `"events":[`; N is counted along the way, so it
 * is exactly the number of events sent. The bytes equal `JSON.stringify` of the same
 * object, because each event is stored as JSON.stringify wrote it.
 */
export async function* eventListPieces(
  head: string,
  pages: AsyncIterable<readonly { json: string }[]>,
): AsyncGenerator<string, void, undefined> {
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

/** A long body: the stream to send, and its whole bytes once read, if they were read ahead of the client. */
export interface StreamedJsonBody {
  stream: Readable
  /** The complete document, when it fits in `readAhead` bytes; otherwise undefined. Never rejects. */
  whole: Promise<Buffer | undefined>
}

export interface OpenOptions {
  /** Documents up to this many characters are read before anything is sent, and come back whole. */
  wholeSize?: number
  /** Documents up to this many bytes are read without waiting for the client, to be remembered (0: none). */
  readAhead?: number
}

/**
 * Reads the first pieces of a document before anything is sent: a failure there (no
 * connection, a bad query) still becomes an ordinary error response. A short document
 * comes back whole as a string; a long one as a stream that goes on where reading stopped.
 * A document of up to `readAhead` bytes is read as fast as the database gives it, so `whole`
 * completes whatever the client's pace; past that, one piece is read per demand, so a slow
 * client holds the read back. Destroying the stream (the client went away) ends `pieces`, so its cursor is closed.
 */
export async function openJsonBody(
  pieces: AsyncGenerator<string, void, undefined>,
  { wholeSize = WHOLE_SIZE, readAhead = 0 }: OpenOptions = {},
): Promise<string | StreamedJsonBody> {
  let head = ''
  while (head.length < wholeSize) {
    const next = await pieces.next()
    if (next.done) return head
    head += next.value
  }
  return continuedStream(head, pieces, readAhead)
}

/**
 * A stream of the text `first` then the rest of `pieces`: read ahead while the document fits in
 * `readAhead` bytes, then one piece per demand. Destroying it (at any time, even before its first
 * read) ends `pieces` once a read in progress is done, which closes their cursor.
 */
function continuedStream(first: string, pieces: AsyncGenerator<string, void, undefined>, readAhead: number): StreamedJsonBody {
  // The document read ahead, in one buffer that grows in place: views of what is in go to the
  // stream as it grows, and a view of all of it is `whole`. A resizable ArrayBuffer is memory the
  // engine maps for it alone and unmaps once it is dropped. (Pieces copied together at the end
  // instead left the allocator's heap fragmented: the server's RSS grew by ~10 MB for good.)
  let document = readAhead > 0 ? new ArrayBuffer(0, { maxByteLength: readAhead }) : undefined
  // Bytes in `document`, and how many of them were handed to the stream.
  let length = 0
  let sentLength = 0
  // The text that did not fit in `document`: sent after it, then the rest of `pieces` on demand.
  let overflow: string | undefined
  let state: 'reading ahead' | 'read whole' | 'on demand' = 'reading ahead'
  let wanted = false
  let settle!: (whole: Buffer | undefined) => void
  const whole = new Promise<Buffer | undefined>((resolve) => (settle = resolve))

  const stream = new Readable({
    // On demand, strings, not Buffers: the socket copies a string into native memory freed when the write is done,
    // while a Buffer per piece is garbage that only a collection reclaims (tens of MB on a long stream).
    objectMode: true,
    highWaterMark: 2,
    read() {
      wanted = true
      feed()
    },
    destroy(error, callback) {
      // Waits for the read in progress, then runs the generators' `finally`: the cursor is closed, the connection released.
      readingAhead
        .then(() => pieces.return())
        .then(
          () => callback(error),
          (cleanupError: unknown) => callback(error ?? (cleanupError as Error)),
        )
    },
  })

  /** Adds `text` to `document`, growing it; when it does not fit (or nothing is read ahead), it is the `overflow`, and false. */
  const append = (text: string): boolean => {
    const size = Buffer.byteLength(text)
    if (document === undefined || length + size > document.maxByteLength) {
      overflow = text
      return false
    }
    // Grown by at least GROWTH at a time: a resize is a system call, and pages not yet written take no memory.
    if (length + size > document.byteLength)
      document.resize(Math.min(document.maxByteLength, Math.max(length + size, document.byteLength + GROWTH)))
    Buffer.from(document, length, size).write(text)
    length += size
    return true
  }

  /** Hands the stream its next piece if it asked for one and one is at hand (or can be read now). */
  const feed = () => {
    if (!wanted || stream.destroyed) return
    if (sentLength < length) {
      // All that is in and not sent yet, in one piece (a view: `document` only grows).
      wanted = false
      const rest = Buffer.from(document!, sentLength, length - sentLength)
      sentLength = length
      stream.push(rest)
    } else if (state === 'read whole') {
      wanted = false
      stream.push(null)
    } else if (state === 'on demand') {
      wanted = false
      // Sent in full: the views in flight keep the buffer as long as they need it.
      document = undefined
      if (overflow !== undefined) {
        stream.push(overflow)
        overflow = undefined
      } else {
        pieces.next().then(
          (next) => stream.push(next.done ? null : next.value),
          (error: unknown) => stream.destroy(error as Error),
        )
      }
    }
    // Otherwise the read ahead is under way and feeds the stream when its next piece is in.
  }

  const readingAhead = (async () => {
    try {
      if (!append(first)) return
      while (!stream.destroyed) {
        const next = await pieces.next()
        if (next.done) {
          state = 'read whole'
          settle(Buffer.from(document!, 0, length))
          return
        }
        if (!append(next.value)) return
        feed()
        // SQLite's cursor reads synchronously: without this turn of the event loop, reading ahead
        // would hold every other request (and this response's first bytes) until it is done.
        await setImmediate()
      }
    } catch (error) {
      stream.destroy(error as Error)
    } finally {
      // Too long, failed, or the client left: no whole document.
      if (state === 'reading ahead') {
        state = 'on demand'
        settle(undefined)
      }
      feed()
    }
  })()

  return { stream, whole }
}
