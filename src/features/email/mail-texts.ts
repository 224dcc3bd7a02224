/** The emails' words: plain text and simple HTML of the same message. The HTML escapes what it is given. */
import type { Email } from './email-sender.ts'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)

function html(paragraphs: string[], link: { href: string; label: string } | undefined): string {
  const body = paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')
  const button = link ? `\n<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : ''
  return `<!doctype html>\n<html><body style="font-family: sans-serif; line-height: 1.5">\n${body}${button}\n</body></html>\n`
}

const greeting = (name: string | null) => (name ? `Hello ${name},` : 'Hello,')

/** The welcome of a new user: with a link to set their password (an invite), or where to sign in. */
export function welcomeEmail(to: string, name: string | null, inviteLink: string | undefined, signInUrl: string): Email {
  const intro = 'An account has been made for you in Pennon, where feature flags are managed.'
  if (inviteLink !== undefined) {
    const ask = 'Choose your password with the link below (it works for 7 days and only once); then sign in with this email.'
    return {
      to,
      subject: 'Welcome to Pennon',
      text: `${greeting(name)}\n\n${intro}\n${ask}\n\n${inviteLink}\n`,
      html: html([greeting(name), intro, ask], { href: inviteLink, label: 'Choose your password' }),
    }
  }
  const ask = 'Sign in with this email and the password you were given.'
  return {
    to,
    subject: 'Welcome to Pennon',
    text: `${greeting(name)}\n\n${intro}\n${ask}\n\n${signInUrl}\n`,
    html: html([greeting(name), intro, ask], { href: signInUrl, label: 'Sign in' }),
  }
}

/** A link to set a new password, asked for by the user or an admin. */
export function resetEmail(to: string, name: string | null, resetLink: string): Email {
  const why = 'Someone asked for a new password for your Pennon account.'
  const ask =
    'Choose one with the link below (it works for 24 hours and only once). If you did not ask, ignore this email: your password stays as it is.'
  return {
    to,
    subject: 'Pennon: choose a new password',
    text: `${greeting(name)}\n\n${why}\n${ask}\n\n${resetLink}\n`,
    html: html([greeting(name), why, ask], { href: resetLink, label: 'Choose a new password' }),
  }
}

/** What a scheduled change request's email says: which request, what it changes, what happened and why. */
export interface ScheduleNotice {
  /** `failed`: its apply conflicted when due; `suspended`: the person who scheduled it can no longer apply it. */
  status: 'failed' | 'suspended'
  id: number
  title: string
  project: string
  environment: string
  scheduledAt: string
  flags: readonly string[]
  segments: readonly string[]
  reason: string
  /** The request's page in the console, when PUBLIC_URL says where Pennon is. */
  link: string | undefined
}

/** To the author of a scheduled change request, and to who scheduled it, when its schedule failed or was suspended. */
export function scheduleNoticeEmail(to: string, name: string | null, notice: ScheduleNotice): Email {
  const what = `Change request #${notice.id} "${notice.title}" of project "${notice.project}" was scheduled for ${notice.scheduledAt} in the "${notice.environment}" environment.`
  const happened =
    notice.status === 'failed'
      ? 'It could not be applied: nothing of it was applied, and it will not be tried again. Schedule it again, apply it, or cancel it.'
      : 'Its schedule is suspended: it will not be applied until someone who may apply it schedules it again or applies it.'
  const changes = [
    ...(notice.flags.length > 0 ? [`Flags: ${notice.flags.join(', ')}`] : []),
    ...(notice.segments.length > 0 ? [`Segments: ${notice.segments.join(', ')}`] : []),
  ]
  const reason = `Reason: ${notice.reason}`
  const paragraphs = [greeting(name), what, happened, ...changes, reason]
  return {
    to,
    subject: `Pennon: scheduled change request #${notice.id} ${notice.status === 'failed' ? 'failed' : 'suspended'}`,
    text: `${paragraphs.join('\n\n')}\n${notice.link === undefined ? '' : `\n${notice.link}\n`}`,
    html: html(paragraphs, notice.link === undefined ? undefined : { href: notice.link, label: 'Open the change request' }),
  }
}
