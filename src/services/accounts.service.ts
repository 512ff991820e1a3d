// Accounts and API keys: who may call the API, in which environment. A key is 32 random bytes shown once;
// only its SHA-256 and a short visible prefix are stored. A key belongs to one account and one environment.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { Account, ApiKeyView } from '../domain/accounts.ts'
import {
  ADDRESS_VALIDATION_MODES,
  type AddressValidationMode,
  parseAddressValidationMode,
} from '../domain/address-rules.ts'
import { type AuditActor, settingsDifference } from '../domain/audit.ts'
import { type AccountEdit, accountEditDifference, applyAccountEdit } from '../domain/credit-limits.ts'
import { ENVIRONMENTS, type Environment } from '../domain/environment.ts'
import { formatId, parseId } from '../domain/ids.ts'
import { KEY_SCOPES, type KeyScope, keyExpiredMessage, scopesBeyond } from '../domain/key-scopes.ts'
import {
  DEFAULT_SIGNING_OVERLAP_SECONDS,
  isSigningOverlap,
  MAX_PAUSE_WINDOW_SECONDS,
  MAX_SIGNING_OVERLAP_SECONDS,
} from '../domain/limits.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import { OperatorRefusal } from '../domain/operator-refusal.ts'
import { CALLBACK_EVENT_SETS, type CallbackEventSet, parseCallbackEventSet } from '../domain/order-events.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { parseSandboxScenario, type SandboxScenario } from '../domain/sandbox-scenarios.ts'
import { refusedCharacter } from '../domain/text.ts'
import { unfetchableUrlReason } from '../domain/urls.ts'
import { newSigningSecret } from '../domain/webhook-signature.ts'
import {
  type AccountRow,
  type ApiKeyRow,
  BILLING_MODES,
  type BillingMode,
  countAccounts,
  ensureSigningSecret,
  findAccount,
  findActiveApiKey,
  findActiveApiKeyOwner,
  insertAccount,
  insertApiKey,
  listAccounts,
  listApiKeys,
  lockAccount,
  readCallbackUrls,
  readEnvironmentSettings,
  revokeApiKey,
  rotateSigningSecret,
  setAccountPriceList,
  setAccountSuspension,
  updateAccountDetails,
  updateAddressValidation,
  updateCallbackEvents,
  updateCallbackUrl,
  updatePauseWindow,
  updateSandboxScenarioDefault,
} from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import { type LedgerRow, listRecentLedger } from '../repositories/billing.repository.ts'
import { openAmountOfAccount } from '../repositories/invoices.repository.ts'
import { countLiveOrdersBilledIn } from '../repositories/orders.repository.ts'
import { deleteAccountSessions } from '../repositories/sessions.repository.ts'
import { hashSecretKey, newSecretKey } from './secret-keys.ts'

export type { Environment }

/** How long a successful key lookup is reused by this process; bounds how late a revocation bites. */
export const API_KEY_CACHE_SECONDS = 5

export interface Caller {
  accountId: number
  environment: Environment
  /** The visible prefix of the key the request was made with (a dashboard session: the key it was made from). */
  keyPrefix: string
  /** How the request was authenticated: the key itself, or a dashboard session made from it (its cookie). */
  via: 'key' | 'session'
  pauseWindowSeconds: number
  billingCurrency: string
  /**
   * The account's price list (docs/billing.md#price-lists); null or absent: the catalogue's default list. A list
   * the catalogue in use does not have prices as the default list.
   */
  priceList?: string | null
  /** What the key may do; null or absent: everything (docs/api.md#api-keys). */
  scopes?: readonly KeyScope[] | null
}

/** Who the audit trail names for a change made by this caller: the key, or the dashboard session made from it. */
export function auditActorOf(caller: Caller): Extract<AuditActor, { kind: Caller['via'] }> {
  return { kind: caller.via, accountId: caller.accountId, keyPrefix: caller.keyPrefix }
}

/** Longest suspension reason accepted: a note for the console and the audit trail. */
export const MAX_SUSPENSION_REASON_LENGTH = 500

/** What a suspended account's keys are told (403 Forbidden, docs/errors.md). */
export function accountSuspendedMessage(accountId: number): string {
  return (
    `The account ${formatId('acc', accountId)} is suspended: its keys are refused until it is reactivated. ` +
    'Contact the operator of this printroute.'
  )
}

export interface IssuedKey {
  key: string
  prefix: string
  environment: Environment
  created: string
  /** What the key may do; null: everything. */
  scopes: KeyScope[] | null
  /** When the key stops working; null: never. */
  expiresAt: string | null
}

/** What a new key is limited to; fields left out: every scope, no expiry (as keys were before). */
export interface KeyLimits {
  scopes?: readonly KeyScope[] | null
  expiresAt?: Date | null
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    prefix: row.prefix,
    environment: row.environment,
    created: row.createdAt.toISOString(),
    revoked: row.revokedAt ? row.revokedAt.toISOString() : null,
    scopes: row.scopes,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
  }
}

