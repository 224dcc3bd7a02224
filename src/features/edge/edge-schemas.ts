/**
 * What Unleash Edge sends and reads (the reference's tokenStringListSchema,
 * validatedEdgeTokensSchema, and the instance data Edge posts). Fields Pennon does not read are
 * accepted, as the reference takes them.
 */
import { Type, type Static } from '@sinclair/typebox'

/** Tokens in one validation: Edge sends those it has not seen validated, batched each second. */
export const MAX_TOKENS_PER_VALIDATION = 1000

export const ValidateTokensBody = Type.Object({
  tokens: Type.Array(Type.String({ maxLength: 1024, description: 'A token as a client would send it in Authorization' }), {
    maxItems: MAX_TOKENS_PER_VALIDATION,
    description: `Tokens to look up (at most ${MAX_TOKENS_PER_VALIDATION})`,
  }),
})
export type ValidateTokensBody = Static<typeof ValidateTokensBody>

export const EdgeToken = Type.Object({
  token: Type.String({ description: 'The token, as sent' }),
  type: Type.String({
    description: "`client`, `backend` or `frontend`: the token's type (what an Edge serves; other tokens are answered as unknown)",
  }),
  projects: Type.Array(Type.String(), { description: 'Its projects; `*` for every project' }),
  environment: Type.String({ description: 'Its environment' }),
})
export type EdgeToken = Static<typeof EdgeToken>

export const ValidatedTokensResponse = Type.Object({
  tokens: Type.Array(EdgeToken, {
    description: 'The client and frontend tokens that work, in the order sent; unknown, deleted, expired and other tokens left out',
  }),
})

/** The reference's edgeEnvironmentProjectsListSchema: the environment and projects of each token Edge asks for. */
export const IssueTokensBody = Type.Object({
  tokens: Type.Array(
    Type.Object(
      {
        environment: Type.String({ minLength: 1, maxLength: 100, description: 'An existing environment' }),
        projects: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
          minItems: 1,
          maxItems: 1000,
          description: 'Its projects, or `*`',
        }),
      },
      { additionalProperties: false },
    ),
    { maxItems: 100, description: 'At most 100 tokens a request' },
  ),
})
export type IssueTokensBody = Static<typeof IssueTokensBody>

const Text = Type.String({ minLength: 1, maxLength: 255 })

/** Edge's own report of itself (EdgeInstanceData): what identifies it is checked, the rest is taken as sent. */
export const EdgeInstanceDataBody = Type.Object({
  identifier: Text,
  appName: Text,
  edgeVersion: Type.String({ maxLength: 255 }),
  started: Type.String({ format: 'date-time', maxLength: 100 }),
})
