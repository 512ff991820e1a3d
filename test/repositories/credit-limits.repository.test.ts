// The SQL of account edits and credit limits on every configured backend: the version compare-and-set of an edit,
// an invoice account's open amount (its Live documents less what was paid through the balance) and the count of Live
// orders in progress billed in a currency.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { lockAccount, updateAccountDetails } from '../../src/repositories/accounts.repository.ts'
import { insertLedgerEntry } from '../../src/repositories/billing.repository.ts'
import { openAmountOfAccount } from '../../src/repositories/invoices.repository.ts'
import { countLiveOrdersBilledIn } from '../../src/repositories/orders.repository.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`account edits and credit limits (${kind})`, () => {
    let database: TestDatabase
    let accountId: number

    before(async () => {
      database = await openTestDatabase(kind)
      const rows = await database.db.query<{ id: number | string }>(
        `INSERT INTO accounts (name, billing_currency, pause_window_seconds, created_at)
         VALUES ('Shop', 'GBP', 0, now()) RETURNING id`,
      )
      accountId = Number(rows[0]?.id)
    })
    after(() => database.close())

    test('an edit applies only at the version read, and raises it', async () => {
      const details = { name: 'Trade', billingMode: 'invoice', billingCurrency: 'GBP', priceList: null } as const
      const first = await database.db.transaction(async (tx) => {
        const locked = await lockAccount(tx, accountId)
        assert.equal(locked?.version, 1)
        assert.equal(locked?.creditLimitMinor, null, 'no limit by default')
        return updateAccountDetails(tx, accountId, { ...details, creditLimitMinor: 50_000n }, 1)
      })
      assert.equal(first?.version, 2)
      assert.equal(first?.creditLimitMinor, 50_000n)
      const stale = await database.db.transaction((tx) =>
        updateAccountDetails(tx, accountId, { ...details, name: 'Late', creditLimitMinor: null }, 1),
      )
      assert.equal(stale, undefined, 'the version moved on: nothing changed')
      assert.equal((await database.db.transaction((tx) => lockAccount(tx, accountId)))?.name, 'Trade')
    })

    test('the open amount: Live documents in the currency, less what the balance paid for them', async () => {
      assert.equal(await openAmountOfAccount(database.db, accountId, 'GBP'), 0n)
      const ledger = (entry: 'balance-charge' | 'card-payment' | 'invoice-charge', amountMinor: bigint) =>
        insertLedgerEntry(
          database.db,
          { accountId, orderNumber: null, chargeId: null, entry, amountMinor, currency: 'GBP', reference: null },
          0n,
          new Date(),
        )
      await database.db.query(
        `INSERT INTO orders (id, account_id, environment, stage, created_at, last_updated, document)
         VALUES (800000, $1, 'live', 'Complete', now(), now(), '{}')`,
        [accountId],
      )
      let sequence = 0
      const invoice = (number: string, environment: 'live' | 'sandbox', currency: string, totalMinor: number) =>
        database.db.query(
          `INSERT INTO invoices (number, series, sequence, kind, environment, account_id, order_id, charge_id, issued_at,
                                 currency, total_cost_minor, total_tax_minor, content)
           VALUES ($1, $2, $3, 'Invoice', $4, $5, 800000, $1, now(), $6, $7, 0, '{}')`,
          [
            number,
            environment === 'live' ? 'INV' : 'SBX-INV',
            ++sequence,
            environment,
            accountId,
            currency,
            totalMinor,
          ],
        )
      await invoice('T-1', 'live', 'GBP', 4_000)
      await invoice('T-2', 'live', 'EUR', 9_999)
      await invoice('T-3', 'sandbox', 'GBP', 9_999)
      await ledger('invoice-charge', -4_000n)
      assert.equal(await openAmountOfAccount(database.db, accountId, 'GBP'), 4_000n)
      await ledger('card-payment', 1_500n)
      await ledger('balance-charge', -1_500n)
      assert.equal(await openAmountOfAccount(database.db, accountId, 'GBP'), 2_500n, 'a card payment is taken off')
    })

    test('Live orders in progress billed in a currency are counted', async () => {
      assert.equal(await countLiveOrdersBilledIn(database.db, accountId, 'GBP'), 0)
      let id = 900_000
      const order = (environment: string, stage: string, pipeline: unknown) =>
        database.db.query(
          `INSERT INTO orders (id, account_id, environment, stage, created_at, last_updated, document, pipeline)
           VALUES ($1, $2, $3, $4, now(), now(), '{}', $5::jsonb)`,
          [id++, accountId, environment, stage, JSON.stringify(pipeline)],
        )
      await order('live', 'InProgress', { billing: { currency: 'GBP' } })
      await order('live', 'InProgress', {})
      await order('live', 'Complete', { billing: { currency: 'GBP' } })
      await order('sandbox', 'InProgress', { billing: { currency: 'GBP' } })
      await order('live', 'InProgress', { billing: { currency: 'EUR' } })
      assert.equal(await countLiveOrdersBilledIn(database.db, accountId, 'GBP'), 1)
      assert.equal(await countLiveOrdersBilledIn(database.db, accountId, 'EUR'), 1)
    })
  })
}