export class AccountError extends Error {}

/**
 * The settings of one environment of an account as the API shows them (GET/PATCH /v4.0/account/settings): the
 * callback URL and signing secret are the environment's own; the pause window is the account's (both
 * environments hold orders alike, so that Sandbox shows what Live will do).
 */
export interface AccountSettings {
  environment: Environment
  callbackUrl: string | null
  pauseWindowSeconds: number
  /** The secret this environment's callbacks are signed with (`whsec_...`). */
  signingSecret: string
  /** Until when the secret replaced by the last rotation still signs too; null when none does. */
  previousSigningSecretExpiresAt: string | null
  /** Sandbox only: the scenario new Sandbox orders get when they name none (docs/sandbox.md); null for none. */
  sandboxScenario?: SandboxScenario | null
  /** This environment's: what an order whose address has problems gets (docs/addresses.md). */
  addressValidation: AddressValidationMode
  /** This environment's: which events its callback URLs get (docs/callbacks.md). */
  callbackEvents: CallbackEventSet
}

export interface AccountSettingsChange {
  callbackUrl?: string | null
  pauseWindowSeconds?: number
  rotateSigningSecret?: boolean
  /** How long the replaced secret keeps signing after a rotation (default 24 h; 0 = stops at once). */
  signingSecretOverlapSeconds?: number
  /** Sandbox only: the default scenario of new Sandbox orders, or null for none. */
  sandboxScenario?: string | null
  /** `warn`, `refuse` or `off`: what this environment does with an order whose address has problems. */
  addressValidation?: string
  /** `all` or `prodigi`: which events this environment's callback URLs get. */
  callbackEvents?: string
}

function toAccount(row: AccountRow, callbackUrls: Record<Environment, string | null>): Account {
  return {
    id: formatId('acc', row.id),
    name: row.name,
    billingCurrency: row.billingCurrency,
    billingMode: row.billingMode,
    balance: formatMinorAsAmount(row.balanceMinor),
    pauseWindowSeconds: row.pauseWindowSeconds,
    callbackUrls,
    created: row.createdAt.toISOString(),
    suspended: row.suspendedAt ? row.suspendedAt.toISOString() : null,
    suspendedReason: row.suspendedReason,
    priceList: row.priceList,
    creditLimit: row.creditLimitMinor === null ? null : formatMinorAsAmount(row.creditLimitMinor),
    version: row.version,
  }
}

function parseAccountId(id: string): number {
  const value = parseId('acc', id)
  if (value === undefined) throw new AccountError(`"${id}" is not an account ID (expected acc_<number>)`)
  return value
}

/** A new account (`printroute accounts create`). */
export interface CreateAccountInput {
  name: string
  billingCurrency: string
  billingMode?: BillingMode
  pauseWindowSeconds: number
  /** Both environments' callback URL... */
  callbackUrl: string | null
  /** ...unless one is given here. */
  callbackUrls?: Partial<Record<Environment, string | null>>
}

