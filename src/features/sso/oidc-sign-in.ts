/**
 * Signing in with OpenID Connect (authorization code flow, PKCE, state and nonce): `begin` keeps
 * the state's hash, the nonce and the PKCE verifier in `oidc_logins` and sends the browser to the
 * provider; `finish` takes that row (once: a replayed state finds none), has the library check
 * the provider's answer and its ID token (issuer, audience, nonce, expiry, signature), finds the
 * person by their verified email (or makes their user, with autoCreate), and hands them to the
 * session feature, as the password sign-in does.
 */
import type { Kysely } from 'kysely'
import * as client from 'openid-client'
import type { Database } from '../../db/tables.ts'
import { AppError } from '../../http/errors.ts'
import { hashSecret } from '../api-tokens/token-secret.ts'
import { auditContext, SYSTEM_ACTOR } from '../events/audit.ts'
import { anyEventContaining } from '../events/event-store.ts'
import type { SessionService } from '../sessions/session-service.ts'
import type { UserService } from '../users/user-service.ts'
import { createUserStore, type UserRow } from '../users/user-store.ts'
import { inEmailDomains, rootRoleOfGroups, type OidcSettings } from './oidc-settings.ts'
import { messageOf, SignInRefused, type OidcProviders } from './oidc-provider.ts'
import { createOidcStore } from './oidc-store.ts'

// How long the provider may keep the person (signing in, consenting) before the sign-in is over.
const LOGIN_VALID_MS = 10 * 60_000
/** Sign-ins under way at once, at most: anyone may begin one, so what they store is bounded. */
export const MAX_PENDING_SIGN_INS = 10_000

