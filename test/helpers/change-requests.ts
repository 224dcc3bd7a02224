/** Request helpers shared by the scheduled change request test files: an approved request, ready to schedule. */
import assert from 'node:assert/strict'
import { call, serviceAccountToken, type TestApp } from '../test-app.ts'
import { createFlag, projectPath } from './flags.ts'
import { addStrategy } from './strategies.ts'

export const PROD = 'production'
export const CR = `${projectPath()}/change-requests`

/** The ISO time `ms` from now. */
export const inMs = (ms: number) => new Date(Date.now() + ms).toISOString()

/**
 * Change requests required in `environment` (production) with `requiredApprovals` (1), or, with
 * `enabled: false`, no longer required there.
 */
export async function requireChangeRequests(
  pennon: TestApp,
  {
    environment = PROD,
    requiredApprovals = 1,
    enabled = true,
  }: { environment?: string; requiredApprovals?: number; enabled?: boolean } = {},
): Promise<void> {
  const body = enabled ? { changeRequestsEnabled: true, requiredApprovals } : { changeRequestsEnabled: false }
  const response = await call(pennon, 'PUT', `${projectPath()}/environments/${environment}/change-requests/config`, body)
  assert.equal(response.status, 204, response.text)
}

export const setState = (pennon: TestApp, token: string, id: number, state: string, extra: Record<string, unknown> = {}) =>
  call(pennon, 'PUT', `${CR}/${id}/state`, { state, ...extra }, { token })

/**
 * The flag `checkout`, off in production with a default strategy; change requests required there;
 * and an approved request (made by the Editor `author`, approved by the Editor `reviewer`) with
 * `changes` (by default: switch `checkout` on).
 */
export async function approvedRequest(pennon: TestApp, changes?: (strategyId: string) => Record<string, unknown>[]) {
  const author = await serviceAccountToken(pennon, 2, 'author')
  const reviewer = await serviceAccountToken(pennon, 2, 'reviewer')
  await createFlag(pennon, 'checkout')
  const strategy = await addStrategy(pennon, 'checkout', PROD, { name: 'default' })
  await requireChangeRequests(pennon)
  let id = 0
  for (const change of changes?.(strategy.id) ?? [{ feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } }]) {
    const added = await call(pennon, 'POST', `${projectPath()}/environments/${PROD}/change-requests`, change, { token: author })
    assert.equal(added.status, 200, added.text)
    id = added.body.id
  }
  assert.equal((await setState(pennon, author, id, 'In review')).status, 200)
  assert.equal((await setState(pennon, reviewer, id, 'Approved')).status, 200)
  return { author, reviewer, id, strategyId: strategy.id as string }
}

/** A new client token of the production environment. */
export async function productionClientToken(pennon: TestApp): Promise<string> {
  const token = await call(pennon, 'POST', '/api/admin/api-tokens', {
    tokenName: `c${Math.random()}`,
    type: 'client',
    environment: PROD,
    projects: ['*'],
  })
  assert.equal(token.status, 201, token.text)
  return token.body.secret
}