/** Accounts and their API keys: who may call the API, in which environment, and each environment's settings. */
export interface AccountsService {
  /** Creates an account with a signing secret and a key per environment; the keys are shown this once. */
  createAccount(
    input: CreateAccountInput,
    actor: AuditActor,
  ): Promise<{ account: Account; keys: { sandbox: IssuedKey; live: IssuedKey } }>
  /** Every account. */
  listAccounts(): Promise<Account[]>
  /** How many accounts there are. */
  countAccounts(): Promise<number>
  /** A new key of an account (`acc_<number>`) for one environment; the only time the key is shown. */
  createApiKey(accountId: string, environment: Environment, actor: AuditActor, limits?: KeyLimits): Promise<IssuedKey>
  /** An account's keys, oldest first, as stored (hashes, never the keys). */
  listApiKeys(accountId: string): Promise<ApiKeyRow[]>
  /** Revokes the active key with this prefix, whoever's it is (`printroute keys revoke`). */
  revokeApiKey(prefix: string, actor: AuditActor): Promise<void>
  /** The keys of the caller's account, both environments, newest first (GET /v4.0/account/keys). */
  listAccountKeys(caller: Caller): Promise<ApiKeyView[]>
  /** A new key of the caller's account for the caller's own environment; the only time the key is shown. */
  issueAccountKey(caller: Caller, actor: AuditActor, limits?: KeyLimits): Promise<IssuedKey>
  /** Revokes a key of the caller's account; a Sandbox caller may revoke only Sandbox keys. */
  revokeAccountKey(caller: Caller, prefix: string, actor: AuditActor): Promise<ApiKeyView>
  /** The settings of one environment of an account as the API shows them. */
  getSettings(accountId: number, environment: Environment): Promise<AccountSettings>
  /** Changes the settings of one environment of an account; the problems by field instead when any is refused. */
  updateSettings(
    accountId: number,
    environment: Environment,
    change: AccountSettingsChange,
    actor: AuditActor,
  ): Promise<{ settings: AccountSettings } | { problems: Record<string, string> }>
  /**
   * The caller an active key stands for, in the key's own environment; undefined for unknown or revoked keys.
   * Throws ServiceError Forbidden for a key of a suspended account.
   */
  identify(apiKey: string): Promise<Caller | undefined>
  /** The caller a key stands for in `environment`; undefined for unknown, revoked or other-environment keys. */
  authenticate(apiKey: string, environment: Environment): Promise<Caller | undefined>
  /** One account (`acc_N`), as listings show it. */
  getAccount(accountId: string): Promise<Account>
  /**
   * Suspends an account: its keys answer 403 (this process at once, others within API_KEY_CACHE_SECONDS), its
   * dashboard sessions end now; its orders in flight go on. Suspending a suspended account changes nothing.
   */
  suspendAccount(accountId: string, reason: string | null, actor: AuditActor): Promise<Account>
  /** Reactivates a suspended account: its keys work again. Reactivating an active account changes nothing. */
  reactivateAccount(accountId: string, actor: AuditActor): Promise<Account>
  /**
   * Sets the price list the account's orders and quotes are priced on (null: the catalogue's default list); the
   * caller checks the name against the catalogue. Setting the list it has changes nothing.
   */
  setPriceList(accountId: string, priceList: string | null, actor: AuditActor): Promise<Account>
  /** The account's latest money movements (charges, refunds, top-ups, payments), newest first. */
  listRecentLedger(accountId: string, limit: number): Promise<LedgerRow[]>
  /**
   * Edits an account's name, billing mode, currency, price list and credit limit (docs/admin.md#editing-an-account),
   * with its audit entry, if its version is still `expectedVersion` (none given: the version it has now). Refusals
   * are OperatorRefusals (domain/credit-limits.ts applyAccountEdit has the rules); the caller checks the price list's
   * name against the catalogue. An edit that changes nothing is not recorded and keeps the version.
   */
  editAccount(
    accountId: string,
    edit: AccountEdit,
    expectedVersion: number | undefined,
    actor: AuditActor,
  ): Promise<Account>
  /** What an invoice account owes on its Live invoices, in its billing currency; null for a prepaid account. */
  openAmount(accountId: string): Promise<string | null>
}

export interface AccountsDeps {
  db: Database
  clock: Clock
  /** Charges are priced in the billing currency, so it must be one the catalogue converts to. */
  isKnownCurrency: (code: string) => boolean
}

/** What the functions of the service share: the dependencies and this process's cache of key lookups. */
interface AccountsContext extends AccountsDeps {
  /** `suspendedAccountId`: the key is its account's, and the account was suspended when it was looked up. */
  keyCache: Map<
    string,
    { caller: Caller | undefined; suspendedAccountId?: number; keyExpiresAt: Date | null; expires: number }
  >
}

