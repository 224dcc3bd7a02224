import { Type, type Static } from '@sinclair/typebox'

// Path parameters are bounded but not checked further: an unknown one is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const FlagLinksParams = Type.Object({ projectId: PathName, featureName: PathName })
export type FlagLinksParams = Static<typeof FlagLinksParams>

export const FlagLinkParams = Type.Object({ projectId: PathName, featureName: PathName, linkId: PathName })
export type FlagLinkParams = Static<typeof FlagLinkParams>

/** The reference's linkSchema; the rules beyond types are flag-link-rules.ts's. */
export const LinkBody = Type.Object({
  url: Type.String({
    maxLength: 10_000,
    description: 'http or https (without a scheme: https), at most 2048 characters, no white space; stored trimmed',
  }),
  title: Type.Optional(
    Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()], { description: 'At most 1000 characters; "" or null: none' }),
  ),
})
export type LinkBody = Static<typeof LinkBody>

/** One of a flag's links in the flag read (the reference's featureSchema `links`). */
export const FlagLinkResponse = Type.Object({
  id: Type.String({ description: 'A ULID' }),
  url: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  feature: Type.String({ description: 'The flag' }),
})
