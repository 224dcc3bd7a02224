/**
 * "Test the connection" for the single sign-on settings page: can Pennon discover the provider
 * (reached, the issuer it names is the one asked for, https or a loopback address), and does the
 * provider accept Pennon's client id and secret? The second asks the token endpoint to redeem a
 * code that does not exist: `invalid_grant` means the client authenticated first (the code was
 * what failed), `invalid_client` that the id or secret is wrong. Nothing is stored, and the
 * secret is neither logged nor answered.
 */
import { randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import * as client from 'openid-client'
import { issuerUrlProblem } from '../../config.ts'
import { issuerOf, messageOf, plainHttpAllowed } from './oidc-provider.ts'
import type { OidcSettings } from './oidc-settings.ts'

// Each request to the provider (discovery, the token endpoint) gets this long, in seconds.
const TIMEOUT_SECONDS = 5

export const OidcConnectionBody = Type.Object(
  {
    discoverUrl: Type.Optional(Type.String({ maxLength: 1000, description: 'Left out: the stored one' })),
    clientId: Type.Optional(Type.String({ maxLength: 255, description: 'Left out: the stored one' })),
    secret: Type.Optional(Type.String({ maxLength: 1000, description: 'Left out (or empty): the stored one' })),
  },
  { additionalProperties: false },
)
export type OidcConnectionBody = Static<typeof OidcConnectionBody>

const Check = (description: string) =>
  Type.Object(
    {
      ok: Type.Boolean(),
      issuer: Type.Optional(Type.String({ description: 'The issuer the discovery document names' })),
      message: Type.Optional(Type.String({ description: 'What failed, or what was found' })),
    },
    { additionalProperties: false, description },
  )

export const OidcConnectionResult = Type.Object(
  {
    discovery: Check('Whether the discovery document was reached and names the issuer asked for'),
    client: Check("Whether the provider's token endpoint accepts the client id and secret"),
  },
  { additionalProperties: false },
)
export type OidcConnectionResult = Static<typeof OidcConnectionResult>

type Tried = Pick<OidcSettings, 'discoverUrl' | 'clientId' | 'secret'>

/** The settings to try: what the body gives, else the stored ones (an empty secret means the stored one too). */
export function settingsToTry(body: OidcConnectionBody, stored: Tried): Tried {
  return {
    discoverUrl: body.discoverUrl?.trim() ?? stored.discoverUrl,
    clientId: body.clientId?.trim() ?? stored.clientId,
    secret: body.secret || stored.secret,
  }
}

const notTried = { ok: false, message: 'Not tried: discovery failed.' }

export async function checkOidcConnection({ discoverUrl, clientId, secret }: Tried): Promise<OidcConnectionResult> {
  if (discoverUrl === '') return { discovery: { ok: false, message: 'No discovery URL is set.' }, client: notTried }
  const problem = issuerUrlProblem(discoverUrl)
  if (problem) return { discovery: { ok: false, message: `The discovery URL ${problem}.` }, client: notTried }
  const issuer = issuerOf(discoverUrl)
  let configuration: client.Configuration
  try {
    configuration = await client.discovery(
      issuer,
      clientId || 'none',
      undefined,
      secret === '' ? client.None() : client.ClientSecretBasic(secret),
      {
        timeout: TIMEOUT_SECONDS,
        execute: plainHttpAllowed(issuer) ? [client.allowInsecureRequests] : [],
      },
    )
  } catch (error) {
    return {
      discovery: {
        ok: false,
        message: `The provider's discovery document at ${documentOf(issuer)} could not be used: ${discoveryProblem(error)}`,
      },
      client: notTried,
    }
  }
  const discovery = { ok: true, issuer: configuration.serverMetadata().issuer }
  if (clientId === '' || secret === '') {
    return { discovery, client: { ok: false, message: `No ${clientId === '' ? 'client id' : 'client secret'} is set.` } }
  }
  try {
    await client.genericGrantRequest(configuration, 'authorization_code', {
      code: `pennon-connection-test-${randomBytes(16).toString('hex')}`,
      redirect_uri: `${issuer.origin}/pennon-connection-test`,
    })
    // No provider should redeem a code it never issued; if one does, the client was accepted all the same.
    return { discovery, client: { ok: true } }
  } catch (error) {
    const code = oauthErrorOf(error)
    if (code === 'invalid_grant') return { discovery, client: { ok: true, message: 'The provider accepted the client id and secret.' } }
    if (code === 'invalid_client' || code === 'unauthorized_client')
      return {
        discovery,
        client: { ok: false, message: `The provider refused the client: the client id or the secret is wrong (${code}).` },
      }
    return { discovery, client: { ok: false, message: `The provider's token endpoint could not be used: ${messageOf(error)}` } }
  }
}

/**
 * The OAuth error code of a token endpoint's answer: in its body, or (a 401 for a refused client)
 * in its WWW-Authenticate challenge, which the library raises instead.
 */
function oauthErrorOf(error: unknown): unknown {
  if (error instanceof client.WWWAuthenticateChallengeError) {
    return error.cause.map((challenge) => challenge.parameters.error).find((code) => code !== undefined) ?? 'invalid_client'
  }
  return (error as { error?: unknown }).error
}

const documentOf = (issuer: URL): string => `${issuer.href.replace(/\/$/, '')}/.well-known/openid-configuration`

/** Why discovery failed, with what the library keeps aside: the HTTP status, or the issuer the document named instead. */
function discoveryProblem(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Response) return `${messageOf(error)} (HTTP ${cause.status})`
  const named = (cause as { body?: { issuer?: unknown }; expected?: unknown } | undefined)?.body?.issuer
  if (typeof named === 'string') return `it names the issuer ${named}, not ${String((cause as { expected?: unknown }).expected)}`
  return messageOf(error)
}