export function createOidcSignIn({
  db,
  settings,
  providers,
  sessions,
  users,
}: {
  db: Kysely<Database>
  settings: () => Promise<OidcSettings>
  providers: OidcProviders
  sessions: Pick<SessionService, 'start'>
  users: Pick<UserService, 'insertUserIn' | 'update'>
}) {
  const enabledSettings = async (): Promise<OidcSettings> => {
    const current = await settings()
    if (!current.enabled) throw new SignInRefused('Single sign-on (OpenID Connect) is not enabled on this Pennon.')
    return current
  }

  /**
   * The user of this verified email, made when autoCreate allows it (with the root role of their
   * groups, else the default); an existing user gets the root role their groups give, if any.
   */
  async function personOf(email: string, name: string | undefined, current: OidcSettings, groupRole: number | undefined): Promise<UserRow> {
    const found = await createUserStore(db).findByLogin(email)
    if (found && (groupRole === undefined || groupRole === found.root_role)) return found
    if (found) {
      try {
        await users.update(found.id, { rootRole: groupRole }, SYSTEM_ACTOR)
      } catch (error) {
        // The last admin credential keeps its role (409): the person signs in with the role they have.
        if (!(error instanceof AppError && error.status === 409)) throw error
      }
      const updated = await createUserStore(db).findByLogin(email)
      if (!updated) throw new SignInRefused(`The user of ${email} was removed while signing in.`)
      return updated
    }
    if (!current.autoCreate) throw new SignInRefused(`No user of Pennon has the email ${email}: ask an admin to add you.`)
    // Removed by an admin: autoCreate does not bring them back (an admin may add them again by hand).
    if (await anyEventContaining(db, 'user-deleted', `"email":${JSON.stringify(email)}`))
      throw new SignInRefused(`The user of ${email} was removed from Pennon: ask an admin to add you again.`)
    if (!inEmailDomains(email, current.emailDomains))
      throw new SignInRefused(`Users are made on sign-in only for the email domains ${current.emailDomains}; ${email} is not one of them.`)
    try {
      await db
        .transaction()
        .execute((trx) =>
          users.insertUserIn(
            trx,
            { username: null, email, name: name?.trim() || null, rootRole: groupRole ?? current.defaultRootRoleId, passwordHash: null },
            auditContext(SYSTEM_ACTOR),
          ),
        )
    } catch (error) {
      // Signed in twice at once: the other sign-in made the user.
      if (!(await createUserStore(db).findByLogin(email))) throw error
    }
    const made = await createUserStore(db).findByLogin(email)
    if (!made) throw new SignInRefused(`The user of ${email} was removed while signing in.`)
    return made
  }

  return {
    /** Where to send the browser, and the state its cookie must carry back. */
    async begin(callbackUrl: string): Promise<{ location: string; state: string }> {
      // As a URL writes it (no default port): the code is redeemed with this URL, exactly as sent.
      const redirectUri = new URL(callbackUrl).href
      const current = await enabledSettings()
      const configuration = await providers.configurationFor(current)
      const state = client.randomState()
      const nonce = client.randomNonce()
      const codeVerifier = client.randomPKCECodeVerifier()
      const now = new Date()
      const begun = await createOidcStore(db).begin(
        {
          state_hash: hashSecret(state),
          nonce,
          code_verifier: codeVerifier,
          redirect_uri: redirectUri,
          expires_at: new Date(now.getTime() + LOGIN_VALID_MS).toISOString(),
        },
        now.toISOString(),
        MAX_PENDING_SIGN_INS,
      )
      if (!begun) throw new SignInRefused('Too many sign-ins are under way: try again in a few minutes.')
      const location = client.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: current.addGroupsScope ? 'openid email profile groups' : 'openid email profile',
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...(current.acrValues === '' ? {} : { acr_values: current.acrValues }),
      })
      return { location: location.href, state }
    },

    /**
     * The provider's answer (the callback's query), checked; the session it starts. `browserState`
     * is the state the browser's cookie carries: a state begun in another browser is refused.
     */
    async finish(query: URLSearchParams, browserState: string | undefined) {
      const error = query.get('error')
      if (error !== null) {
        const description = query.get('error_description')
        throw new SignInRefused(`The sign-in provider refused the sign-in: ${error}${description ? ` (${description})` : ''}.`)
      }
      const state = query.get('state')
      if (state === null || state === '' || state !== browserState)
        throw new SignInRefused('This sign-in was not begun in this browser: start it again from the sign-in page.')
      const login = await createOidcStore(db).take(hashSecret(state), new Date().toISOString())
      if (!login) throw new SignInRefused('This sign-in is over (used already, or expired): start it again from the sign-in page.')
      const current = await enabledSettings()
      const configuration = await providers.configurationFor(current)
      const answer = new URL(login.redirect_uri)
      answer.search = query.toString()
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
      try {
        tokens = await client.authorizationCodeGrant(configuration, answer, {
          pkceCodeVerifier: login.code_verifier,
          expectedNonce: login.nonce,
          expectedState: state,
          idTokenExpected: true,
        })
      } catch (failure) {
        throw new SignInRefused(`The sign-in provider's answer was refused: ${messageOf(failure)}`)
      }
      const claims: Record<string, unknown> = { ...tokens.claims()! }
      if (typeof claims.email !== 'string' || current.groupJsonPath !== '') {
        // Providers may give the email, or the groups, in the UserInfo answer only.
        try {
          Object.assign(claims, await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub)))
        } catch (failure) {
          throw new SignInRefused(`The sign-in provider's user information was refused: ${messageOf(failure)}`)
        }
      }
      const { email, email_verified: verified, name } = claims
      // A few providers write the flag as text.
      if (typeof email !== 'string' || (verified !== true && verified !== 'true'))
        throw new SignInRefused('The sign-in provider vouched for no email address of yours (a verified email is needed).')
      const row = await personOf(
        email.toLowerCase(),
        typeof name === 'string' ? name : undefined,
        current,
        rootRoleOfGroups(claims, current),
      )
      const idToken = tokens.id_token!
      try {
        return await sessions.start(row, (trx, sessionHash) => createOidcStore(trx).rememberIdToken(sessionHash, idToken))
      } catch (error) {
        // Deleted meanwhile (the session's key to the user fails): no session, and no 500.
        if (await createUserStore(db).find(row.id)) throw error
        throw new SignInRefused(`The user of ${row.email} was removed while signing in.`)
      }
    },

    /**
     * Single sign-out of this session, in two steps: what it needs is read now, before the session
     * ends (its ID token goes with it); the function returned, called once it ended, answers where
     * the browser goes next: the provider's end-session endpoint. Undefined for a session not
     * begun by single sign-on, or while enableSingleSignOut is off.
     */
    async signOut(sessionHash: string, postLogoutRedirectUri: string): Promise<(() => Promise<string | undefined>) | undefined> {
      const current = await settings()
      if (!current.enabled || !current.enableSingleSignOut) return undefined
      const idToken = await createOidcStore(db).idTokenOf(sessionHash)
      if (idToken === undefined) return undefined
      return async () => {
        try {
          const configuration = await providers.configurationFor(current)
          return client
            .buildEndSessionUrl(configuration, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirectUri })
            .toString()
        } catch {
          // No end-session endpoint, or the provider unreachable: Pennon's session is over all the same.
          return undefined
        }
      }
    },
  }
}

export type OidcSignIn = ReturnType<typeof createOidcSignIn>
