/** Request helpers and checks shared by the tag test files. */
import assert from 'node:assert/strict'
import { call, type ApiResponse, type TestApp } from '../test-app.ts'
import { checkOneRequest } from './events.ts'

export const TAG_TYPES = '/api/admin/tag-types'
export const TAGS = '/api/admin/tags'
export const flagTagsPath = (feature: string) => `/api/admin/features/${encodeURIComponent(feature)}/tags`
export const tagPath = (type: string, value: string) => `${TAGS}/${encodeURIComponent(type)}/${encodeURIComponent(value)}`

/** The built-in tag type, as a fresh instance (and a fresh reference) shows it. */
export const SIMPLE = { name: 'simple', description: 'Used to simplify filtering of features', icon: '#', color: '#FFFFFF' }

export async function createTagType(pennon: TestApp, name: string, fields: Record<string, unknown> = {}): Promise<void> {
  const response = await call(pennon, 'POST', TAG_TYPES, { name, ...fields })
  assert.equal(response.status, 201, response.text)
}

/** Tags a flag and expects it to work. */
export async function tagFlag(pennon: TestApp, feature: string, type: string, value: string): Promise<void> {
  const response = await call(pennon, 'POST', flagTagsPath(feature), { type, value })
  assert.equal(response.status, 201, response.text)
}

export async function flagTags(pennon: TestApp, feature: string): Promise<Array<{ type: string; value: string; color: string | null }>> {
  const response = await call(pennon, 'GET', flagTagsPath(feature))
  assert.equal(response.status, 200, response.text)
  assert.equal(response.body.version, 1)
  return response.body.tags
}

/** A 200 with no body. */
export function assertEmpty(response: ApiResponse): void {
  assert.equal(response.status, 200, response.text)
  assert.equal(response.text, '')
}

/**
 * Checks that events were written by one request (one groupId, one createdAt, the admin token as
 * author, keys in order, no environment) and returns what is left to compare exactly.
 */
export function fromOneRequest(events: readonly any[]): any[] {
  return checkOneRequest(events).map((event) => {
    assert.equal(event.environment, null)
    const { type, featureName, project, data, preData, tags } = event
    return { type, featureName, project, data, preData, tags }
  })
}

/** An expected event, as fromOneRequest leaves it. */
export const event = (
  type: string,
  fields: { featureName?: string; project?: string; data?: unknown; preData?: unknown; tags?: unknown[] } = {},
) => ({
  type,
  featureName: fields.featureName ?? null,
  project: fields.project ?? (fields.featureName ? 'default' : null),
  data: fields.data ?? null,
  preData: fields.preData ?? null,
  tags: fields.tags ?? [],
})

/** An event's tag: `{value, type}`, the reference's order there. */
export const eventTag = (type: string, value: string) => ({ value, type })
