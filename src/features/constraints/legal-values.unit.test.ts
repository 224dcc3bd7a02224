import assert from 'node:assert/strict'
import { test } from 'node:test'
import { legalValueProblems } from './legal-values.ts'

const legal = new Map([['region', ['eu', 'us']]])

test('a field with legal values takes only those: every value of a list operator, the value of the others', () => {
  const problems = legalValueProblems(legal, [
    { contextName: 'region', operator: 'IN', values: ['eu', 'asia', 'us', 'mars'] },
    { contextName: 'region', operator: 'NUM_EQ', value: 'moon' },
    { contextName: 'region', operator: 'STR_CONTAINS', values: ['eu'] },
  ])
  assert.deepEqual(
    problems.map((problem) => problem.path),
    ['/body/constraints/0/values/1', '/body/constraints/0/values/3', '/body/constraints/1/value'],
  )
  assert.match(problems[0]!.message, /legal value of context field "region" \("eu", "us"\)\. You sent "asia"\./)
})

test('a field without legal values, or a name no field has, takes anything; the path starts where it is told', () => {
  assert.deepEqual(legalValueProblems(legal, [{ contextName: 'userId', operator: 'IN', values: ['x'] }]), [])
  const [problem] = legalValueProblems(legal, [{ contextName: 'region', operator: 'IN', values: ['x'] }], '/body/strategies/0/constraints')
  assert.equal(problem!.path, '/body/strategies/0/constraints/0/values/0')
})

test('a refusal shows five legal values and counts the rest', () => {
  const many = new Map([['n', ['1', '2', '3', '4', '5', '6', '7']]])
  const [problem] = legalValueProblems(many, [{ contextName: 'n', operator: 'NUM_EQ', value: '8' }])
  assert.match(problem!.message, /\("1", "2", "3", "4", "5" and 2 more\)/)
})
