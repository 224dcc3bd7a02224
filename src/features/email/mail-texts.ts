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
