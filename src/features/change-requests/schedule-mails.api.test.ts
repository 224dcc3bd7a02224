// Emails about a schedule gone wrong: failed when due, or suspended; to the author and to who
// scheduled it (those still there), after the commit, through a real SMTP server in its own process.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { closedPort } from '../../../test/helpers/ports.ts'
import { call, eventually, onEachDatabase, serviceAccountToken, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { createFlag, projectPath } from '../../../test/helpers/flags.ts'
import { asBrowser, createUser, signIn } from '../../../test/people.ts'
import { SMTP_PASSWORD, SMTP_USER, startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from '../../../test/smtp-receiver.ts'

const PROD = 'production'
const CR = `${projectPath()}/change-requests`
const PUBLIC_URL = 'https://flags.example.com'
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString()

async function useSmtp(t: { after(fn: () => Promise<void>): void }): Promise<SmtpReceiver> {
  const receiver = await startSmtpReceiver()
  t.after(() => receiver.stop())
  return receiver
}

const env = (port: number) => ({
  CHANGE_REQUEST_SCHEDULER_INTERVAL_MS: '50',
  PUBLIC_URL,
  EMAIL_HOST: '127.0.0.1',
  EMAIL_PORT: String(port),
  EMAIL_USER: SMTP_USER,
  EMAIL_PASSWORD: SMTP_PASSWORD,
  EMAIL_SENDER: 'Pennon <flags@example.com>',
})

type As = Parameters<typeof call>[4]
const setState = (pennon: TestApp, as: As, id: number, state: string, extra: Record<string, unknown> = {}) =>
  call(pennon, 'PUT', `${CR}/${id}/state`, { state, ...extra }, as)
const requestOf = async (pennon: TestApp, id: number) => (await call(pennon, 'GET', `${CR}/${id}`)).body

/** A signed-in Editor with an email (no welcome email). */
async function person(pennon: TestApp, email: string, name: string): Promise<{ id: number; as: As }> {
  const id = await createUser(pennon, email, 2, { name, sendEmail: false })
  return { id, as: asBrowser(await signIn(pennon, email)) }
}

/**
 * Ann's Approved request: switch "checkout" on in production and delete the segment "old";
 * Sam may schedule it. Answers the request's id, its segment change's id and the segment's id.
 */
async function setUp(pennon: TestApp) {
  await createFlag(pennon, 'checkout')
  const segment = await call(pennon, 'POST', '/api/admin/segments', { name: 'old', project: 'default', constraints: [] })
  assert.equal(segment.status, 201, segment.text)
  const protect = await call(pennon, 'PUT', `${projectPath()}/environments/${PROD}/change-requests/config`, { changeRequestsEnabled: true })
  assert.equal(protect.status, 204, protect.text)
  const ann = await person(pennon, 'ann@example.com', 'Ann')
  const sam = await person(pennon, 'sam@example.com', 'Sam')
  const reviewer = { token: await serviceAccountToken(pennon, 2, 'reviewer') }
  const added = await call(
    pennon,
    'POST',
    `${projectPath()}/environments/${PROD}/change-requests`,
    [
      { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } },
      { feature: null, action: 'deleteSegment', payload: { id: segment.body.id } },
    ],
    ann.as,
  )
  assert.equal(added.status, 200, added.text)
  const id: number = added.body.id
  assert.equal((await setState(pennon, ann.as, id, 'In review')).status, 200)
  assert.equal((await setState(pennon, reviewer, id, 'Approved')).status, 200)
  return { ann, sam, reviewer, id, changeId: added.body.segments[0].id as number, segmentId: segment.body.id as number }
}

/** The email's text as the person named gets it. */
function expectedText(name: string, id: number, scheduledAt: string, happened: string, reason: string): string {
  return [
    `Hello ${name},`,
    `Change request #${id} "Change request #${id}" of project "default" was scheduled for ${scheduledAt} in the "production" environment.`,
    happened,
    'Flags: checkout',
    'Segments: old',
    `Reason: ${reason}`,
    '',
  ]
    .join('\n\n')
    .concat(`${PUBLIC_URL}/#/projects/default/change-requests/${id}\n`)
}

function checkMail(mail: ReceivedMail, to: string, subject: string, text: string): void {
  assert.deepEqual({ to: mail.to, subject: mail.subject, text: mail.text }, { to, subject, text })
  assert.ok(mail.html.includes(`<a href="${PUBLIC_URL}/#/projects/default/change-requests/`), mail.html)
}

const FAILED =
  'It could not be applied: nothing of it was applied, and it will not be tried again. Schedule it again, apply it, or cancel it.'
const SUSPENDED = 'Its schedule is suspended: it will not be applied until someone who may apply it schedules it again or applies it.'

onEachDatabase('emails about schedules', (database) => {
  test('a schedule that fails when due: the author and who scheduled it are mailed the request, its flags and segments, the reason and a link', async (t) => {
    const smtp = await useSmtp(t)
    const pennon = await useTestApp(t, database, { env: env(smtp.port) })
    const { sam, id, changeId, segmentId } = await setUp(pennon)
    const scheduledAt = inMs(400)
    assert.equal((await setState(pennon, sam.as, id, 'Scheduled', { scheduledAt })).status, 200)
    // Deleted directly (an Admin skips change requests): the request's deletion conflicts when due.
    assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${segmentId}`)).status, 204)

    const first = await smtp.waitForMail(0)
    const second = await smtp.waitForMail(1)
    const reason = `Change request ${id} cannot be applied: change ${changeId} (deleteSegment of segment ${segmentId}) conflicts with the segment as it is now: Segment ${segmentId} does not exist. Nothing was applied.`
    const subject = `Pennon: scheduled change request #${id} failed`
    checkMail(first, 'ann@example.com', subject, expectedText('Ann', id, scheduledAt, FAILED, reason))
    checkMail(second, 'sam@example.com', subject, expectedText('Sam', id, scheduledAt, FAILED, reason))
    // Sent after the commit: the request already says so.
    assert.deepEqual((await requestOf(pennon, id)).schedule, { scheduledAt, status: 'failed', reason, failureReason: reason })
    assert.equal(smtp.mails.length, 2)
  })

  test('suspended: the author, and who scheduled it while still there, are mailed', async (t) => {
    const smtp = await useSmtp(t)
    const pennon = await useTestApp(t, database, { env: env(smtp.port) })
    const { sam, id } = await setUp(pennon)
    const scheduledAt = inMs(3_600_000)
    assert.equal((await setState(pennon, sam.as, id, 'Scheduled', { scheduledAt })).status, 200)

    // Sam may no longer apply: both are told.
    assert.equal((await call(pennon, 'PUT', `/api/admin/user-admin/${sam.id}`, { rootRole: 3 })).status, 200)
    const mayNot = `The user who scheduled this change request (user id: ${sam.id}) no longer has the APPLY_CHANGE_REQUEST permission.`
    const subject = `Pennon: scheduled change request #${id} suspended`
    checkMail(await smtp.waitForMail(0), 'ann@example.com', subject, expectedText('Ann', id, scheduledAt, SUSPENDED, mayNot))
    checkMail(await smtp.waitForMail(1), 'sam@example.com', subject, expectedText('Sam', id, scheduledAt, SUSPENDED, mayNot))

    // Scheduled again by a new Editor, who is then deleted: only the author is left to tell.
    const zoe = await person(pennon, 'zoe@example.com', 'Zoe')
    const again = inMs(3_600_000)
    assert.equal((await setState(pennon, zoe.as, id, 'Scheduled', { scheduledAt: again })).status, 200)
    assert.equal((await call(pennon, 'DELETE', `/api/admin/user-admin/${zoe.id}`)).status, 200)
    const deleted = `The user who scheduled this change request (user id: ${zoe.id}) has been deleted.`
    checkMail(await smtp.waitForMail(2), 'ann@example.com', subject, expectedText('Ann', id, again, SUSPENDED, deleted))
    assert.deepEqual((await requestOf(pennon, id)).schedule, { scheduledAt: again, status: 'suspended', reason: deleted })
    // Nothing was sent to the deleted Zoe: the next email is the reset asked for now.
    const reset = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: 'ann@example.com' })
    assert.equal(reset.status, 200, reset.text)
    assert.deepEqual([(await smtp.waitForMail(3)).subject, smtp.mails.length], ['Pennon: choose a new password', 4])
  })

  test('an SMTP server that does not answer changes nothing: the schedule is failed, the request as before', async (t) => {
    const pennon = await useTestApp(t, database, { env: env(await closedPort()) })
    const { ann, sam, id, segmentId } = await setUp(pennon)
    const scheduledAt = inMs(300)
    assert.equal((await setState(pennon, sam.as, id, 'Scheduled', { scheduledAt })).status, 200)
    assert.equal((await call(pennon, 'DELETE', `/api/admin/segments/${segmentId}`)).status, 204)
    await eventually(async () => (await requestOf(pennon, id)).schedule.status === 'failed', 'the failed schedule')
    const request = await requestOf(pennon, id)
    assert.equal(request.state, 'Scheduled')
    assert.match(request.schedule.reason, /^Change request \d+ cannot be applied: /)
    // The request goes on as usual: its author cancels it.
    assert.equal((await setState(pennon, ann.as, id, 'Cancelled')).status, 200)
  })
})
