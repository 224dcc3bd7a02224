import type { FastifyRequest } from 'fastify'
import type { Principal } from './permissions.ts'

/**
 * Who is calling: what the admin and SDK pipelines (and the answers given before Fastify) ask of
 * authentication. Tokens are a feature of their own; the implementation is theirs
 * (features/api-tokens/authenticator.ts), handed to the pipelines by app.ts.
 */
export interface Authenticate {
  /** The caller of a request, or throws 401 (429 past an address's failure limit). */
  (request: FastifyRequest): Promise<Principal>
  /** The principal of an Authorization header whose token is remembered and current; undefined when that would take a lookup. */
  remembered(header: string | undefined): Principal | undefined
}
