/**
 * Pennon as a client of the OpenID provider the settings name, through openid-client (certified):
 * its discovered configuration, remembered per settings for a while, so a sign-in costs no
 * discovery request. The issuer is the discovery URL without `/.well-known/openid-configuration`,
 * and discovery checks that the document names that issuer. ID tokens are checked for their
 * signature too (non-repudiation checks), with the algorithm the settings name.
 */
import * as client from 'openid-client'
import { hashSecret } from '../api-tokens/token-secret.ts'
import type { OidcSettings } from './oidc-settings.ts'

const DISCOVERY_SUFFIX = '/.well-known/openid-configuration'
// A provider's keys and endpoints change rarely; its JWKS is fetched again by the library when a new key signs.
const REMEMBER_MS = 10 * 60_000
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])

/** Plain http only to a provider on this machine; anywhere else the library refuses it. */
export const plainHttpAllowed = (issuer: URL): boolean => issuer.protocol === 'http:' && LOOPBACK_HOSTS.has(issuer.hostname)

/** A sign-in that must end on an error page (400), never a session; the message is for the person. */
export class SignInRefused extends Error {}

/** The issuer's identifier a discovery URL stands for. */
export function issuerOf(discoverUrl: string): URL {
  const url = new URL(discoverUrl)
  if (url.pathname.endsWith(DISCOVERY_SUFFIX)) url.pathname = url.pathname.slice(0, -DISCOVERY_SUFFIX.length) || '/'
  return url
}

export function createOidcProviders() {
  const remembered = new Map<string, { until: number; configuration: Promise<client.Configuration> }>()

  return {
    /** The provider's configuration for these settings; a SignInRefused when it cannot be discovered. */
    async configurationFor(settings: OidcSettings): Promise<client.Configuration> {
      const key = hashSecret(JSON.stringify([settings.discoverUrl, settings.clientId, settings.secret, settings.idTokenSigningAlgorithm]))
      const now = Date.now()
      let entry = remembered.get(key)
      if (!entry || entry.until <= now) {
        const issuer = issuerOf(settings.discoverUrl)
        const configuration = client.discovery(
          issuer,
          settings.clientId,
          { client_secret: settings.secret, id_token_signed_response_alg: settings.idTokenSigningAlgorithm },
          client.ClientSecretBasic(settings.secret),
          {
            execute: [client.enableNonRepudiationChecks, ...(plainHttpAllowed(issuer) ? [client.allowInsecureRequests] : [])],
          },
        )
        entry = { until: now + REMEMBER_MS, configuration }
        remembered.clear()
        remembered.set(key, entry)
        // A failed discovery is not remembered: the next sign-in tries again.
        configuration.catch(() => remembered.delete(key))
      }
      try {
        return await entry.configuration
      } catch (error) {
        throw new SignInRefused(`The sign-in provider could not be used: ${messageOf(error)}`)
      }
    },
  }
}

export type OidcProviders = ReturnType<typeof createOidcProviders>

/** A library error's message, with its cause's (a network failure says what failed there). */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  // The provider's own error (an OAuth error response): its code and description say more than the library's sentence.
  const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown }
  if (typeof code === 'string') return typeof description === 'string' ? `${code} (${description})` : code
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.message}${cause}`
}
