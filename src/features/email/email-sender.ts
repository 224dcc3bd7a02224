/**
 * Emails through the SMTP server of EMAIL_HOST (docs/authentication.md, "Email"). Without one,
 * nothing is sent and callers show the link instead. A send never throws: a failure is logged and
 * answered `false`, so what asked for the email (a user's creation) stands and says it was not sent.
 */
import type { Transporter } from 'nodemailer'
import type { EmailConfig } from '../../config.ts'

export interface Email {
  to: string
  subject: string
  text: string
  html: string
}

export interface EmailSender {
  /** Whether an SMTP server is configured: without one, `send` answers false at once. */
  readonly configured: boolean
  /** Sends one email; true when the server accepted it, false (logged) otherwise. */
  send(email: Email): Promise<boolean>
}

interface Log {
  info(object: object, message: string): void
  error(object: object, message: string): void
}

// A server that does not answer must not hold the request that sends the email for long.
const CONNECTION_TIMEOUT_MS = 10_000
const SOCKET_TIMEOUT_MS = 20_000

/** Sends nothing: without SMTP, and for the command line, which prints its links. */
export const NO_EMAIL: EmailSender = Object.freeze({ configured: false, send: async () => false })

export function createEmailSender(config: EmailConfig | undefined, log: Log): EmailSender {
  if (config === undefined) return NO_EMAIL
  // nodemailer is loaded at the first email, not at start: it and what it loads (Node's fetch
  // among them) keep about 20 MB resident, which an instance that serves SDKs never needs.
  let transport: Promise<Transporter> | undefined
  const transportOf = () =>
    (transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        host: config.host,
        port: config.port,
        secure: config.secure,
        ...(config.user === undefined ? {} : { auth: { user: config.user, pass: config.password ?? '' } }),
        connectionTimeout: CONNECTION_TIMEOUT_MS,
        greetingTimeout: CONNECTION_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
      }),
    ))
  return {
    configured: true,
    async send(email) {
      try {
        // One address, as an object: a comma in it must not make it a list of recipients.
        await (await transportOf()).sendMail({
          from: config.sender,
          to: { name: '', address: email.to },
          subject: email.subject,
          text: email.text,
          html: email.html,
        })
        log.info({ to: email.to, subject: email.subject }, 'email sent')
        return true
      } catch (error) {
        // The address is the reader's own business: logged to find the failure, the link never.
        log.error({ to: email.to, subject: email.subject, err: error }, 'email not sent')
        return false
      }
    },
  }
}
