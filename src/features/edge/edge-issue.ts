/**
 * POST /edge/issue-token, as the reference's open-source server answers it: an Edge signs the
 * request with the client secret both sides hold (EDGE_CLIENT_SECRET; its client is
 * `enterprise-edge`), and gets a new backend token per environment and projects asked for.
 * Pennon keeps only tokens' hashes, so it cannot hand back one issued before: each request makes
 * new ones, as the reference does when it stores tokens that way (its secure token storage).
 *
 * The checks and their 401 messages are the reference's. Their order differs in one place: the
 * signature is checked before the nonce is stored, so a request that cannot sign stores nothing.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { isUniqueViolation } from '../../db/db-errors.ts'
import { unauthenticated } from '../../http/errors.ts'
import { SYSTEM_ACTOR } from '../events/audit.ts'
import type { TokenService } from '../api-tokens/token-service.ts'
import type { EdgeToken, IssueTokensBody } from './edge-schemas.ts'

/** The client the reference saves EDGE_CLIENT_SECRET under. */
export const EDGE_CLIENT_ID = 'enterprise-edge'
const REQUEST_LIFETIME_MS = 5 * 60_000
const MAX_NONCE_LENGTH = 200

type Headers = Record<string, string | string[] | undefined>

/** The reference's name of a token it issues: `enterprise_edge_<environment>_<projects joined by _, or [] past 3>`. */
export const issuedTokenName = (environment: string, projects: readonly string[]): string =>
  `enterprise_edge_${environment}_${projects.length > 3 ? '[]' : projects.join('_')}`.slice(0, 255)

export function createEdgeIssue({
  db,
  tokens,
  clientSecret,
  now = Date.now,
}: {
  db: Kysely<Database>
  tokens: Pick<TokenService, 'createApiToken'>
  clientSecret: string | undefined
  now?: () => number
}) {
  /** The signed request's checks, in the reference's words; returns the nonce to store. */
  function verify(headers: Headers, body: unknown, at: number): { clientId: string; nonce: string } {
    const header = (name: string) => (typeof headers[name] === 'string' ? (headers[name] as string) : '')
    const auth = header('authorization').match(/^HMAC ([^:]+):(.+)$/)
    if (!auth) throw unauthenticated('Missing HMAC authorization header')
    const [, clientId, signature] = auth as unknown as [string, string, string]
    const [timestamp, nonce, bodyHash] = [header('x-timestamp'), header('x-nonce'), header('content-sha256')]
    if (timestamp === '' || nonce === '' || bodyHash === '') throw unauthenticated('Missing content headers')
    // As the reference: a timestamp that is no date is not stale (NaN compares false).
    if (Math.abs(at - Date.parse(timestamp)) > REQUEST_LIFETIME_MS) throw unauthenticated('Stale request')
    if (clientSecret === undefined || clientId !== EDGE_CLIENT_ID) throw unauthenticated('Unknown client')
    if (
      createHash('sha256')
        .update(JSON.stringify(body ?? ''))
        .digest('hex') !== bodyHash
    )
      throw unauthenticated('Body tampering detected')
    const canonical = `POST\n/edge/issue-token\n${timestamp}\n${nonce}\n${bodyHash}`
    const expected = Buffer.from(createHmac('sha256', Buffer.from(clientSecret, 'base64url')).update(canonical).digest('base64url'))
    const provided = Buffer.from(signature)
    if (expected.length !== provided.length || !timingSafeEqual(expected, provided)) throw unauthenticated('Signature mismatch')
    if (nonce.length > MAX_NONCE_LENGTH) throw unauthenticated('Authenticating request failed')
    return { clientId, nonce }
  }

  return {
    async issue(headers: Headers, body: IssueTokensBody): Promise<{ tokens: EdgeToken[] }> {
      const at = now()
      const { clientId, nonce } = verify(headers, body, at)
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('edge_nonces').where('expires_at', '<', new Date(at).toISOString()).execute()
        try {
          await trx
            .insertInto('edge_nonces')
            .values({ client_id: clientId, nonce, expires_at: new Date(at + REQUEST_LIFETIME_MS).toISOString() })
            .execute()
        } catch (error) {
          if (isUniqueViolation(error)) throw unauthenticated('Replay detected')
          throw error
        }
      })
      const issued: EdgeToken[] = []
      for (const { environment, projects } of body.tokens) {
        const token = await tokens.createApiToken(
          { tokenName: issuedTokenName(environment, projects), type: 'backend', environment, projects },
          SYSTEM_ACTOR,
        )
        issued.push({ token: token.secret, environment: token.environment, projects: token.projects, type: 'backend' })
      }
      return { tokens: issued }
    },
  }
}

export type EdgeIssue = ReturnType<typeof createEdgeIssue>
