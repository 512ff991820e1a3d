// The operator's actions on the console's operators: create, list, revoke.
import type { OperatorView } from '../operators.service.ts'
import { type OperatorContext, translated } from './context.ts'

export async function createOperator(
  context: OperatorContext,
  input: { name: string },
): Promise<{ operator: OperatorView; token: string }> {
  return translated(() => context.operators.createOperator(String(input.name ?? ''), context.actor), 2)
}

export async function listOperators(context: OperatorContext): Promise<OperatorView[]> {
  return context.operators.listOperators()
}

export async function revokeOperator(context: OperatorContext, input: { operator: string }): Promise<OperatorView> {
  return translated(() => context.operators.revokeOperator(String(input.operator ?? ''), context.actor), 2)
}
