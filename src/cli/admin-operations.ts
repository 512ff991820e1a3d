// What the data commands of the CLI do, as operations with plain JSON inputs and results, so the same code
// runs in the command's own process (the data directory is free, or the database is PostgreSQL) and inside a
// running `serve` reached through the admin channel (src/adapters/admin-channel.ts).
import { hostname, userInfo } from 'node:os'
import type { Database } from '../adapters/database.ts'
import { migrate } from '../adapters/migrator.ts'
import type { AuditActor } from '../domain/audit.ts'
import { ENVIRONMENTS, type Environment } from '../domain/environment.ts'
import { parseId } from '../domain/ids.ts'
import { formatMinorAsAmount, parseAmountToMinor } from '../domain/money.ts'
import { ServiceError } from '../domain/outcomes.ts'
import {
  type Account,
  AccountError,
  type AccountSettings,
  type AccountSettingsChange,
  type AccountsService,
  type ApiKeyView,
  toApiKeyView,
} from '../services/accounts.service.ts'
import type { LabPushChange, LabPushSettings, LabPushSettingsView } from '../services/lab-pushes.service.ts'
import { LabError, type LabsService } from '../services/labs.service.ts'
import { OperatorError, type OperatorsService, type OperatorView } from '../services/operators.service.ts'
import type { PaymentsService } from '../services/payments.service.ts'
import { OperationError } from './operation-error.ts'

/** What the operations run on; the payments service is built only when a top-up needs it. */
export interface OperationContext {
  db: Database
  accounts: AccountsService
  operators: OperatorsService
  labs: Pick<LabsService, 'createLabKey' | 'setPaused'>
  labPushes: LabPushSettings
  payments(): Promise<Pick<PaymentsService, 'topUp'>>
}

export interface AccountCreation {
  name: string
  billingCurrency: string
  billingMode: 'invoice' | 'prepaid'
  pauseWindowSeconds: number
  /** Both environments' callback URL, unless `callbackUrls` gives one's. */
  callbackUrl: string | null
  callbackUrls?: Partial<Record<Environment, string | null>>
}

export interface TopUpResult {
  account: string
  balance: string
  currency: string
  releasedOrderIds: string[]
}

/**
 * Who the audit trail names for a data command: the command line on this host, as this user. The operations run in
 * the CLI's process or, through the admin channel, in `serve`'s: the same machine and data directory either way.
 */
function cliActor(): AuditActor {
  return { kind: 'cli', host: hostname(), user: userInfo().username }
}

/** Refusals the user can fix by changing the command (exit 2); others are failures (exit 1). */
function refused(message: string): OperationError {
  return new OperationError(message, 2)
}

function accountNumberOf(accountId: string): number {
  const number = parseId('acc', accountId)
  if (number === undefined) throw refused(`"${accountId}" is not an account ID (expected acc_<number>)`)
  return number
}

/** Service refusals keep their message; only the exit code is decided here. */
async function translated<T>(work: () => Promise<T>, exitCode = 1): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (
      error instanceof AccountError ||
      error instanceof LabError ||
      error instanceof OperatorError ||
      error instanceof ServiceError
    ) {
      throw new OperationError(error.message, exitCode)
    }
    throw error
  }
}

