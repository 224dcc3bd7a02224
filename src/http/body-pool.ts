/**
 * Buffers reused for the large bodies made anew per request (the frontend API's toggles, OFREP's
 * bulk answers: 40–170 kB each on 1,000 flags). A fresh buffer per answer is memory outside V8's
 * heap, which the garbage collector only frees in a full collection once the answer has outlived
 * a young one (as answers in flight do): at a few hundred megabytes a second, that was several
 * full collections a second. A buffer comes back once its response has been handed to the socket
 * (`finish`), and serves the next answer that fits in it. A response cut before that gives
 * nothing back: its buffer is left to the collector, and a new one is made later.
 */
import type { FastifyReply } from 'fastify'

export interface BodyPoolOptions {
  /** Free buffers kept at most (about the answers in flight at once). */
  maxFree?: number
  /** Bodies longer than this are neither kept nor reused: they are rare, and would hold memory. */
  maxBodyBytes?: number
}

export function createBodyPool({ maxFree = 32, maxBodyBytes = 4 * 1024 * 1024 }: BodyPoolOptions = {}) {
  const free: ArrayBuffer[] = []
  const giveBack = (body: Buffer): void => {
    const backing = body.buffer as ArrayBuffer
    if (backing.byteLength <= maxBodyBytes && free.length < maxFree) free.push(backing)
  }
  return {
    /** A buffer of exactly `length` bytes to write a body into: a free one that fits, or a new one with room to grow. */
    take(length: number): Buffer {
      for (let i = free.length - 1; i >= 0; i--) {
        const backing = free[i]!
        if (backing.byteLength < length) continue
        free[i] = free[free.length - 1]!
        free.pop()
        return Buffer.from(backing, 0, length)
      }
      // Room for the next answer of the same scope, which may be a little longer.
      const capacity = length > maxBodyBytes ? length : Math.min(maxBodyBytes, Math.ceil(length * 1.125) + 1024)
      return Buffer.allocUnsafeSlow(capacity).subarray(0, length)
    },
    /** A body of `take` not sent after all (a 304). */
    giveBack,
    /** Takes `body` back once `reply` has handed it to the socket. */
    giveBackWhenSent(reply: FastifyReply, body: Buffer): void {
      reply.raw.once('finish', () => giveBack(body))
    },
  }
}

export type BodyPool = ReturnType<typeof createBodyPool>
