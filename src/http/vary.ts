/**
 * Adds a request header's name to `Vary` without dropping the ones already there: a response
 * that depends on both Origin (CORS) and Accept-Encoding (gzip) must name both, or a shared
 * cache may hand one client's answer to another.
 */
import type { FastifyReply } from 'fastify'

export function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary')
  const names = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')
  if (names.includes('*') || names.some((n) => n.toLowerCase() === name.toLowerCase())) return
  reply.header('vary', [...names, name].join(', '))
}
