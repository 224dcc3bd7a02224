import { Type, type Static } from '@sinclair/typebox'

// Path parameters are bounded but not checked further: an unknown name is a 404, not a 400.
const PathName = Type.String({ maxLength: 1000 })

export const EnvironmentParams = Type.Object({ name: PathName })
export const ProjectParams = Type.Object({ projectId: PathName })
export const ProjectEnvironmentParams = Type.Object({ projectId: PathName, environment: PathName })

const environmentProperties = {
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  protected: Type.Boolean({ description: 'Always false: Pennon has no protected environments' }),
  sortOrder: Type.Integer({ description: 'Lower first' }),
}

export const EnvironmentResponse = Type.Object({
  ...environmentProperties,
  projectCount: Type.Integer({ minimum: 0, description: 'Projects that have this environment' }),
  apiTokenCount: Type.Integer({ minimum: 0, description: 'API tokens for this environment' }),
  enabledToggleCount: Type.Integer({ minimum: 0, description: 'Active flags enabled in this environment' }),
  requiredApprovals: Type.Null({ description: 'Always null: Pennon has no change requests' }),
})

export const EnvironmentListResponse = Type.Object({ version: Type.Literal(1), environments: Type.Array(EnvironmentResponse) })

export const ProjectEnvironmentListResponse = Type.Object({
  version: Type.Literal(1),
  environments: Type.Array(
    Type.Object({
      ...environmentProperties,
      visible: Type.Boolean({ description: 'Whether the project has this environment (the reference lists every environment)' }),
      projectApiTokenCount: Type.Integer({
        minimum: 0,
        description: 'Client and frontend tokens of this environment that can read this project',
      }),
      projectEnabledToggleCount: Type.Integer({ minimum: 0, description: "The project's active flags enabled in this environment" }),
      defaultStrategy: Type.Optional(
        Type.Object(
          { name: Type.String() },
          { additionalProperties: true, description: "The project's default strategy here, as it was set" },
        ),
      ),
    }),
  ),
})

export const CreateEnvironmentBody = Type.Object({
  name: Type.String({ maxLength: 1000, description: 'URL-friendly, 1–100 characters, unique' }),
  type: Type.String({
    maxLength: 1000,
    description: 'URL-friendly, 1–100 characters: development, test, preproduction, production or your own',
  }),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'New projects start in every enabled environment' })),
  sortOrder: Type.Optional(
    Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'Defaults to after the last environment' }),
  ),
})
export type CreateEnvironmentBody = Static<typeof CreateEnvironmentBody>

export const AddProjectEnvironmentBody = Type.Object(
  {
    environment: Type.String({ maxLength: 1000 }),
    changeRequestsEnabled: Type.Optional(
      Type.Boolean({ description: 'Accepted for compatibility and ignored: Pennon has no change requests' }),
    ),
  },
  { additionalProperties: false },
)
export type AddProjectEnvironmentBody = Static<typeof AddProjectEnvironmentBody>

/** PUT /environments/sort-order: the reference's sortOrderSchema, a sort order by environment name. */
export const SortOrderBody = Type.Record(Type.String({ maxLength: 1000 }), Type.Integer({ minimum: -2147483648, maximum: 2147483647 }), {
  description: 'A sort order (lower first) by environment name',
})
export type SortOrderBody = Static<typeof SortOrderBody>
