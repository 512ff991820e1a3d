// SQL for accounts, their API keys, their per-environment callback settings (account_environments) and their
// prepaid balance: the tables that exist only for an account.
import type { Queryable } from '../adapters/database.ts'
import type { Environment } from '../domain/environment.ts'
import type { KeyScope } from '../domain/key-scopes.ts'
import { countRows } from './row-counts.ts'

export type BillingMode = 'invoice' | 'prepaid'
export const BILLING_MODES: readonly BillingMode[] = ['invoice', 'prepaid']

export interface AccountRow {
  id: number
  name: string
  billingCurrency: string
  /** How Live charges are settled (Sandbox never bills). */
  billingMode: BillingMode
  /** Prepaid balance, minor units of the billing currency. */
  balanceMinor: bigint
  pauseWindowSeconds: number
  createdAt: Date
  /** When the operator suspended the account (its keys are refused); null when it is not suspended. */
  suspendedAt: Date | null
  suspendedReason: string | null
  /** The price list its orders and quotes are priced on (docs/billing.md#price-lists); null: the default list. */
  priceList: string | null
  /** Invoice accounts: the most the account may owe before Live orders wait for payment; null: no limit. */
  creditLimitMinor: bigint | null
  /** Raised by every edit of the account's name, billing, price list or credit limit (concurrent edits). */
  version: number
}

export interface ApiKeyRow {
  prefix: string
  accountId: number
  environment: Environment
  createdAt: Date
  revokedAt: Date | null
  /** What the key may do; null: everything (docs/api.md#api-keys). */
  scopes: KeyScope[] | null
  /** When the key stops working; null: never. */
  expiresAt: Date | null
}

const ACCOUNT_COLUMNS = `a.id, a.name, a.billing_currency AS "billingCurrency", a.billing_mode AS "billingMode",
  a.balance_minor::text AS "balanceMinor", a.pause_window_seconds AS "pauseWindowSeconds",
  a.created_at AS "createdAt", a.suspended_at AS "suspendedAt", a.suspended_reason AS "suspendedReason",
  a.price_list AS "priceList", a.credit_limit_minor::text AS "creditLimitMinor", a.version`

type StoredAccountRow = Omit<AccountRow, 'balanceMinor' | 'creditLimitMinor'> & {
  balanceMinor: string
  creditLimitMinor: string | null
}

function toAccount(row: StoredAccountRow): AccountRow {
  return {
    ...row,
    id: Number(row.id),
    balanceMinor: BigInt(row.balanceMinor),
    creditLimitMinor: row.creditLimitMinor === null ? null : BigInt(row.creditLimitMinor),
    version: Number(row.version),
  }
}

/** Inserts the account with its two environments' settings (call in a transaction). */
export async function insertAccount(
  db: Queryable,
  account: Omit<
    AccountRow,
    | 'id'
    | 'balanceMinor'
    | 'billingMode'
    | 'suspendedAt'
    | 'suspendedReason'
    | 'priceList'
    | 'creditLimitMinor'
    | 'version'
  > & {
    billingMode?: BillingMode
    callbackUrls: Record<Environment, string | null>
  },
): Promise<AccountRow> {
  const rows = await db.query<StoredAccountRow>(
    `INSERT INTO accounts AS a (name, billing_currency, billing_mode, pause_window_seconds, created_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${ACCOUNT_COLUMNS}`,
    [
      account.name,
      account.billingCurrency,
      account.billingMode ?? 'invoice',
      account.pauseWindowSeconds,
      account.createdAt,
    ],
  )
  const row = toAccount(rows[0] as StoredAccountRow)
  await db.query(
    `INSERT INTO account_environments (account_id, environment, callback_url)
     VALUES ($1, 'sandbox', $2), ($1, 'live', $3)`,
    [row.id, account.callbackUrls.sandbox, account.callbackUrls.live],
  )
  return row
}

