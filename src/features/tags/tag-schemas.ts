import { Type, type Static } from '@sinclair/typebox'

// Path parameters are bounded but not checked further: an unknown name is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const TagTypeParams = Type.Object({ name: PathName })
export const TagsOfTypeParams = Type.Object({ type: PathName })
export const TagParams = Type.Object({ type: PathName, value: PathName })
export const FlagTagsParams = Type.Object({ featureName: PathName })
export const FlagTagParams = Type.Object({ featureName: PathName, type: PathName, value: PathName })
export const ProjectTagsParams = Type.Object({ projectId: PathName })

const Color = Type.Union([Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '`#RRGGBB`' }), Type.Null()])
const Icon = Type.Union([Type.String({ maxLength: 255 }), Type.Null()])
const Description = Type.String({ maxLength: 10_000 })

/** Create and validate, as the reference's tagTypeSchema: no other property. */
export const TagTypeBody = Type.Object(
  {
    name: Type.String({ maxLength: 1000, description: 'URL-friendly, 2–50 characters, unique among the tag types' }),
    description: Type.Optional(Description),
    icon: Type.Optional(Icon),
    color: Type.Optional(Color),
  },
  { additionalProperties: false },
)
export type TagTypeBody = Static<typeof TagTypeBody>

/** PUT, as the reference: what is sent replaces, what is not sent is kept (`null` clears the icon or color); other properties are ignored. */
export const UpdateTagTypeBody = Type.Object({
  description: Type.Optional(Description),
  icon: Type.Optional(Icon),
  color: Type.Optional(Color),
})
export type UpdateTagTypeBody = Static<typeof UpdateTagTypeBody>

export const TagTypeResponse = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  icon: Type.Union([Type.String(), Type.Null()]),
  color: Type.Union([Type.String(), Type.Null()]),
})
export const TagTypeListResponse = Type.Object({ version: Type.Literal(1), tagTypes: Type.Array(TagTypeResponse) })
export const OneTagTypeResponse = Type.Object({ version: Type.Literal(1), tagType: TagTypeResponse })
export const ValidTagTypeResponse = Type.Object({
  valid: Type.Literal(true),
  tagType: Type.Object(
    { name: Type.String(), description: Type.Optional(Type.String()), icon: Type.Optional(Icon), color: Type.Optional(Color) },
    { description: 'The body, as sent' },
  ),
})

/** A tag in a body, as the reference's tagSchema: `color` is accepted and ignored (a tag's color is its type's). */
export const TagBody = Type.Object(
  {
    type: Type.String({ minLength: 2, maxLength: 50, description: 'An existing tag type' }),
    value: Type.String({
      maxLength: 1000,
      description: '2–50 characters once leading and trailing white space is trimmed (it is stored trimmed)',
    }),
    color: Type.Optional(Color),
  },
  { additionalProperties: false },
)
export type TagBody = Static<typeof TagBody>

const TagList = (description: string) => Type.Array(TagBody, { maxItems: 1000, description })

export const UpdateTagsBody = Type.Object(
  {
    addedTags: TagList('Tags to add (a tag that does not exist yet is created)'),
    removedTags: TagList('Tags to remove; they win over addedTags'),
  },
  { additionalProperties: false },
)
export type UpdateTagsBody = Static<typeof UpdateTagsBody>

export const TagsBulkAddBody = Type.Object(
  {
    features: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { description: 'Flags of the project' }),
    tags: UpdateTagsBody,
  },
  { additionalProperties: false },
)
export type TagsBulkAddBody = Static<typeof TagsBulkAddBody>

export const TagResponse = Type.Object({ type: Type.String(), value: Type.String() })
export const TagListResponse = Type.Object({ version: Type.Literal(1), tags: Type.Array(TagResponse) })
export const OneTagResponse = Type.Object({ version: Type.Literal(1), tag: TagResponse })
/** A flag's tags show their type's color, as the reference's. */
export const FlagTagListResponse = Type.Object({
  version: Type.Literal(1),
  tags: Type.Array(Type.Object({ type: Type.String(), value: Type.String(), color: Type.Union([Type.String(), Type.Null()]) })),
})

/** A flag list's tags, keys in the reference's order there. */
export const FlagListTags = Type.Array(Type.Object({ value: Type.String(), type: Type.String() }), { description: "The flag's tags" })
