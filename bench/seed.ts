/**
 * The benchmark's data: 1,000 flags in `default` and 200 dependencies (children 100–299,
 * each depending on parent i mod 100) through the API, then events written directly
 * (appendEvents, as the server does) up to 10,000 in total, one flag having exactly 100.
 */
import { createDb } from '../src/db/database.ts'
import { appendEvents } from '../src/features/events/event-store.ts'
import { auditContext, SYSTEM_ACTOR } from '../src/features/events/audit.ts'
import type { NewEvent } from '../src/features/events/event-types.ts'

export const flagName = (i: number) => `flag-${String(i).padStart(4, '0')}`
/** 3 parents, 3 of their children, 4 unrelated flags. */
export const BATCH = [
  flagName(0),
  flagName(1),
  flagName(2),
  flagName(100),
  flagName(101),
  flagName(102),
  flagName(900),
  flagName(901),
  flagName(902),
  flagName(903),
]
/**
 * The same question about other unrelated flags each time (4 of flags 300–899, 600 different
 * batches in turn): more than the validation answers remembered, so every one is a query.
 */
export const batchNotAskedBefore = (n: number) => [...BATCH.slice(0, 6), ...[0, 1, 2, 3].map((k) => flagName(300 + ((n + k) % 600)))]
export const FLAG_WITH_100_EVENTS = flagName(500)
const TOTAL_EVENTS = 10_000

async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++)
    }),
  )
}

async function post(url: string, token: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`seeding ${url}: ${response.status} ${await response.text()}`)
  await response.arrayBuffer()
}

export async function seedBenchData(baseUrl: string, token: string, env: Record<string, string>): Promise<void> {
  await inParallel(1000, 10, (i) =>
    post(`${baseUrl}/api/admin/projects/default/features`, token, { name: flagName(i), description: `Benchmark flag ${i}` }),
  )
  await inParallel(200, 10, (i) =>
    post(`${baseUrl}/api/admin/projects/default/features/${flagName(100 + i)}/dependencies`, token, { feature: flagName((100 + i) % 100) }),
  )
  const { totalEvents } = (await (await fetch(`${baseUrl}/api/admin/events`, { headers: { authorization: token } })).json()) as {
    totalEvents: number
  }

  const database = createDb({ databaseUrl: env.DATABASE_URL, databaseFile: env.DATABASE_FILE })
  try {
    const events: NewEvent[] = []
    const createdAt = new Date().toISOString()
    const flagEvent = (name: string): NewEvent => ({
      type: 'feature-created',
      featureName: name,
      project: 'default',
      data: {
        name,
        description: 'seeded',
        type: 'release',
        project: 'default',
        stale: false,
        createdAt,
        impressionData: false,
        archived: false,
      },
    })
    for (let i = 0; i < 99; i++) events.push(flagEvent(FLAG_WITH_100_EVENTS))
    for (let i = 0; events.length < TOTAL_EVENTS - totalEvents; i++) events.push(flagEvent(flagName(600 + (i % 400))))
    await database.db.transaction().execute((trx) => appendEvents(trx, auditContext(SYSTEM_ACTOR, 'system'), events))
  } finally {
    await database.close()
  }
}
