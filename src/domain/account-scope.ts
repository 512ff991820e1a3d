import type { Environment } from './environment.ts'

/**
 * What a caller may see: one account's data in one environment. Repositories put it in the WHERE clause of a
 * caller's reads, so another account's (or environment's) row is simply not found.
 */
export interface AccountScope {
  accountId: number
  environment: Environment
}
