export const PERMISSIONS = [
  'ADMIN',
  'CREATE_FEATURE',
  'UPDATE_FEATURE',
  'DELETE_FEATURE',
  'UPDATE_FEATURE_DEPENDENCY',
  'UPDATE_FEATURE_ENVIRONMENT',
  'CREATE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_STRATEGY',
  'DELETE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  'CREATE_STRATEGY',
  'UPDATE_STRATEGY',
  'DELETE_STRATEGY',
  'CREATE_SEGMENT',
  'UPDATE_SEGMENT',
  'DELETE_SEGMENT',
  'UPDATE_PROJECT_SEGMENT',
  'CREATE_PROJECT',
  'UPDATE_PROJECT',
  'DELETE_PROJECT',
  'CREATE_CONTEXT_FIELD',
  'UPDATE_CONTEXT_FIELD',
  'DELETE_CONTEXT_FIELD',
  // A project's own context fields (the reference gives it to a project's owners; here ADMIN holds it).
  'UPDATE_PROJECT_CONTEXT',
  'CREATE_TAG_TYPE',
  'UPDATE_TAG_TYPE',
  'DELETE_TAG_TYPE',
  'CREATE_ADDON',
  'UPDATE_ADDON',
  'DELETE_ADDON',
  'READ_PROJECT_API_TOKEN',
  'CREATE_PROJECT_API_TOKEN',
  'DELETE_PROJECT_API_TOKEN',
  // Change requests (docs/change-requests.md): the reference's environment permissions.
  'APPROVE_CHANGE_REQUEST',
  'APPLY_CHANGE_REQUEST',
  'SKIP_CHANGE_REQUEST',
  // A project's change-request settings: admin-only here, so that four eyes cannot be switched off by one Editor.
  'PROJECT_CHANGE_REQUEST_WRITE',
  'UPDATE_APPLICATION',
] as const
export type Permission = (typeof PERMISSIONS)[number]

/** What a route needs: one permission, any one of several, or NONE (any admin-API credential). */
export type RoutePermission = Permission | readonly Permission[] | 'NONE'

export const ROOT_ROLES = { Admin: 1, Editor: 2, Viewer: 3 } as const
export type RootRole = (typeof ROOT_ROLES)[keyof typeof ROOT_ROLES]

/**
 * What only an Admin may do: ADMIN itself, a project's own segments and context fields (the
 * reference gives those to a project's owners; Pennon has no project roles, so ADMIN holds them),
 * and going around change requests or changing where they are required (the reference gives those
 * by custom roles only).
 */
export const ADMIN_ONLY_PERMISSIONS: readonly Permission[] = [
  'ADMIN',
  'UPDATE_PROJECT_SEGMENT',
  'UPDATE_PROJECT_CONTEXT',
  'SKIP_CHANGE_REQUEST',
  'PROJECT_CHANGE_REQUEST_WRITE',
]

/**
 * The Editor: every permission but the admin-only ones, as the reference's Editor. Flag
 * environments in every environment (Pennon has no per-environment roles); creating, deleting
 * and applying tags needs UPDATE_FEATURE.
 */
export const EDITOR_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((permission) => !ADMIN_ONLY_PERMISSIONS.includes(permission))

export function rolePermissions(rootRole: number): ReadonlySet<Permission> {
  if (rootRole === ROOT_ROLES.Admin) return new Set(['ADMIN'])
  if (rootRole === ROOT_ROLES.Editor) return new Set(EDITOR_PERMISSIONS)
  return new Set()
}

export type PrincipalKind = 'admin-token' | 'client-token' | 'frontend-token' | 'service-account' | 'user' | 'open-access'

/** The authenticated caller of an admin request; also the actor its changes' events name (events/audit.ts). */
export interface Principal {
  readonly name: string
  readonly userId: number
  readonly kind: PrincipalKind
  readonly permissions: ReadonlySet<Permission>
  /** Client and frontend tokens: the environment and projects (`*`: all) they read flags of. */
  readonly scope?: TokenScope
  /** A user signed in with a session cookie: the session's secret hash (what signing out ends). */
  readonly session?: string
}

/** A person (kind `user`) as their events name them: email if they have one, else username, and their id. */
export function userPrincipal(
  user: { id: number; email: string | null; username: string | null; root_role: number },
  session?: string,
): Principal {
  return {
    kind: 'user',
    name: user.email ?? user.username ?? String(user.id),
    userId: user.id,
    permissions: rolePermissions(user.root_role),
    ...(session === undefined ? {} : { session }),
  }
}

export interface TokenScope {
  readonly environment: string
  readonly projects: readonly string[]
}

/** `AUTH_TYPE=none`: everybody is this built-in admin. */
export const OPEN_ACCESS_PRINCIPAL: Principal = Object.freeze({
  kind: 'open-access',
  name: 'unknown',
  userId: -1,
  permissions: new Set<Permission>(['ADMIN']),
})

export function adminTokenPrincipal(tokenName: string): Principal {
  return { kind: 'admin-token', name: tokenName, userId: -42, permissions: new Set(['ADMIN']) }
}

/** Client and frontend tokens authenticate but hold no admin permission at all. */
export function isAdminApiCredential(principal: Principal): boolean {
  return principal.kind !== 'client-token' && principal.kind !== 'frontend-token'
}

/** Returns the permissions a caller lacks for a route, or null when it may proceed. */
export function missingPermissions(principal: Principal, needed: RoutePermission): readonly Permission[] | null {
  if (!isAdminApiCredential(principal)) return needed === 'NONE' ? [] : typeof needed === 'string' ? [needed] : needed
  if (needed === 'NONE' || principal.permissions.has('ADMIN')) return null
  const alternatives = typeof needed === 'string' ? [needed] : needed
  return alternatives.some((permission) => principal.permissions.has(permission)) ? null : alternatives
}