export function createAccountsService(deps: AccountsDeps): AccountsService {
  const { db, clock } = deps
  const context: AccountsContext = { ...deps, keyCache: new Map() }
  const identify = (apiKey: string) => identifyKey(context, apiKey)

  return {
    createAccount: (input, actor) => createAccount(context, input, actor),

    async listAccounts(): Promise<Account[]> {
      return Promise.all(
        (await listAccounts(db)).map(async (row) => toAccount(row, await readCallbackUrls(db, row.id))),
      )
    },

    async countAccounts(): Promise<number> {
      return countAccounts(db)
    },

    async createApiKey(
      accountId: string,
      environment: Environment,
      actor: AuditActor,
      limits: KeyLimits = {},
    ): Promise<IssuedKey> {
      const id = parseAccountId(accountId)
      if (limits.expiresAt && limits.expiresAt <= clock.now()) {
        throw new AccountError(`The expiry ${limits.expiresAt.toISOString()} is not in the future`)
      }
      return db.transaction(async (tx) => {
        if (!(await findAccount(tx, id))) throw new AccountError(`No account ${accountId}`)
        return issueRecordedKey(context, tx, id, environment, actor, limits)
      })
    },

    async listApiKeys(accountId: string): Promise<ApiKeyRow[]> {
      return listApiKeys(db, parseAccountId(accountId))
    },

    async revokeApiKey(prefix: string, actor: AuditActor): Promise<void> {
      const revoked = await db.transaction(async (tx) => {
        const key = await revokeApiKey(tx, prefix, clock.now())
        if (key) await recordKeyRevoked(tx, key, actor, clock.now())
        return key
      })
      if (!revoked) throw new AccountError(`No active key with prefix ${prefix}`)
      context.keyCache.clear()
    },

    async listAccountKeys(caller: Caller): Promise<ApiKeyView[]> {
      return (await listApiKeys(db, caller.accountId)).reverse().map(toApiKeyView)
    },

    async issueAccountKey(caller: Caller, actor: AuditActor, limits: KeyLimits = {}): Promise<IssuedKey> {
      const now = clock.now()
      if (limits.expiresAt && !(limits.expiresAt > now)) {
        throw validationFailed(
          {
            expiresAt: [
              {
                code: 'InvalidValue',
                providedValue: limits.expiresAt.toISOString(),
                comparisonValue: `a time after ${now.toISOString()} (the key would be expired already)`,
              },
            ],
          },
          'A new key must expire in the future',
        )
      }
      return db.transaction((tx) => issueRecordedKey(context, tx, caller.accountId, caller.environment, actor, limits))
    },

    revokeAccountKey: (caller, prefix, actor) => revokeAccountKey(context, caller, prefix, actor),
    getSettings: (accountId, environment) => getSettings(context, accountId, environment),
    updateSettings: (accountId, environment, change, actor) =>
      updateSettings(context, accountId, environment, change, actor),
    identify,

    async authenticate(apiKey: string, environment: Environment): Promise<Caller | undefined> {
      const caller = await identify(apiKey)
      return caller && caller.environment === environment ? caller : undefined
    },

    async getAccount(accountId: string): Promise<Account> {
      const id = parseAccountId(accountId)
      const row = await findAccount(db, id)
      if (!row) throw new AccountError(`No account ${accountId}`)
      return toAccount(row, await readCallbackUrls(db, id))
    },

    suspendAccount: (accountId, reason, actor) => changeSuspension(context, accountId, { reason }, actor),
    reactivateAccount: (accountId, actor) => changeSuspension(context, accountId, null, actor),
    setPriceList: (accountId, priceList, actor) => changePriceList(context, accountId, priceList, actor),

    async listRecentLedger(accountId: string, limit: number): Promise<LedgerRow[]> {
      return listRecentLedger(db, parseAccountId(accountId), limit)
    },

    editAccount: (accountId, edit, expectedVersion, actor) =>
      editAccount(context, accountId, edit, expectedVersion, actor),

    async openAmount(accountId: string): Promise<string | null> {
      const id = parseAccountId(accountId)
      const row = await findAccount(db, id)
      if (!row) throw new AccountError(`No account ${accountId}`)
      if (row.billingMode !== 'invoice') return null
      return formatMinorAsAmount(await openAmountOfAccount(db, id, row.billingCurrency))
    },
  }
}

/**
 * An operator's edit of an account, in one transaction under the account's row lock: the version compared, the
 * rules applied to the account and its money as they are then, the row updated with a new version, the audit entry.
 */
async function editAccount(
  context: AccountsContext,
  accountId: string,
  edit: AccountEdit,
  expectedVersion: number | undefined,
  actor: AuditActor,
): Promise<Account> {
  const id = parseId('acc', accountId)
  if (id === undefined) throw new OperatorRefusal({ field: 'account', reason: 'not-an-id' }, accountId)
  const now = context.clock.now()
  const row = await context.db.transaction(async (tx) => {
    const before = await lockAccount(tx, id)
    if (!before) throw new OperatorRefusal({ field: 'account', reason: 'unknown' }, accountId)
    if (expectedVersion !== undefined && expectedVersion !== before.version) {
      throw new OperatorRefusal({ field: 'account', reason: 'changed' }, accountId)
    }
    const facts = {
      balanceMinor: before.balanceMinor,
      openAmountMinor: await openAmountOfAccount(tx, id, before.billingCurrency),
      liveOrdersInProgress: await countLiveOrdersBilledIn(tx, id, before.billingCurrency),
    }
    const after = applyAccountEdit(accountId, before, facts, edit)
    if (after.billingCurrency !== before.billingCurrency && !context.isKnownCurrency(after.billingCurrency)) {
      throw new OperatorRefusal({ field: 'currency', reason: 'no-rate' }, after.billingCurrency)
    }
    const difference = accountEditDifference(before, after)
    if (Object.keys(difference.after).length === 0) return before
    const updated = await updateAccountDetails(tx, id, after, before.version)
    if (!updated) throw new OperatorRefusal({ field: 'account', reason: 'changed' }, accountId)
    await appendAuditEvent(
      tx,
      {
        actor,
        action: 'account.settingsChanged',
        accountId: id,
        environment: null,
        target: formatId('acc', id),
        before: difference.before,
        after: difference.after,
      },
      now,
    )
    return updated
  })
  // Callers carry the account's currency, mode and list: cached ones are told at once (others within the cache's time).
  context.keyCache.clear()
  return toAccount(row, await readCallbackUrls(context.db, id))
}