/** The callback URL of each of the account's environments. */
export async function readCallbackUrls(db: Queryable, accountId: number): Promise<Record<Environment, string | null>> {
  const rows = await db.query<{ environment: Environment; callbackUrl: string | null }>(
    'SELECT environment, callback_url AS "callbackUrl" FROM account_environments WHERE account_id = $1',
    [accountId],
  )
  const urls: Record<Environment, string | null> = { sandbox: null, live: null }
  for (const row of rows) urls[row.environment] = row.callbackUrl
  return urls
}

export async function findAccount(db: Queryable, id: number): Promise<AccountRow | undefined> {
  const rows = await db.query<StoredAccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = $1`, [id])
  return rows[0] && toAccount(rows[0])
}

export async function listAccounts(db: Queryable): Promise<AccountRow[]> {
  const rows = await db.query<StoredAccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts a ORDER BY a.id`)
  return rows.map(toAccount)
}

/**
 * Suspends the account (`suspension` given) or reactivates it (null), unless it is in that state already (a
 * suspension keeps its first time and reason). Returns the account as it was before, or undefined when there is no
 * such account; the row is locked, so two changes at once apply one after the other.
 */
export async function setAccountSuspension(
  tx: Queryable,
  id: number,
  suspension: { at: Date; reason: string | null } | null,
): Promise<AccountRow | undefined> {
  const before = await tx.query<StoredAccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = $1 FOR UPDATE`,
    [id],
  )
  if (!before[0]) return undefined
  if ((before[0].suspendedAt !== null) === (suspension !== null)) return toAccount(before[0])
  await tx.query('UPDATE accounts SET suspended_at = $2, suspended_reason = $3 WHERE id = $1', [
    id,
    suspension?.at ?? null,
    suspension?.reason ?? null,
  ])
  return toAccount(before[0])
}

export async function countAccounts(db: Queryable): Promise<number> {
  return countRows(db, 'SELECT count(*) AS count FROM accounts')
}

export async function insertApiKey(
  db: Queryable,
  key: {
    accountId: number
    environment: Environment
    prefix: string
    keyHash: string
    createdAt: Date
    scopes?: readonly KeyScope[] | null
    expiresAt?: Date | null
  },
): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (account_id, environment, prefix, key_hash, created_at, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [key.accountId, key.environment, key.prefix, key.keyHash, key.createdAt, key.scopes ?? null, key.expiresAt ?? null],
  )
}

export interface ApiKeyOwner {
  account: AccountRow
  environment: Environment
  /** The key's visible prefix (unique): what names the key where the key itself must not appear. */
  keyPrefix: string
  scopes: KeyScope[] | null
  expiresAt: Date | null
}

/** The account and environment of an unrevoked key with this hash. */
export async function findActiveApiKeyOwner(db: Queryable, keyHash: string): Promise<ApiKeyOwner | undefined> {
  const rows = await db.query<
    StoredAccountRow & {
      environment: Environment
      keyPrefix: string
      keyScopes: KeyScope[] | null
      keyExpiresAt: Date | null
    }
  >(
    `SELECT k.environment, k.prefix AS "keyPrefix", k.scopes AS "keyScopes", k.expires_at AS "keyExpiresAt",
            ${ACCOUNT_COLUMNS}
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [keyHash],
  )
  const row = rows[0]
  if (!row) return undefined
  const { environment, keyPrefix, keyScopes, keyExpiresAt, ...account } = row
  return {
    environment,
    keyPrefix,
    scopes: keyScopes,
    expiresAt: keyExpiresAt === null ? null : new Date(keyExpiresAt),
    account: toAccount(account),
  }
}

const API_KEY_COLUMNS = `prefix, account_id AS "accountId", environment, created_at AS "createdAt",
  revoked_at AS "revokedAt", scopes, expires_at AS "expiresAt"`

function toApiKey(row: ApiKeyRow): ApiKeyRow {
  return {
    ...row,
    accountId: Number(row.accountId),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
  }
}

