/**
 * An SMTP server in a process of its own, for the email tests: it takes every email (signed in as
 * `pennon` / `smtp-secret`, or without signing in) and prints it, parsed, as one JSON line:
 * `{auth, envelope, from, to, subject, text, html}`. Run by startSmtpReceiver(); prints its port first.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'

export const SMTP_USER = 'pennon'
export const SMTP_PASSWORD = 'smtp-secret'

if (process.argv[2] === 'serve') {
  const { SMTPServer } = await import('smtp-server')
  const { simpleParser } = await import('mailparser')
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to make, and sign-in allowed without TLS.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username })
      else callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const line = {
            auth: session.user ?? null,
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              to: session.envelope.rcptTo.map((to) => to.address),
            },
            from: mail.from?.text ?? null,
            to: Array.isArray(mail.to) ? mail.to.map((to) => to.text).join(', ') : (mail.to?.text ?? null),
            subject: mail.subject ?? null,
            text: mail.text ?? null,
            html: typeof mail.html === 'string' ? mail.html : null,
          }
          process.stdout.write(`${JSON.stringify(line)}\n`)
          callback()
        })
        .catch(callback)
    },
  })
  server.listen(0, '127.0.0.1', () => {
    const address = server.server.address()
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`)
  })
}

export interface ReceivedMail {
  auth: string | null
  envelope: { from: string; to: string[] }
  from: string
  to: string
  subject: string
  text: string
  html: string
}

export interface SmtpReceiver {
  port: number
  /** Every email received so far, oldest first. */
  mails: ReceivedMail[]
  /** The next email (after the `count` already seen), waiting up to 10 s for it. */
  waitForMail(count: number): Promise<ReceivedMail>
  stop(): Promise<void>
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })
  const mails: ReceivedMail[] = []
  const waiting: Array<() => void> = []
  const portLine = new Promise<string>((resolve) => lines.once('line', resolve))
  const port = Number(await portLine)
  lines.on('line', (line) => {
    mails.push(JSON.parse(line) as ReceivedMail)
    for (const wake of waiting.splice(0)) wake()
  })
  return {
    port,
    mails,
    async waitForMail(count) {
      const deadline = Date.now() + 10_000
      while (mails.length <= count) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`no email after ${count} in 10 s`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left)
          waiting.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
      return mails[count]!
    },
    async stop() {
      child.kill()
      if (child.exitCode === null) await once(child, 'exit')
    },
  }
}