/**
 * Suspends (`suspension` given) or reactivates (null) an account, with its audit entry, in one transaction.
 * Suspending also ends the account's dashboard sessions; the key cache of this process is cleared, so the change
 * bites here at once (other processes within API_KEY_CACHE_SECONDS). A change to the state the account is
 * already in is not recorded again.
 */
async function changeSuspension(
  context: AccountsContext,
  accountId: string,
  suspension: { reason: string | null } | null,
  actor: AuditActor,
): Promise<Account> {
  const id = parseAccountId(accountId)
  const reason = suspension?.reason?.trim() || null
  if (reason !== null) {
    if (reason.length > MAX_SUSPENSION_REASON_LENGTH) {
      throw new AccountError(`The reason must be at most ${MAX_SUSPENSION_REASON_LENGTH} characters`)
    }
    const refused = refusedCharacter(reason, false)
    if (refused !== undefined) throw new AccountError(`The reason must not contain ${refused}`)
  }
  const now = context.clock.now()
  await context.db.transaction(async (tx) => {
    const before = await setAccountSuspension(tx, id, suspension ? { at: now, reason } : null)
    if (!before) throw new AccountError(`No account ${accountId}`)
    const wasSuspended = before.suspendedAt !== null
    if (suspension) {
      if (wasSuspended) return
      await deleteAccountSessions(tx, id)
    } else if (!wasSuspended) {
      return
    }
    await appendAuditEvent(
      tx,
      {
        actor,
        action: suspension ? 'account.suspended' : 'account.reactivated',
        accountId: id,
        environment: null,
        target: formatId('acc', id),
        before: { suspended: wasSuspended, reason: before.suspendedReason },
        after: { suspended: suspension !== null, reason: suspension ? reason : null },
      },
      now,
    )
  })
  context.keyCache.clear()
  const row = await findAccount(context.db, id)
  if (!row) throw new AccountError(`No account ${accountId}`)
  return toAccount(row, await readCallbackUrls(context.db, id))
}

async function changePriceList(
  context: AccountsContext,
  accountId: string,
  priceList: string | null,
  actor: AuditActor,
): Promise<Account> {
  const id = parseAccountId(accountId)
  const now = context.clock.now()
  await context.db.transaction(async (tx) => {
    const before = await setAccountPriceList(tx, id, priceList)
    if (!before) throw new AccountError(`No account ${accountId}`)
    if (before.priceList === priceList) return
    await appendAuditEvent(
      tx,
      {
        actor,
        action: 'account.settingsChanged',
        accountId: id,
        environment: null,
        target: formatId('acc', id),
        before: { priceList: before.priceList },
        after: { priceList },
      },
      now,
    )
  })
  // Callers carry the account's list: cached ones are told at once (this process; others within the cache's time).
  context.keyCache.clear()
  const row = await findAccount(context.db, id)
  if (!row) throw new AccountError(`No account ${accountId}`)
  return toAccount(row, await readCallbackUrls(context.db, id))
}

async function issueKey(
  context: AccountsContext,
  tx: Queryable,
  accountId: number,
  environment: Environment,
  limits: KeyLimits = {},
): Promise<IssuedKey> {
  const { key, prefix } = newSecretKey(environment)
  const createdAt = context.clock.now()
  // Stored in the list's order, each once, so that listings read the same whatever order they were asked in.
  const scopes = limits.scopes ? KEY_SCOPES.filter((scope) => limits.scopes?.includes(scope)) : null
  const expiresAt = limits.expiresAt ?? null
  await insertApiKey(tx, { accountId, environment, prefix, keyHash: hashSecretKey(key), createdAt, scopes, expiresAt })
  return {
    key,
    prefix,
    environment,
    created: createdAt.toISOString(),
    scopes,
    expiresAt: expiresAt ? expiresAt.toISOString() : null,
  }
}

/** Issues a key and records it in the audit trail (by its prefix: the key itself is never recorded). */
async function issueRecordedKey(
  context: AccountsContext,
  tx: Queryable,
  accountId: number,
  environment: Environment,
  actor: AuditActor,
  limits: KeyLimits = {},
): Promise<IssuedKey> {
  const issued = await issueKey(context, tx, accountId, environment, limits)
  await appendAuditEvent(
    tx,
    {
      actor,
      action: 'key.created',
      accountId,
      environment,
      target: issued.prefix,
      after: { prefix: issued.prefix, environment, scopes: issued.scopes, expiresAt: issued.expiresAt },
    },
    context.clock.now(),
  )
  return issued
}

async function recordKeyRevoked(tx: Queryable, key: ApiKeyRow, actor: AuditActor, at: Date): Promise<void> {
  await appendAuditEvent(
    tx,
    {
      actor,
      action: 'key.revoked',
      accountId: key.accountId,
      environment: key.environment,
      target: key.prefix,
      before: { revoked: null },
      after: { revoked: key.revokedAt?.toISOString() ?? at.toISOString() },
    },
    at,
  )
}

