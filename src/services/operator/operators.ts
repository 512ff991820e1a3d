// The operator's actions on the console's operators: create, list, revoke.
import type { OperatorView } from '../operators.service.ts'
import { type OperatorContext, translated } from './context.ts'

/** What the operators actions run on: the command line's context, or the console's with its operator as actor. */
export type OperatorsDeps = Pick<OperatorContext, 'operators' | 'actor'>

export async function createOperator(
  context: OperatorsDeps,
  input: { name: string },
): Promise<{ operator: OperatorView; token: string }> {
  return translated(() => context.operators.createOperator(String(input.name ?? ''), context.actor), 2)
}

export async function listOperators(context: Pick<OperatorContext, 'operators'>): Promise<OperatorView[]> {
  return context.operators.listOperators()
}

export async function revokeOperator(context: OperatorsDeps, input: { operator: string }): Promise<OperatorView> {
  return translated(() => context.operators.revokeOperator(String(input.operator ?? ''), context.actor), 2)
}
