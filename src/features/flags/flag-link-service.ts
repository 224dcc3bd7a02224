/**
 * The links of flags: each change and its event (`feature-link-added`, `-updated`, `-removed`, as
 * the reference names them) in one transaction, with the flag held meanwhile (flag-link-store.ts).
 * An archived flag's links do not change; a flag deleted for good takes them along (the foreign key).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/tables.ts'
import { exceedsLimit, notFound, quote } from '../../http/errors.ts'
import { auditContext, type Actor, type AuditContext } from '../events/audit.ts'
import { appendEvents } from '../events/event-store.ts'
import type { LinkData, NewEvent } from '../events/event-types.ts'
import { archivedFlag, flagNotFound } from './flag-errors.ts'
import { MAX_LINKS_PER_FLAG, storedLink } from './flag-link-rules.ts'
import { createFlagLinkStore, type FlagLink, type LinkText } from './flag-link-store.ts'

export interface LinkBody {
  url: string
  title?: string | null
}

/** A link in its events: `title` only when it has one, as the reference writes them. */
const linkData = (link: LinkText): LinkData => (link.title === null ? { url: link.url } : { url: link.url, title: link.title })

const tooMany = (feature: string): ReturnType<typeof exceedsLimit> =>
  exceedsLimit(`Flag ${quote(feature)} would have more than ${MAX_LINKS_PER_FLAG} links, the most a flag can have.`)

const linkNotFound = (feature: string, id: string) => notFound(`Flag ${quote(feature)} has no link with id ${quote(id)}.`)

/** The flag of the path, held until the transaction ends: it must be an active flag of the project. */
async function holdActiveFlag(trx: Kysely<Database>, project: string, feature: string): Promise<void> {
  const flag = await createFlagLinkStore(trx).holdFlag(feature)
  if (!flag || flag.project !== project) throw flagNotFound(feature, project, flag)
  if (flag.archived) throw archivedFlag(feature)
}

export function createFlagLinkService({ db }: { db: Kysely<Database> }) {
  const inTransaction = (actor: Actor, work: (trx: Kysely<Database>, audit: AuditContext) => Promise<NewEvent[]>): Promise<void> =>
    db.transaction().execute(async (trx) => {
      const audit = auditContext(actor)
      await appendEvents(trx, audit, await work(trx, audit))
    })

  return {
    addLink: (project: string, feature: string, body: LinkBody, actor: Actor): Promise<void> => {
      const link = storedLink(body)
      return inTransaction(actor, async (trx, audit) => {
        await holdActiveFlag(trx, project, feature)
        const store = createFlagLinkStore(trx)
        if ((await store.count(feature)) >= MAX_LINKS_PER_FLAG) throw tooMany(feature)
        await store.insert(feature, [link], audit.createdAt)
        return [{ type: 'feature-link-added', featureName: feature, project, data: linkData(link) }]
      })
    },

    updateLink: (project: string, feature: string, id: string, body: LinkBody, actor: Actor): Promise<void> => {
      const link = storedLink(body)
      return inTransaction(actor, async (trx) => {
        await holdActiveFlag(trx, project, feature)
        const store = createFlagLinkStore(trx)
        const before = await store.find(feature, id)
        if (!before) throw linkNotFound(feature, id)
        await store.update(id, link)
        return [{ type: 'feature-link-updated', featureName: feature, project, data: linkData(link), preData: linkData(before) }]
      })
    },

    removeLink: (project: string, feature: string, id: string, actor: Actor): Promise<void> =>
      inTransaction(actor, async (trx) => {
        await holdActiveFlag(trx, project, feature)
        const store = createFlagLinkStore(trx)
        const before = await store.find(feature, id)
        if (!before) throw linkNotFound(feature, id)
        await store.delete([id])
        return [{ type: 'feature-link-removed', featureName: feature, project, preData: linkData(before) }]
      }),

    /**
     * Inside the caller's transaction (an import): the flag's links made those given, in that
     * order. Already so: nothing written. Otherwise its links are removed, then those given added
     * (new ids), each with its event. A bad link is a 400 at `/body/links/<index>/…`.
     */
    setLinksIn: async (trx: Kysely<Database>, project: string, feature: string, wanted: readonly LinkBody[], audit: AuditContext) => {
      const links = wanted.map((link, index) => storedLink(link, `/body/links/${index}`))
      if (links.length > MAX_LINKS_PER_FLAG) throw tooMany(feature)
      await holdActiveFlag(trx, project, feature)
      const store = createFlagLinkStore(trx)
      const current = await store.ofFlag(feature)
      const same = (a: readonly LinkText[], b: readonly LinkText[]) =>
        a.length === b.length && a.every((link, index) => link.url === b[index]!.url && link.title === b[index]!.title)
      if (same(current, links)) return
      await store.delete(current.map((link) => link.id))
      await store.insert(feature, links, audit.createdAt)
      await appendEvents(trx, audit, [
        ...current.map((link): NewEvent => ({ type: 'feature-link-removed', featureName: feature, project, preData: linkData(link) })),
        ...links.map((link): NewEvent => ({ type: 'feature-link-added', featureName: feature, project, data: linkData(link) })),
      ])
    },
  }
}

export type FlagLinkService = ReturnType<typeof createFlagLinkService>
export type { FlagLink }