/**
 * The caller an active key stands for, in the key's own environment; undefined for unknown or revoked keys.
 * The HTTP layer compares the environment with the address the key came to, so that a key of the other
 * environment can be told apart from a wrong one (docs/errors.md).
 */
async function identifyKey(context: AccountsContext, apiKey: string): Promise<Caller | undefined> {
  const { keyCache } = context
  const keyHash = hashSecretKey(apiKey)
  const now = Date.now()
  const cached = keyCache.get(keyHash)
  if (cached && cached.expires > now) {
    if (cached.suspendedAccountId !== undefined) throw suspendedError(cached.suspendedAccountId)
    refuseExpired(context, cached.caller, cached.keyExpiresAt)
    return cached.caller
  }
  const owner = await findActiveApiKeyOwner(context.db, keyHash)
  const caller = owner && {
    accountId: owner.account.id,
    environment: owner.environment,
    keyPrefix: owner.keyPrefix,
    via: 'key' as const,
    pauseWindowSeconds: owner.account.pauseWindowSeconds,
    billingCurrency: owner.account.billingCurrency,
    ...(owner.account.priceList === null ? {} : { priceList: owner.account.priceList }),
    scopes: owner.scopes,
  }
  const suspendedAccountId = owner?.account.suspendedAt ? owner.account.id : undefined
  // Only known keys are cached, so a flood of wrong keys cannot grow the map without bound.
  if (caller) {
    keyCache.set(keyHash, {
      caller,
      ...(suspendedAccountId !== undefined ? { suspendedAccountId } : {}),
      keyExpiresAt: owner.expiresAt,
      expires: now + API_KEY_CACHE_SECONDS * 1000,
    })
  }
  if (suspendedAccountId !== undefined) throw suspendedError(suspendedAccountId)
  refuseExpired(context, caller, owner?.expiresAt ?? null)
  return caller
}

/** An expired key is refused by the service's clock on every request, cached or not (401, docs/errors.md). */
function refuseExpired(context: AccountsContext, caller: Caller | undefined, keyExpiresAt: Date | null): void {
  if (caller && keyExpiresAt && keyExpiresAt <= context.clock.now()) {
    throw new ServiceError('Unauthorized', keyExpiredMessage(caller.keyPrefix, keyExpiresAt), {
      expiredAt: keyExpiresAt.toISOString(),
    })
  }
}

function suspendedError(accountId: number): ServiceError {
  return new ServiceError('Forbidden', accountSuspendedMessage(accountId), { accountId: formatId('acc', accountId) })
}

async function getSettings(
  context: AccountsContext,
  accountId: number,
  environment: Environment,
): Promise<AccountSettings> {
  const { db } = context
  const account = await findAccount(db, accountId)
  const stored = await readEnvironmentSettings(db, accountId, environment)
  if (!account || !stored) throw new AccountError(`No account ${formatId('acc', accountId)}`)
  const signingSecret = stored.current ?? (await ensureSigningSecret(db, accountId, environment, newSigningSecret()))
  const now = context.clock.now()
  const previousActive = stored.previous && stored.previousExpiresAt && stored.previousExpiresAt > now
  return {
    environment,
    callbackUrl: stored.callbackUrl,
    pauseWindowSeconds: account.pauseWindowSeconds,
    signingSecret,
    previousSigningSecretExpiresAt: previousActive ? (stored.previousExpiresAt?.toISOString() ?? null) : null,
    // Live ignores scenarios, so its settings do not show one.
    ...(environment === 'sandbox' ? { sandboxScenario: parseSandboxScenario(stored.sandboxScenario) ?? null } : {}),
    addressValidation: parseAddressValidationMode(stored.addressValidation),
    callbackEvents: parseCallbackEventSet(stored.callbackEvents),
  }
}