/** What the data commands do, run on the database here or in the serving process over the admin channel. */
export interface AdminOperations {
  /** Applies the migrations not applied yet; their names. */
  migrate(): Promise<{ applied: string[] }>
  /** Creates an account with one key per environment; its id and the keys (shown this once). */
  createAccount(input: AccountCreation): Promise<{ id: string; keys: Record<Environment, string> }>
  /** Every account. */
  listAccounts(): Promise<Account[]>
  /** Changes an account's settings in the given environments (both by default); every environment's settings. */
  updateAccount(input: {
    account: string
    change: AccountSettingsChange
    environments?: Environment[]
  }): Promise<{ settings: Record<Environment, AccountSettings> } | { problems: Record<string, string> }>
  /** Adds to a prepaid account's balance and releases the orders it now pays for. */
  topUp(input: { account: string; amount: string; reference: string | null }): Promise<TopUpResult>
  /** A new key of an account for one environment; the only time it is shown. */
  createKey(input: { account: string; environment: Environment }): Promise<{ key: string }>
  /** An account's keys, as listings show them. */
  listKeys(input: { account: string }): Promise<ApiKeyView[]>
  /** Revokes the active key with this prefix. */
  revokeKey(input: { prefix: string }): Promise<{ revoked: string }>
  /** A new key for a catalogue lab; the only time it is shown. */
  createLabKey(input: { lab: string }): Promise<{ key: string }>
  /** Pauses a catalogue lab (no new work goes to it) or resumes it; whether it was paused before. */
  setLabPaused(input: { lab: string; paused: boolean }): Promise<{ lab: string; wasPaused: boolean }>
  /** Sets, rotates or removes a lab's push endpoint; `secret` only when a new one was made (shown this once). */
  configureLabPush(input: { lab: string } & LabPushChange): Promise<LabPushSettingsView & { secret?: string }>
  /** A lab's push settings (never the secret, only its start) and delivery health. */
  showLabPush(input: { lab: string }): Promise<LabPushSettingsView>
  /** Suspends an account: its keys answer 403 and its dashboard sessions end; its orders in flight go on. */
  suspendAccount(input: { account: string; reason: string | null }): Promise<Account>
  /** Reactivates a suspended account. */
  reactivateAccount(input: { account: string }): Promise<Account>
  /** Creates a console operator; the token is returned this once. */
  createOperator(input: { name: string }): Promise<{ operator: OperatorView; token: string }>
  /** Every operator (never a token). */
  listOperators(): Promise<OperatorView[]>
  /** Revokes an operator (`opr_N`): its console sessions end at their next request. */
  revokeOperator(input: { operator: string }): Promise<OperatorView>
}