/** The account's keys, oldest first. */
export async function listApiKeys(db: Queryable, accountId: number): Promise<ApiKeyRow[]> {
  const rows = await db.query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY id`, [
    accountId,
  ])
  return rows.map(toApiKey)
}

/** The account's unrevoked key with this prefix. */
export async function findActiveApiKey(
  db: Queryable,
  accountId: number,
  prefix: string,
): Promise<ApiKeyRow | undefined> {
  const rows = await db.query<ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE prefix = $1 AND account_id = $2 AND revoked_at IS NULL`,
    [prefix, accountId],
  )
  return rows[0] && toApiKey(rows[0])
}

/**
 * Revokes the key with this prefix, only if it is the account's when `accountId` is given (the operator's CLI
 * gives none); returns the revoked key, undefined when no unrevoked key matched.
 */
export async function revokeApiKey(
  db: Queryable,
  prefix: string,
  at: Date,
  accountId: number | null = null,
): Promise<ApiKeyRow | undefined> {
  const rows = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = $2
      WHERE prefix = $1 AND revoked_at IS NULL AND ($3::bigint IS NULL OR account_id = $3)
      RETURNING ${API_KEY_COLUMNS}`,
    [prefix, at, accountId],
  )
  return rows[0] && toApiKey(rows[0])
}

/** Changes the account's pause window; false when there is no such account. */
export async function updatePauseWindow(
  db: Queryable,
  accountId: number,
  pauseWindowSeconds: number,
): Promise<boolean> {
  const rows = await db.query('UPDATE accounts SET pause_window_seconds = $2 WHERE id = $1 RETURNING id', [
    accountId,
    pauseWindowSeconds,
  ])
  return rows.length > 0
}

/** Sets the callback URL of one of the account's environments (null: none); false when there is no such account. */
export async function updateCallbackUrl(
  db: Queryable,
  accountId: number,
  environment: Environment,
  callbackUrl: string | null,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE account_environments SET callback_url = $3 WHERE account_id = $1 AND environment = $2 RETURNING account_id`,
    [accountId, environment, callbackUrl],
  )
  return rows.length > 0
}

/** Which events the environment's callback URLs get: `all` or `prodigi` (docs/callbacks.md). */
export async function updateCallbackEvents(
  db: Queryable,
  accountId: number,
  environment: Environment,
  set: string,
): Promise<void> {
  await db.query(`UPDATE account_environments SET callback_events = $3 WHERE account_id = $1 AND environment = $2`, [
    accountId,
    environment,
    set,
  ])
}

/** What the environment does with an order whose address has problems: `warn`, `refuse` or `off` (docs/addresses.md). */
export async function updateAddressValidation(
  db: Queryable,
  accountId: number,
  environment: Environment,
  mode: string,
): Promise<void> {
  await db.query(`UPDATE account_environments SET address_validation = $3 WHERE account_id = $1 AND environment = $2`, [
    accountId,
    environment,
    mode,
  ])
}

/** The scenario new Sandbox orders of the account get when they name none (docs/sandbox.md); null for none. */
export async function updateSandboxScenarioDefault(
  db: Queryable,
  accountId: number,
  scenario: string | null,
): Promise<void> {
  await db.query(
    `UPDATE account_environments SET sandbox_scenario = $2 WHERE account_id = $1 AND environment = 'sandbox'`,
    [accountId, scenario],
  )
}

export interface SigningSecrets {
  current: string | null
  /** The secret before the last rotation, still signing until `previousExpiresAt`. */
  previous: string | null
  previousExpiresAt: Date | null
}

/** One environment's callback settings: its callback URL and signing secrets. */
export type EnvironmentSettingsRow = SigningSecrets & {
  callbackUrl: string | null
  sandboxScenario: string | null
  /** `warn`, `refuse` (migration 0022) or `off` (migration 0028). */
  addressValidation: string
  /** `all` or `prodigi` (migration 0028): which events the callback URLs get. */
  callbackEvents: string
}

