/**
 * Swagger UI (@fastify/swagger-ui) at a prefix, under the same rules as the console: its page
 * loads only its own scripts and styles from this origin (its icons are `data:` images, its
 * specification and "Try it out" calls go to this origin), and no other site may frame it, so a
 * page elsewhere cannot overlay it to trick a click.
 */
import type { FastifyPluginAsync } from 'fastify'
import swaggerUi from '@fastify/swagger-ui'

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // The one inline style it renders: the <style> inside its top bar's SVG logo (swagger-ui 5's
  // standalone preset), allowed by its hash alone. test/console.browser.test.ts fails on any other.
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

export const docsUi: FastifyPluginAsync<{ routePrefix: string }> = async (app, { routePrefix }) => {
  // Every answer under the prefix (the page, its static files, the specification) carries them.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('content-security-policy', DOCS_CSP).header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer')
  })
  await app.register(swaggerUi, { routePrefix })
}
