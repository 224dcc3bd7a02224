/**
 * A bare node:http server: the ceiling Pennon's figures are compared with.
 *   node bench/ceiling-server.ts cached <file>     answers the file's bytes on every GET
 *   node bench/ceiling-server.ts stringify <file>  parses the file once, JSON.stringify per GET
 *   node bench/ceiling-server.ts post              reads a small JSON body, parses it, answers a small JSON
 *   node bench/ceiling-server.ts fastify <file>    a bare Fastify app (no hooks, no logger) answering the file's bytes:
 *                                                  what the framework Pennon is built on costs by itself
 *   node bench/ceiling-server.ts fastify-post      a bare Fastify app validating a `{features: string[]}` body
 *                                                  against a schema and answering a small JSON: the same for (a)
 *   node bench/ceiling-server.ts replay <file>     answers every GET with the status, headers and body of an answer
 *                                                  Pennon sent (a JSON {status, headers, body}: bench/sdk-data.ts)
 *   node bench/ceiling-server.ts fastify-replay <file>  the same from a bare Fastify app (no hooks, no logger)
 */
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const [mode, file] = process.argv.slice(2)
const text = file ? readFileSync(file, 'utf8') : ''
const cached = Buffer.from(text)
const parsed = text ? JSON.parse(text) : null
const replayed = mode === 'replay' ? (parsed as { status: number; headers: Record<string, string>; body: string }) : undefined
const replayedBody = Buffer.from(replayed?.body ?? '')

if (mode === 'fastify' || mode === 'fastify-post' || mode === 'fastify-replay') {
  const { default: Fastify } = await import('fastify')
  const app = Fastify({ logger: false })
  if (mode === 'fastify-replay') {
    const { status, headers, body } = parsed as { status: number; headers: Record<string, string>; body: string }
    const bytes = Buffer.from(body)
    app.get('/*', async (_request, reply) =>
      reply
        .code(status)
        .headers(headers)
        .send(status === 304 ? undefined : bytes),
    )
  } else app.get('/*', async (_request, reply) => reply.type('application/json; charset=utf-8').send(cached))
  app.post(
    '/*',
    {
      schema: {
        body: {
          type: 'object',
          required: ['features'],
          additionalProperties: false,
          properties: { features: { type: 'array', items: { type: 'string' } } },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              parentsWithChildFeatures: { type: 'array', items: { type: 'string' } },
              hasDeletedDependencies: { type: 'boolean' },
            },
          },
        },
      },
    },
    async (request) => ({
      parentsWithChildFeatures: [],
      hasDeletedDependencies: (request.body as { features: string[] }).features.length > 0,
    }),
  )
  await app.listen({ port: 0, host: '127.0.0.1' })
  console.log(`ceiling listening at http://127.0.0.1:${(app.server.address() as { port: number }).port}`)
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
}

const server =
  mode === 'fastify' || mode === 'fastify-post' || mode === 'fastify-replay'
    ? undefined
    : createServer((request, response) => {
        if (mode === 'post') {
          let body = ''
          request.setEncoding('utf8')
          request.on('data', (chunk) => (body += chunk))
          request.on('end', () => {
            const input = JSON.parse(body) as { features?: string[]; name?: string }
            const answer = JSON.stringify({ parentsWithChildFeatures: [], hasDeletedDependencies: Boolean(input.features ?? input.name) })
            response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) })
            response.end(answer)
          })
          return
        }
        if (replayed) {
          response.writeHead(replayed.status, replayed.headers)
          response.end(replayed.status === 304 ? undefined : replayedBody)
          return
        }
        const payload = mode === 'cached' ? cached : Buffer.from(JSON.stringify(parsed))
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': payload.length })
        response.end(payload)
      })
server?.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number }
  console.log(`ceiling listening at http://127.0.0.1:${port}`)
})
if (server) process.on('SIGTERM', () => server.close(() => process.exit(0)))
