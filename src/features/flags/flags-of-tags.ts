/** What tags/ asks of the flags it tags (tags/flags-of-tags.ts), handed to it by app.ts. */
import type { FlagsOfTags } from '../tags/flags-of-tags.ts'
import { findFlagProjects } from './flag-store.ts'

export const flagsOfTags = {
  find: findFlagProjects,
} satisfies FlagsOfTags
