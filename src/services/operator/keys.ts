// The operator's actions on an account's API keys: create (scopes, expiry), list, revoke. One function per action,
// called by the command line (operator.service.ts) and the console (console-sections.ts) alike.

import type { ApiKeyView } from '../../domain/accounts.ts'
import type { Environment } from '../../domain/environment.ts'
import { isKeyScope, KEY_SCOPES, type KeyScope } from '../../domain/key-scopes.ts'
import { DATE_TIME_RANGE, dateTimeBeyondRange } from '../../domain/limits.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { type KeyLimits, toApiKeyView } from '../accounts.service.ts'
import type { AccountsDeps } from './accounts.ts'
import { OperationError } from './operation-error.ts'

/** A new key of an account for one environment, shown this once; no limits: every scope, never expiring. */
export async function createKey(
  deps: AccountsDeps,
  input: { account: string; environment: Environment; limits?: KeyLimits },
): Promise<{ key: string; prefix: string }> {
  const issued = await deps.accounts.createApiKey(input.account, input.environment, deps.actor, input.limits ?? {})
  return { key: issued.key, prefix: issued.prefix }
}

/** An account's keys, as listings show them. */
export async function listKeys(
  deps: Pick<AccountsDeps, 'accounts'>,
  input: { account: string },
): Promise<ApiKeyView[]> {
  return (await deps.accounts.listApiKeys(input.account)).map(toApiKeyView)
}

/**
 * Revokes the active key with this prefix. With `account` (the console revokes from an account's page), only that
 * account's: another account's prefix is not found there.
 */
export async function revokeKey(deps: AccountsDeps, input: { prefix: string; account?: string }): Promise<void> {
  if (input.account !== undefined) {
    const keys = await deps.accounts.listApiKeys(input.account)
    if (!keys.some((key) => key.prefix === input.prefix && key.revokedAt === null)) {
      throw new ServiceError('EntityNotFound', `${input.account} has no active key with prefix ${input.prefix}`)
    }
  }
  await deps.accounts.revokeApiKey(input.prefix, deps.actor)
}

/**
 * The command line's key limits from its flags (the console offers neither): scopes by name, an ISO 8601 expiry;
 * its refusals end the command with exit 1.
 */
export function keyLimitsOf(input: { scopes?: string[]; expiresAt?: string }): KeyLimits {
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
  const scopes: KeyScope[] | null = input.scopes?.filter(isKeyScope) ?? null
  return { scopes, expiresAt }
}