export function createAdminOperations(context: OperationContext): AdminOperations {
  return {
    async migrate(): Promise<{ applied: string[] }> {
      const result = await migrate(context.db)
      return { applied: result.applied }
    },

    async createAccount(input: AccountCreation): Promise<{ id: string; keys: Record<Environment, string> }> {
      const created = await translated(() => context.accounts.createAccount(input))
      return { id: created.account.id, keys: { sandbox: created.keys.sandbox.key, live: created.keys.live.key } }
    },

    async listAccounts(): Promise<Account[]> {
      return context.accounts.listAccounts()
    },

    /**
     * Applies the change to each environment given (both when none is), in turn; the same change validates the
     * same way in each, so a refusal comes from the first, before anything changed. Returns every
     * environment's settings.
     */
    async updateAccount(input: {
      account: string
      change: AccountSettingsChange
      environments?: Environment[]
    }): Promise<{ settings: Record<Environment, AccountSettings> } | { problems: Record<string, string> }> {
      const accountNumber = accountNumberOf(input.account)
      for (const environment of input.environments ?? ENVIRONMENTS) {
        // The default scenario is a Sandbox setting: Live gets the rest of the change.
        const change = environment === 'sandbox' ? input.change : { ...input.change, sandboxScenario: undefined }
        const result = await translated(() => context.accounts.updateSettings(accountNumber, environment, change), 2)
        if ('problems' in result) return result
      }
      const read = (environment: Environment) =>
        translated(() => context.accounts.getSettings(accountNumber, environment), 2)
      return { settings: { sandbox: await read('sandbox'), live: await read('live') } }
    },

    async topUp(input: { account: string; amount: string; reference: string | null }): Promise<TopUpResult> {
      const accountNumber = accountNumberOf(input.account)
      const amountMinor = /^\d{1,10}(\.\d{1,2})?$/.test(input.amount) ? parseAmountToMinor(input.amount) : undefined
      if (amountMinor === undefined || amountMinor <= 0n) {
        throw refused(`--amount must be a positive amount such as 50.00, got "${input.amount}"`)
      }
      const account = (await context.accounts.listAccounts()).find((candidate) => candidate.id === input.account)
      if (!account) throw refused(`No account ${input.account}`)
      if (account.billingMode !== 'prepaid') {
        throw refused(`${input.account} is billed by invoice; only prepaid accounts have a balance`)
      }
      const payments = await context.payments()
      const result = await translated(() => payments.topUp(accountNumber, amountMinor, input.reference))
      return {
        account: input.account,
        balance: formatMinorAsAmount(result.balanceMinor),
        currency: result.currency,
        releasedOrderIds: result.releasedOrderIds,
      }
    },

    async createKey(input: { account: string; environment: Environment }): Promise<{ key: string }> {
      const issued = await translated(() => context.accounts.createApiKey(input.account, input.environment))
      return { key: issued.key }
    },

    async listKeys(input: { account: string }): Promise<ApiKeyView[]> {
      const keys = await translated(() => context.accounts.listApiKeys(input.account))
      return keys.map(toApiKeyView)
    },

    async revokeKey(input: { prefix: string }): Promise<{ revoked: string }> {
      await translated(() => context.accounts.revokeApiKey(input.prefix))
      return { revoked: input.prefix }
    },

    async createLabKey(input: { lab: string }): Promise<{ key: string }> {
      const issued = await translated(() => context.labs.createLabKey(input.lab), 2)
      return { key: issued.key }
    },

    async setLabPaused(input: { lab: string; paused: boolean }): Promise<{ lab: string; wasPaused: boolean }> {
      const result = await translated(() => context.labs.setPaused(input.lab, input.paused === true), 2)
      return { lab: input.lab, wasPaused: result.wasPaused }
    },

    async configureLabPush(input: { lab: string } & LabPushChange): Promise<LabPushSettingsView & { secret?: string }> {
      const change: LabPushChange = {
        ...(typeof input.pushUrl === 'string' ? { pushUrl: input.pushUrl } : {}),
        ...(input.rotateSecret === true ? { rotateSecret: true } : {}),
        ...(input.removePush === true ? { removePush: true } : {}),
      }
      return translated(() => context.labPushes.configure(input.lab, change), 2)
    },

    async showLabPush(input: { lab: string }): Promise<LabPushSettingsView> {
      return translated(() => context.labPushes.show(input.lab), 2)
    },

    async suspendAccount(input: { account: string; reason: string | null }): Promise<Account> {
      accountNumberOf(input.account)
      const reason = typeof input.reason === 'string' ? input.reason : null
      return translated(() => context.accounts.suspendAccount(input.account, reason, cliActor()), 2)
    },

    async reactivateAccount(input: { account: string }): Promise<Account> {
      accountNumberOf(input.account)
      return translated(() => context.accounts.reactivateAccount(input.account, cliActor()), 2)
    },

    async createOperator(input: { name: string }): Promise<{ operator: OperatorView; token: string }> {
      return translated(() => context.operators.createOperator(String(input.name ?? ''), cliActor()), 2)
    },

    async listOperators(): Promise<OperatorView[]> {
      return context.operators.listOperators()
    },

    async revokeOperator(input: { operator: string }): Promise<OperatorView> {
      return translated(() => context.operators.revokeOperator(String(input.operator ?? ''), cliActor()), 2)
    },
  }
}
export type OperationName = keyof AdminOperations

/** Runs an operation by name with a JSON input (the admin channel's handler). */
export async function runOperation(operations: AdminOperations, name: string, input: unknown): Promise<unknown> {
  if (!Object.hasOwn(operations, name)) throw refused(`unknown operation ${name}`)
  const operation = operations[name as OperationName] as (input: unknown) => Promise<unknown>
  return operation(input)
}
