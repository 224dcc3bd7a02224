/**
 * Strategy definitions: the names flag strategies may use, as `GET /api/admin/strategies` lists
 * them. Built-in and custom ones are rows of `strategy_definitions` alike (the built-ins are
 * seeded by migration 0006); a built-in is not `editable`, and only its deprecation can change.
 */
import type { StrategyDefinitionData } from '../events/event-types.ts'

export const PARAMETER_TYPES = ['string', 'percentage', 'list', 'number', 'boolean'] as const
export type ParameterType = (typeof PARAMETER_TYPES)[number]

/** As the API shows it, and its events carry it. */
export type StrategyDefinition = StrategyDefinitionData
export type StrategyParameterDefinition = StrategyDefinition['parameters'][number]
