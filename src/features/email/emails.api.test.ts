import assert from 'node:assert/strict'
import { test } from 'node:test'
import { closedPort } from '../../../test/helpers/ports.ts'
import { ConfigError, loadConfig } from '../../config.ts'
import { call, onEachDatabase, useTestApp, type TestApp } from '../../../test/test-app.ts'
import { PASSWORD, signIn } from '../../../test/people.ts'
import { SMTP_PASSWORD, SMTP_USER, startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from '../../../test/smtp-receiver.ts'

const PUBLIC_URL = 'https://flags.example.com'
const SENDER = 'Pennon Flags <flags@example.com>'
const NEW_PASSWORD = 'Another-Good-Pass-42'

async function useSmtp(t: { after(fn: () => Promise<void>): void }): Promise<SmtpReceiver> {
  const receiver = await startSmtpReceiver()
  t.after(() => receiver.stop())
  return receiver
}

const smtpEnv = (port: number) => ({
  PUBLIC_URL,
  EMAIL_HOST: '127.0.0.1',
  EMAIL_PORT: String(port),
  EMAIL_USER: SMTP_USER,
  EMAIL_PASSWORD: SMTP_PASSWORD,
  EMAIL_SENDER: SENDER,
})

/** The one link of an email's text, and the token in it. */
function linkOf(mail: ReceivedMail): { link: string; token: string } {
  const links = mail.text.match(/https?:\/\/\S+/g) ?? []
  assert.equal(links.length, 1, mail.text)
  const link = links[0]!
  assert.ok(mail.html.includes(`href="${link}"`), 'the HTML has the same link')
  const token = /^https:\/\/flags\.example\.com\/#\/reset-password\?token=([0-9A-Za-z_-]+)$/.exec(link)?.[1]
  assert.ok(token, link)
  return { link, token }
}

async function setPasswordWith(pennon: TestApp, token: string, password: string): Promise<void> {
  const reset = await call(pennon, 'POST', '/auth/reset/password', { token, password }, { token: null })
  assert.equal(reset.status, 200, reset.text)
}

test('EMAIL_*: read as Unleash names them; bad values stop the start', () => {
  assert.equal(loadConfig({}).email, undefined)
  assert.deepEqual(loadConfig({ EMAIL_HOST: 'smtp.example.com' }).email, {
    host: 'smtp.example.com',
    port: 587,
    secure: false,
    user: undefined,
    password: undefined,
    sender: 'Pennon <noreply@pennon.local>',
  })
  assert.deepEqual(loadConfig({ ...smtpEnv(465), EMAIL_SECURE: 'true' }).email, {
    host: '127.0.0.1',
    port: 465,
    secure: true,
    user: SMTP_USER,
    password: SMTP_PASSWORD,
    sender: SENDER,
  })
  assert.throws(() => loadConfig({ EMAIL_HOST: 'smtp.example.com', EMAIL_PORT: '70000' }), ConfigError)
  assert.throws(() => loadConfig({ EMAIL_HOST: 'smtp.example.com', EMAIL_SECURE: 'yes' }), /EMAIL_SECURE must be "true" or "false"/)
  assert.throws(() => loadConfig({ EMAIL_HOST: 'smtp.example.com', EMAIL_SENDER: 'nobody' }), /EMAIL_SENDER/)
  assert.throws(() => loadConfig({ EMAIL_HOST: 'smtp.example.com', EMAIL_SENDER: 'a@b.c\r\nBcc: x@y.z' }), /EMAIL_SENDER/)
  assert.throws(() => loadConfig({ EMAIL_HOST: 'smtp example' }), /EMAIL_HOST/)
})

onEachDatabase('emails', (database) => {
  test('a new user is mailed a welcome with the invite link; the link sets the password and they sign in', async (t) => {
    const smtp = await useSmtp(t)
    const pennon = await useTestApp(t, database, { env: smtpEnv(smtp.port) })
    const created = await call(pennon, 'POST', '/api/admin/user-admin', {
      email: 'Grace@Example.com',
      name: 'Grace <Hopper>',
      rootRole: 'Editor',
      sendEmail: true,
    })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.body.emailSent, true)
    const mail = await smtp.waitForMail(0)
    assert.deepEqual(
      { auth: mail.auth, envelope: mail.envelope, from: mail.from, to: mail.to, subject: mail.subject },
      {
        auth: SMTP_USER,
        envelope: { from: 'flags@example.com', to: ['grace@example.com'] },
        from: '"Pennon Flags" <flags@example.com>',
        to: 'grace@example.com',
        subject: 'Welcome to Pennon',
      },
    )
    const { link, token } = linkOf(mail)
    assert.equal(link, created.body.inviteLink, 'the answer still shows the link')
    assert.match(mail.text, /^Hello Grace <Hopper>,\n/)
    assert.ok(mail.html.includes('Hello Grace &#60;Hopper&#62;,'), 'names are escaped in HTML')

    await setPasswordWith(pennon, token, NEW_PASSWORD)
    await signIn(pennon, 'grace@example.com', NEW_PASSWORD)
    const again = await call(pennon, 'POST', '/auth/reset/password', { token, password: PASSWORD }, { token: null })
    assert.equal(again.status, 401, 'the link is used up')

    // sendEmail absent: mailed too (the reference's default); false: not; no email address: nothing to mail.
    const byDefault = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'linus@example.com', rootRole: 3, password: PASSWORD })
    assert.equal(byDefault.body.emailSent, true)
    const welcome = await smtp.waitForMail(1)
    assert.equal(welcome.to, 'linus@example.com')
    assert.equal(
      welcome.text,
      `Hello,\n\nAn account has been made for you in Pennon, where feature flags are managed.\nSign in with this email and the password you were given.\n\n${PUBLIC_URL}/\n`,
    )
    const quiet = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'quiet@example.com', rootRole: 3, sendEmail: false })
    assert.equal(quiet.body.emailSent, false)
    assert.equal(typeof quiet.body.inviteLink, 'string')
    const noAddress = await call(pennon, 'POST', '/api/admin/user-admin', { username: 'nomail', rootRole: 3, sendEmail: true })
    assert.equal(noAddress.body.emailSent, false)
    // The next email is the reset below: nothing was sent in between.
    const reset = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: 'linus@example.com' })
    assert.equal(reset.status, 200, reset.text)
    const resetMail = await smtp.waitForMail(2)
    assert.equal(resetMail.to, 'linus@example.com')
    assert.equal(resetMail.subject, 'Pennon: choose a new password')
    assert.equal(linkOf(resetMail).link, reset.body.resetPasswordUrl)
    await setPasswordWith(pennon, linkOf(resetMail).token, NEW_PASSWORD)
    await signIn(pennon, 'linus@example.com', NEW_PASSWORD)
    assert.equal(smtp.mails.length, 3)

    // An address with a comma (which the address rule lets through) stays one recipient.
    const comma = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'x,eve@example.com', rootRole: 3, sendEmail: true })
    assert.equal(comma.status, 201, comma.text)
    const commaMail = await smtp.waitForMail(3)
    assert.deepEqual(commaMail.envelope.to, ['"x,eve"@example.com'], 'quoted: one address')
  })

  test('POST /auth/reset/password-email: 200 for any address; a known one is mailed a link that works; throttled', async (t) => {
    const smtp = await useSmtp(t)
    const pennon = await useTestApp(t, database, { env: { ...smtpEnv(smtp.port), TRUST_PROXY: 'true' } })
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const created = await call(pennon, 'POST', '/api/admin/user-admin', { email, rootRole: 3, password: PASSWORD, sendEmail: false })
      assert.equal(created.status, 201)
    }
    const ask = (email: string, ip = '127.0.0.1') =>
      call(pennon, 'POST', '/auth/reset/password-email', { email }, { token: null, headers: { 'x-forwarded-for': ip } })

    const unknown = await ask('nobody@example.com')
    assert.deepEqual([unknown.status, unknown.text], [200, ''])
    assert.deepEqual([(await ask('not an address')).status, (await ask('')).status], [200, 200])
    const known = await ask('ADA@example.com')
    assert.deepEqual([known.status, known.text], [200, ''], 'answered as for an unknown address')
    const mail = await smtp.waitForMail(0)
    assert.deepEqual([mail.to, mail.subject], ['ada@example.com', 'Pennon: choose a new password'], 'no email for the unknown ones before')
    await setPasswordWith(pennon, linkOf(mail).token, NEW_PASSWORD)
    await signIn(pennon, 'ada@example.com', NEW_PASSWORD)

    // One email per address a minute: asked again, answered alike and dropped.
    assert.equal((await ask('ada@example.com')).status, 200)
    assert.equal((await ask('bob@example.com')).status, 200)
    assert.equal((await smtp.waitForMail(1)).to, 'bob@example.com', "Ada's second ask sent nothing")

    // Ten asks per client address per 15 minutes (six so far), then 429 for that address only.
    for (let i = 0; i < 4; i++) assert.equal((await ask(`someone-${i}@example.com`)).status, 200)
    const refused = await ask('bob@example.com')
    assert.equal(refused.status, 429)
    assert.equal(refused.body.name, 'TooManyRequestsError')
    assert.ok(Number(refused.headers['retry-after']) > 0)
    assert.equal((await ask('someone@example.com', '10.0.0.9')).status, 200, 'another client is still answered')

    const bad = await call(pennon, 'POST', '/auth/reset/password-email', { email: 'a@example.com', extra: 1 }, { token: null })
    assert.equal(bad.status, 400)
    assert.equal(smtp.mails.length, 2)
  })

  test('SMTP down: the user is created and the answer says no email went; the failure is logged', async (t) => {
    const pennon = await useTestApp(t, database, { env: smtpEnv(await closedPort()) })
    const created = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'eve@example.com', rootRole: 2, sendEmail: true })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.body.emailSent, false)
    assert.match(created.body.inviteLink, /^https:\/\/flags\.example\.com\/#\/reset-password\?token=/)
    assert.equal((await call(pennon, 'GET', `/api/admin/user-admin/${created.body.id}`)).status, 200)
    const logged = pennon.logs.map((line) => JSON.parse(line)).find((line) => line.msg === 'email not sent')
    assert.equal(logged?.to, 'eve@example.com')
    assert.ok(!JSON.stringify(logged).includes(created.body.inviteLink.split('token=')[1]), 'the link is not logged')
    // The admin's reset still answers the link to hand over.
    const reset = await call(pennon, 'POST', '/api/admin/user-admin/reset-password', { id: created.body.id })
    assert.equal(reset.status, 200)
    assert.match(reset.body.resetPasswordUrl, /token=/)
  })

  test('without SMTP: links are shown, nothing is sent, the public ask answers 200 all the same', async (t) => {
    const pennon = await useTestApp(t, database, { env: { PUBLIC_URL } })
    const created = await call(pennon, 'POST', '/api/admin/user-admin', { email: 'kim@example.com', rootRole: 2, sendEmail: true })
    assert.equal(created.body.emailSent, false)
    assert.match(created.body.inviteLink, /^https:\/\/flags\.example\.com\/#\/reset-password\?token=/)
    const ask = await call(pennon, 'POST', '/auth/reset/password-email', { email: 'kim@example.com' }, { token: null })
    assert.deepEqual([ask.status, ask.text], [200, ''])
  })
})
