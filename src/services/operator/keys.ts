// The operator's actions on an account's API keys: create (scopes, expiry), list, revoke.

import type { ApiKeyView } from '../../domain/accounts.ts'
import type { Environment } from '../../domain/environment.ts'
import { isKeyScope, KEY_SCOPES } from '../../domain/key-scopes.ts'
import { DATE_TIME_RANGE, dateTimeBeyondRange } from '../../domain/limits.ts'
import { toApiKeyView } from '../accounts.service.ts'
import { type OperatorContext, translated } from './context.ts'
import { OperationError } from './operation-error.ts'

export async function createKey(
  context: OperatorContext,
  input: {
    account: string
    environment: Environment
    scopes?: string[]
    expiresAt?: string
  },
): Promise<{ key: string }> {
  const unknown = (input.scopes ?? []).filter((scope) => !isKeyScope(scope))
  if (unknown.length > 0) {
    throw new OperationError(`Unknown scope ${unknown.join(', ')}: the scopes are ${KEY_SCOPES.join(', ')}`, 1)
  }
  if (input.scopes !== undefined && input.scopes.length === 0) {
    throw new OperationError(`--scopes names no scope: the scopes are ${KEY_SCOPES.join(', ')}`, 1)
  }
  const expiresAt = input.expiresAt === undefined ? null : new Date(input.expiresAt)
  if (expiresAt && (Number.isNaN(expiresAt.getTime()) || dateTimeBeyondRange(expiresAt.getTime()) !== undefined)) {
    throw new OperationError(
      `"${input.expiresAt}" is not a time (expected ISO 8601, e.g. 2027-01-31T00:00:00Z, in years ${DATE_TIME_RANGE.earliestDate.slice(0, 4)} to ${DATE_TIME_RANGE.latestDate.slice(0, 4)})`,
      1,
    )
  }
  const scopes = input.scopes?.filter(isKeyScope) ?? null
  const issued = await translated(() =>
    context.accounts.createApiKey(input.account, input.environment, context.actor, { scopes, expiresAt }),
  )
  return { key: issued.key }
}

export async function listKeys(context: OperatorContext, input: { account: string }): Promise<ApiKeyView[]> {
  const keys = await translated(() => context.accounts.listApiKeys(input.account))
  return keys.map(toApiKeyView)
}

export async function revokeKey(context: OperatorContext, input: { prefix: string }): Promise<{ revoked: string }> {
  await translated(() => context.accounts.revokeApiKey(input.prefix, context.actor))
  return { revoked: input.prefix }
}