export async function readEnvironmentSettings(
  db: Queryable,
  accountId: number,
  environment: Environment,
): Promise<EnvironmentSettingsRow | undefined> {
  const rows = await db.query<EnvironmentSettingsRow>(
    `SELECT signing_secret AS current, previous_signing_secret AS previous,
            previous_signing_secret_expires_at AS "previousExpiresAt", callback_url AS "callbackUrl",
            sandbox_scenario AS "sandboxScenario", address_validation AS "addressValidation",
            callback_events AS "callbackEvents"
       FROM account_environments WHERE account_id = $1 AND environment = $2`,
    [accountId, environment],
  )
  return rows[0]
}

/** Stores `secret` as the environment's signing secret unless it has one; returns the one in force. */
export async function ensureSigningSecret(
  db: Queryable,
  accountId: number,
  environment: Environment,
  secret: string,
): Promise<string> {
  const rows = await db.query<{ secret: string }>(
    `UPDATE account_environments SET signing_secret = COALESCE(signing_secret, $3)
      WHERE account_id = $1 AND environment = $2
     RETURNING signing_secret AS secret`,
    [accountId, environment, secret],
  )
  const stored = rows[0]?.secret
  if (!stored) throw new Error(`no account ${accountId}`)
  return stored
}

/** Makes `secret` the environment's signing secret; the one it replaces keeps signing until `previousExpiresAt`. */
export async function rotateSigningSecret(
  db: Queryable,
  accountId: number,
  environment: Environment,
  secret: string,
  previousExpiresAt: Date,
): Promise<void> {
  await db.query(
    `UPDATE account_environments SET previous_signing_secret = signing_secret,
            previous_signing_secret_expires_at = CASE WHEN signing_secret IS NULL THEN NULL ELSE $4::timestamptz END,
            signing_secret = $3
      WHERE account_id = $1 AND environment = $2`,
    [accountId, environment, secret, previousExpiresAt],
  )
}

/** Takes `amountMinor` from the balance if it covers it; the new balance, or undefined (balance unchanged). */
export async function debitBalance(tx: Queryable, accountId: number, amountMinor: bigint): Promise<bigint | undefined> {
  const rows = await tx.query<{ balance: string }>(
    `UPDATE accounts SET balance_minor = balance_minor - $2::bigint
      WHERE id = $1 AND balance_minor >= $2::bigint RETURNING balance_minor::text AS balance`,
    [accountId, String(amountMinor)],
  )
  return rows[0] ? BigInt(rows[0].balance) : undefined
}

/** Adds to the balance; the new balance (undefined when the account does not exist). */
export async function creditBalance(
  tx: Queryable,
  accountId: number,
  amountMinor: bigint,
): Promise<bigint | undefined> {
  const rows = await tx.query<{ balance: string }>(
    `UPDATE accounts SET balance_minor = balance_minor + $2::bigint WHERE id = $1
     RETURNING balance_minor::text AS balance`,
    [accountId, String(amountMinor)],
  )
  return rows[0] ? BigInt(rows[0].balance) : undefined
}

export async function readBalance(db: Queryable, accountId: number): Promise<bigint> {
  const rows = await db.query<{ balance: string }>(
    'SELECT balance_minor::text AS balance FROM accounts WHERE id = $1',
    [accountId],
  )
  return BigInt(rows[0]?.balance ?? '0')
}

/**
 * Locks the account's row until the transaction ends and returns the callback URL of the environment. Every
 * transaction that writes events takes this lock before drawing event ids, so one account's event ids grow in
 * commit order (the feed's cursor relies on it). Called under the order's lock: order before account, as every
 * path does.
 */
export async function lockAccountForEvents(
  tx: Queryable,
  accountId: number,
  environment: Environment,
): Promise<{ callbackUrl: string | null; callbackEvents: string }> {
  const rows = await tx.query<{ callbackUrl: string | null; callbackEvents: string | null }>(
    `SELECT e.callback_url AS "callbackUrl", e.callback_events AS "callbackEvents"
       FROM accounts a LEFT JOIN account_environments e ON e.account_id = a.id AND e.environment = $2
      WHERE a.id = $1 FOR UPDATE OF a`,
    [accountId, environment],
  )
  return { callbackUrl: rows[0]?.callbackUrl ?? null, callbackEvents: rows[0]?.callbackEvents ?? 'all' }
}