async function createAccount(
  context: AccountsContext,
  input: CreateAccountInput,
  actor: AuditActor,
): Promise<{ account: Account; keys: { sandbox: IssuedKey; live: IssuedKey } }> {
  if (input.name.trim() === '') throw new AccountError('The account name must not be empty')
  const refused = refusedCharacter(input.name, false)
  if (refused !== undefined) throw new AccountError(`The account name must not contain ${refused}`)
  if (!/^[A-Z]{3}$/.test(input.billingCurrency)) {
    throw new AccountError(`"${input.billingCurrency}" is not a currency code (expected e.g. GBP)`)
  }
  if (!context.isKnownCurrency(input.billingCurrency)) {
    throw new AccountError(`The catalogue has no exchange rate for ${input.billingCurrency}, so it cannot bill in it`)
  }
  const billingMode = input.billingMode ?? 'invoice'
  if (!BILLING_MODES.includes(billingMode)) {
    throw new AccountError(`"${billingMode}" is not a billing mode (${BILLING_MODES.join(' or ')})`)
  }
  const callbackUrls: Record<Environment, string | null> = {
    sandbox: input.callbackUrls?.sandbox !== undefined ? input.callbackUrls.sandbox : input.callbackUrl,
    live: input.callbackUrls?.live !== undefined ? input.callbackUrls.live : input.callbackUrl,
  }
  for (const url of Object.values(callbackUrls)) {
    const urlProblem = url === null ? undefined : unfetchableUrlReason(url)
    if (urlProblem !== undefined)
      throw new AccountError(`"${url}" is not an http(s) URL that can be called (${urlProblem})`)
  }
  return context.db.transaction(async (tx) => {
    const row = await insertAccount(tx, {
      name: input.name,
      billingCurrency: input.billingCurrency,
      pauseWindowSeconds: input.pauseWindowSeconds,
      callbackUrls,
      billingMode,
      createdAt: context.clock.now(),
    })
    // Each environment its own secret: a Sandbox key never sees the one that signs Live callbacks.
    for (const environment of ENVIRONMENTS) await ensureSigningSecret(tx, row.id, environment, newSigningSecret())
    const sandbox = await issueKey(context, tx, row.id, 'sandbox')
    const live = await issueKey(context, tx, row.id, 'live')
    const account = toAccount(row, callbackUrls)
    // One entry for the account and its first two keys (named by prefix), made in the same instant.
    await appendAuditEvent(
      tx,
      {
        actor,
        action: 'account.created',
        accountId: row.id,
        environment: null,
        target: account.id,
        after: {
          name: account.name,
          billingCurrency: account.billingCurrency,
          billingMode: account.billingMode,
          pauseWindowSeconds: account.pauseWindowSeconds,
          callbackUrls,
          keyPrefixes: { sandbox: sandbox.prefix, live: live.prefix },
        },
      },
      context.clock.now(),
    )
    return { account, keys: { sandbox, live } }
  })
}

/**
 * Revokes an unrevoked key of the caller's account, the caller's own included. A Sandbox caller may revoke
 * only Sandbox keys: Sandbox keys are the ones handed to developers and test systems, which must not be
 * able to cut off Live (as with the pause window, which only a Live key changes).
 */
async function revokeAccountKey(
  context: AccountsContext,
  caller: Caller,
  prefix: string,
  actor: AuditActor,
): Promise<ApiKeyView> {
  const notFound = () => new ServiceError('EntityNotFound', `The account has no active key with prefix ${prefix}`)
  const key = await findActiveApiKey(context.db, caller.accountId, prefix)
  if (!key) throw notFound()
  if (key.environment === 'live' && caller.environment !== 'live') {
    throw new ServiceError('Unauthorized', 'Live keys are revoked with a Live key (a Sandbox key can list them)')
  }
  // As with issuing, a scoped key reaches only keys within its own scopes: a key that may read orders and manage
  // keys must not be able to cut off the integration's key that may do everything.
  const beyond = scopesBeyond(caller.scopes, key.scopes)
  if (beyond.length > 0) {
    throw new ServiceError(
      'Forbidden',
      `The API key ${caller.keyPrefix} cannot revoke a key with scopes it does not have: ${beyond.join(', ')}`,
      { scope: beyond[0], scopes: beyond },
    )
  }
  const revoked = await context.db.transaction(async (tx) => {
    const row = await revokeApiKey(tx, prefix, context.clock.now(), caller.accountId)
    if (row) await recordKeyRevoked(tx, row, actor, context.clock.now())
    return row
  })
  if (!revoked) throw notFound()
  // Revocation bites at once in this process (other API processes within API_KEY_CACHE_SECONDS).
  context.keyCache.clear()
  return toApiKeyView(revoked)
}

/** What is wrong with a settings change, by field; empty when nothing is. */
function settingsProblems(environment: Environment, change: AccountSettingsChange): Record<string, string> {
  const problems: Record<string, string> = {}
  const urlProblem = typeof change.callbackUrl === 'string' ? unfetchableUrlReason(change.callbackUrl) : undefined
  if (urlProblem !== undefined)
    problems.callbackUrl = `"${change.callbackUrl}" is not an http(s) URL that can be called (${urlProblem})`
  const pause = change.pauseWindowSeconds
  if (pause !== undefined && (!Number.isInteger(pause) || pause < 0 || pause > MAX_PAUSE_WINDOW_SECONDS)) {
    problems.pauseWindowSeconds = `the pause window must be whole seconds from 0 to ${MAX_PAUSE_WINDOW_SECONDS}`
  }
  const overlap = change.signingSecretOverlapSeconds
  if (overlap !== undefined) {
    if (!isSigningOverlap(overlap)) {
      problems.signingSecretOverlapSeconds = `the overlap must be whole seconds from 0 to ${MAX_SIGNING_OVERLAP_SECONDS}`
    } else if (change.rotateSigningSecret !== true) {
      problems.signingSecretOverlapSeconds = 'an overlap applies only together with rotateSigningSecret: true'
    }
  }
  const scenario = change.sandboxScenario
  if (scenario !== undefined && environment !== 'sandbox') {
    problems.sandboxScenario = 'scenarios apply to Sandbox orders only: set the default with a Sandbox key'
  } else if (scenario !== undefined && scenario !== null && !parseSandboxScenario(scenario)) {
    problems.sandboxScenario = `"${scenario}" is not a Sandbox scenario (docs/sandbox.md)`
  }
  const mode = change.addressValidation
  if (mode !== undefined && !(ADDRESS_VALIDATION_MODES as readonly string[]).includes(mode)) {
    problems.addressValidation = `"${mode}" is not an address validation mode (${ADDRESS_VALIDATION_MODES.join(', ')})`
  }
  const eventSet = change.callbackEvents
  if (eventSet !== undefined && !(CALLBACK_EVENT_SETS as readonly string[]).includes(eventSet)) {
    problems.callbackEvents = `"${eventSet}" is not a set of callback events (${CALLBACK_EVENT_SETS.join(' or ')})`
  }
  return problems
}

