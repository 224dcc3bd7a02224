import { Readable } from 'node:stream'
import { setImmediate } from 'node:timers/promises'

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

/** A long body: the stream to send, and its whole bytes once read, if they were read ahead of the client. */
export interface StreamedJsonBody {
  stream: Readable
  /** The complete document, when it was read within `readAhead` bytes; otherwise undefined. Never rejects. */
  whole: Promise<Buffer | undefined>
}

export interface OpenOptions {
  /** Documents up to this many characters are read before anything is sent, and come back whole. */
  wholeSize?: number
  /** Bytes read without waiting for the client, to complete the document for remembering (0: none). */
  readAhead?: number
}

/**
 * Reads the first pieces of a document before anything is sent: a failure there (no
 * connection, a bad query) still becomes an ordinary error response. A short document
 * comes back whole as a string; a long one as a stream that goes on where reading stopped.
 * Up to `readAhead` bytes are read as fast as the database gives them, so `whole` completes
 * whatever the client's pace; past that, one piece is read per demand, so a slow client holds
 * the read back. Destroying the stream (the client went away) ends `pieces`, so its cursor is closed.
 */
export async function openJsonBody(pieces: AsyncGenerator<string, void, undefined>, { wholeSize = WHOLE_SIZE, readAhead = 0 }: OpenOptions = {}): Promise<string | StreamedJsonBody> {
  let head = ''
  while (head.length < wholeSize) {
    const next = await pieces.next()
    if (next.done) return head
    head += next.value
  }
  return continuedStream(head, pieces, readAhead)
}

/**
 * A stream of the text `first` then the rest of `pieces`: read ahead up to `readAhead` bytes,
 * then one piece per demand. Destroying it (at any time, even before its first read) ends
 * `pieces` once a read in progress is done, which closes their cursor.
 */
function continuedStream(first: string, pieces: AsyncGenerator<string, void, undefined>, readAhead: number): StreamedJsonBody {
  // Pieces read ahead, kept until the document is complete (for `whole`), or each dropped as it
  // is sent once the read went past `readAhead`; `sent` of them were handed to the stream.
  let ahead: (Buffer | undefined)[] = [Buffer.from(first)]
  let aheadLength = ahead[0]!.length
  let sent = 0
  let sentLength = 0
  let complete: Buffer | undefined
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
        .then(() => callback(error), (cleanupError: unknown) => callback(error ?? (cleanupError as Error)))
    },
  })

  /** Hands the stream its next piece if it asked for one and one is at hand (or can be read now). */
  const feed = () => {
    if (!wanted || stream.destroyed) return
    if (complete !== undefined) {
      // The rest in one piece, a view of the complete document.
      wanted = false
      stream.push(sentLength < complete.length ? complete.subarray(sentLength) : null)
      sentLength = complete.length
    } else if (sent < ahead.length) {
      wanted = false
      const piece = ahead[sent]!
      if (state === 'on demand') ahead[sent] = undefined
      sent++
      sentLength += piece.length
      stream.push(piece)
    } else if (state === 'on demand') {
      wanted = false
      pieces.next().then(
        (next) => stream.push(next.done ? null : next.value),
        (error: unknown) => stream.destroy(error as Error),
      )
    }
    // Otherwise the read ahead is under way and feeds the stream when its next piece is in.
  }

  const readingAhead = (async () => {
    try {
      while (aheadLength <= readAhead && !stream.destroyed) {
        const next = await pieces.next()
        if (next.done) {
          complete = Buffer.concat(ahead as Buffer[], aheadLength)
          // What is left to send is sent from `complete`: the pieces can go at once.
          ahead = []
          state = 'read whole'
          settle(complete)
          return
        }
        const piece = Buffer.from(next.value)
        ahead.push(piece)
        aheadLength += piece.length
        feed()
        // SQLite's cursor reads synchronously: without this turn of the event loop, reading ahead
        // would hold every other request (and this response's first bytes) until it is done.
        await setImmediate()
      }
    } catch (error) {
      stream.destroy(error as Error)
    } finally {
      // Past the limit, failed, or the client left: no whole document, and what was sent is not kept.
      if (state === 'reading ahead') {
        state = 'on demand'
        ahead.fill(undefined, 0, sent)
        settle(undefined)
      }
      feed()
    }
  })()

  return { stream, whole }
}
