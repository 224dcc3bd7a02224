import { Type, type Static } from '@sinclair/typebox'
import { QueryFlag } from '../../http/common-schemas.ts'

export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 1000 }) })
export type ProjectParams = Static<typeof ProjectParams>

export const CreateProjectBody = Type.Object({
  id: Type.String({ maxLength: 1000, description: 'URL-friendly, 1–100 characters' }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
})
export type CreateProjectBody = Static<typeof CreateProjectBody>

/** PUT: the name, and the description (absent, "" or null: none). The id never changes. */
export const UpdateProjectBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
})
export type UpdateProjectBody = Static<typeof UpdateProjectBody>

export const ProjectResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
})

export const ProjectListItem = Type.Object({
  ...ProjectResponse.properties,
  favorite: Type.Boolean({ description: 'Whether the project is a favorite of the signed-in caller (false for other callers)' }),
})

/** The reference's `?archived=true` lists its archived projects; Pennon deletes projects rather than archiving them. */
export const ProjectListQuery = Type.Object({
  archived: Type.Optional(
    QueryFlag('`true`: the archived projects, none in Pennon (a project is deleted, not archived); `false` or absent: the projects'),
  ),
})
export type ProjectListQuery = Static<typeof ProjectListQuery>

export const ProjectListResponse = Type.Object({ version: Type.Literal(1), projects: Type.Array(ProjectListItem) })