/**
 * Changes the settings of one environment of an account (API PATCH and `printroute accounts update`); the
 * pause window, being the account's, changes for both. Problems are returned by field (nothing changes
 * then), for the caller to report in its own way. Who may change what is the caller's rule (the API lets a
 * Sandbox key change only Sandbox's own settings).
 */
async function updateSettings(
  context: AccountsContext,
  accountId: number,
  environment: Environment,
  change: AccountSettingsChange,
  actor: AuditActor,
): Promise<{ settings: AccountSettings } | { problems: Record<string, string> }> {
  const problems = settingsProblems(environment, change)
  if (Object.keys(problems).length > 0) return { problems }
  const { clock } = context
  const pause = change.pauseWindowSeconds
  const scenario = change.sandboxScenario
  const found = await context.db.transaction(async (tx) => {
    const account = await findAccount(tx, accountId)
    const stored = await readEnvironmentSettings(tx, accountId, environment)
    if (!account || !stored) return false
    const was: RecordedSettings = {
      callbackUrl: stored.callbackUrl,
      pauseWindowSeconds: account.pauseWindowSeconds,
      sandboxScenario: parseSandboxScenario(stored.sandboxScenario) ?? null,
      addressValidation: parseAddressValidationMode(stored.addressValidation),
      callbackEvents: parseCallbackEventSet(stored.callbackEvents),
    }
    const now: RecordedSettings = { ...was }
    if (pause !== undefined) {
      await updatePauseWindow(tx, accountId, pause)
      now.pauseWindowSeconds = pause
    }
    if (change.callbackUrl !== undefined) {
      await updateCallbackUrl(tx, accountId, environment, change.callbackUrl)
      now.callbackUrl = change.callbackUrl
    }
    if (scenario !== undefined) {
      const parsedScenario = typeof scenario === 'string' ? parseSandboxScenario(scenario) : null
      await updateSandboxScenarioDefault(tx, accountId, parsedScenario ?? null)
      now.sandboxScenario = parsedScenario ?? null
    }
    if (change.addressValidation !== undefined) {
      const mode = parseAddressValidationMode(change.addressValidation)
      await updateAddressValidation(tx, accountId, environment, mode)
      now.addressValidation = mode
    }
    if (change.callbackEvents !== undefined) {
      const set = parseCallbackEventSet(change.callbackEvents)
      await updateCallbackEvents(tx, accountId, environment, set)
      now.callbackEvents = set
    }
    const rotated = change.rotateSigningSecret === true
    if (rotated) {
      const overlap = change.signingSecretOverlapSeconds ?? DEFAULT_SIGNING_OVERLAP_SECONDS
      const expires = new Date(clock.now().getTime() + overlap * 1000)
      await rotateSigningSecret(tx, accountId, environment, newSigningSecret(), expires)
    }
    const difference = settingsDifference(was, now, rotated)
    if (difference) {
      await appendAuditEvent(
        tx,
        {
          actor,
          action: 'account.settingsChanged',
          accountId,
          environment,
          target: formatId('acc', accountId),
          ...difference,
        },
        clock.now(),
      )
    }
    return true
  })
  if (!found) throw new AccountError(`No account ${formatId('acc', accountId)}`)
  // Callers carry the pause window: this process sees the change at once, others within
  // API_KEY_CACHE_SECONDS.
  context.keyCache.clear()
  return { settings: await getSettings(context, accountId, environment) }
}

/**
 * The settings the audit trail shows before and after a change: never the signing secret itself. A type, not an
 * interface, so that it is a record of fields to settingsDifference.
 */
type RecordedSettings = {
  callbackUrl: string | null
  pauseWindowSeconds: number
  sandboxScenario: SandboxScenario | null
  addressValidation: AddressValidationMode
  callbackEvents: CallbackEventSet
}
