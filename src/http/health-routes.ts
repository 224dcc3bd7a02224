/** `/health` (liveness, the database answers) and `/ready` (readiness for orchestrators), without credentials. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { type Kysely, sql } from 'kysely'
import type { Database } from '../db/tables.ts'
import { ErrorResponse } from './common-schemas.ts'

const Good = Type.Object({ health: Type.Literal('GOOD') })

// On a reader: on SQLite the one writer connection is held by a transaction for its whole length
// (a large import: seconds), and liveness must not wait for it; a read connection still proves the
// database file answers. On PostgreSQL `reader` is the pool.
export const healthRoutes: FastifyPluginAsyncTypebox<{ reader: Kysely<Database> }> = async (app, { reader }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        summary: 'Liveness and database check',
        response: { 200: Good, 500: ErrorResponse },
      },
    },
    async () => {
      await sql`select 1`.execute(reader)
      return { health: 'GOOD' as const }
    },
  )

  app.get(
    '/ready',
    {
      schema: {
        tags: ['Service'],
        summary: 'Readiness: the database answers',
        description: 'For orchestrators: 200 while the database answers a query, 503 with no body while it does not.',
        response: { 200: Good, 503: Type.Null({ description: 'Not ready: no body.' }) },
      },
    },
    async (_request, reply) => {
      // Not ready is an answer here, not an error: the reference's 503 has no body.
      try {
        await sql`select 1`.execute(reader)
      } catch (error) {
        app.log.warn({ err: error }, 'readiness check: the database did not answer')
        // No body at all (not `null`): the reply's type insists on one, the reference sends none.
        return (reply as FastifyReply).code(503).send()
      }
      return { health: 'GOOD' as const }
    },
  )
}