/** What an account's billing is: its mode, currency, prepaid balance and price list (null: the default list). */
export interface AccountBillingRow {
  billingMode: BillingMode
  billingCurrency: string
  balanceMinor: bigint
  priceList: string | null
  /** Invoice accounts: the credit limit (docs/billing.md#credit-limits); null: none. */
  creditLimitMinor: bigint | null
}

/** The account's billing; undefined when there is no such account. */
export async function readAccountBilling(db: Queryable, accountId: number): Promise<AccountBillingRow | undefined> {
  const rows = await db.query<
    Omit<AccountBillingRow, 'balanceMinor' | 'creditLimitMinor'> & {
      balanceMinor: string
      creditLimitMinor: string | null
    }
  >(
    `SELECT billing_mode AS "billingMode", billing_currency AS "billingCurrency",
            balance_minor::text AS "balanceMinor", price_list AS "priceList",
            credit_limit_minor::text AS "creditLimitMinor"
       FROM accounts WHERE id = $1`,
    [accountId],
  )
  const row = rows[0]
  return row
    ? {
        ...row,
        balanceMinor: BigInt(row.balanceMinor),
        creditLimitMinor: row.creditLimitMinor === null ? null : BigInt(row.creditLimitMinor),
      }
    : undefined
}

/**
 * Sets the account's price list (null: the catalogue's default list). Returns the account as it was before, or
 * undefined when there is no such account; the row is locked for the change.
 */
export async function setAccountPriceList(
  tx: Queryable,
  id: number,
  priceList: string | null,
): Promise<AccountRow | undefined> {
  const before = await tx.query<StoredAccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = $1 FOR UPDATE`,
    [id],
  )
  if (!before[0]) return undefined
  if (before[0].priceList !== priceList) {
    await tx.query('UPDATE accounts SET price_list = $2, version = version + 1 WHERE id = $1', [id, priceList])
  }
  return toAccount(before[0])
}

/** The account, its row locked until the transaction ends; undefined when there is no such account. */
export async function lockAccount(tx: Queryable, id: number): Promise<AccountRow | undefined> {
  const rows = await tx.query<StoredAccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = $1 FOR UPDATE`,
    [id],
  )
  return rows[0] && toAccount(rows[0])
}

/** What an operator's edit sets (docs/admin.md#editing-an-account). */
export interface AccountDetails {
  name: string
  billingMode: BillingMode
  billingCurrency: string
  priceList: string | null
  creditLimitMinor: bigint | null
}

/**
 * Sets the account's details and raises its version, if its version is still `expectedVersion`; the account as it
 * is then, or undefined when the version moved on (or there is no such account).
 */
export async function updateAccountDetails(
  tx: Queryable,
  id: number,
  details: AccountDetails,
  expectedVersion: number,
): Promise<AccountRow | undefined> {
  const rows = await tx.query<StoredAccountRow>(
    `UPDATE accounts AS a SET name = $3, billing_mode = $4, billing_currency = $5, price_list = $6,
            credit_limit_minor = $7::bigint, version = a.version + 1
      WHERE a.id = $1 AND a.version = $2 RETURNING ${ACCOUNT_COLUMNS}`,
    [
      id,
      expectedVersion,
      details.name,
      details.billingMode,
      details.billingCurrency,
      details.priceList,
      details.creditLimitMinor === null ? null : String(details.creditLimitMinor),
    ],
  )
  return rows[0] && toAccount(rows[0])
}

/** Every account with a price list of its own (not the default), by id: what a catalogue change may take away. */
export async function listAccountPriceLists(db: Queryable): Promise<{ id: number; priceList: string }[]> {
  return db.query<{ id: number; priceList: string }>(
    'SELECT id, price_list AS "priceList" FROM accounts WHERE price_list IS NOT NULL ORDER BY id',
  )
}
