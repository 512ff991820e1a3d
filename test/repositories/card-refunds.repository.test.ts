// The SQL of refunds to a card and disputes on every configured backend (migrations 0045 and 0049): which payments a
// refund may go back to, each "once" (an idempotency key inserted once, a refused refund moved once, a dispute's
// entries set once, a pending refund settled once and never from failed to succeeded), and what a dispute makes owed in the open amount and on a prepaid account's invoice.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { insertLedgerEntry } from '../../src/repositories/billing.repository.ts'
import {
  addRefunded,
  findRefundByProviderId,
  insertRefund,
  listStaleRefunds,
  lockRefundablePayments,
  markAnsweredRefundsSucceeded,
  markRefundRefused,
  markRefundSucceeded,
  recordRefundAnswer,
  setDisputeEntry,
  setRefundReversal,
  sumRefusedRefundsSince,
  upsertDispute,
} from '../../src/repositories/card-refunds.repository.ts'
import { openAmountOfAccount, owedOnInvoiceOfAccount } from '../../src/repositories/invoices.repository.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`refunds to a card and disputes (${kind})`, () => {
    let database: TestDatabase
    let accountId: number
    const orderNumber = 810000
    const payments: number[] = []

    before(async () => {
      database = await openTestDatabase(kind)
      const db = database.db
      const rows = await db.query<{ id: number | string }>(
        `INSERT INTO accounts (name, billing_currency, pause_window_seconds, created_at)
         VALUES ('Shop', 'GBP', 0, now()) RETURNING id`,
      )
      accountId = Number(rows[0]?.id)
      await db.query(
        `INSERT INTO orders (id, account_id, environment, stage, created_at, last_updated, document)
         VALUES ($1, $2, 'live', 'InProgress', now(), now(), '{}')`,
        [orderNumber, accountId],
      )
      // Two succeeded card payments of the order, one still open, one in another currency, one a top-up.
      const payment = async (purpose: string, status: string, currency: string, amount: number, key: string) => {
        const inserted = await db.query<{ id: number }>(
          `INSERT INTO provider_payments (provider, account_id, order_id, purpose, amount_minor, currency,
                                          idempotency_key, payment_id, status, created_at)
           VALUES ('stripe', $1, $2, $3, $4, $5, $6, $7, $8, now()) RETURNING id::int AS id`,
          [accountId, purpose === 'topUp' ? null : orderNumber, purpose, amount, currency, key, `pi_${key}`, status],
        )
        return inserted[0]?.id as number
      }
      payments.push(await payment('orderPayment', 'succeeded', 'GBP', 1000, 'a'))
      payments.push(await payment('orderCharge', 'succeeded', 'GBP', 500, 'b'))
      await payment('orderPayment', 'open', 'GBP', 700, 'c')
      await payment('orderPayment', 'succeeded', 'EUR', 900, 'd')
      await payment('topUp', 'succeeded', 'GBP', 5000, 'e')
    })
    after(() => database.close())

    test("a refund may go back only to the order's succeeded card payments in its currency with something left", async () => {
      const refundable = await database.db.transaction((tx) => lockRefundablePayments(tx, orderNumber, 'stripe', 'GBP'))
      assert.deepEqual(
        refundable.map((payment) => [payment.id, payment.amountMinor, payment.refundedMinor]),
        [
          [payments[0], 1000n, 0n],
          [payments[1], 500n, 0n],
        ],
      )
      await addRefunded(database.db, payments[0] as number, 1000n)
      const left = await database.db.transaction((tx) => lockRefundablePayments(tx, orderNumber, 'stripe', 'GBP'))
      assert.deepEqual(
        left.map((payment) => payment.id),
        [payments[1]],
        'a payment refunded whole is left out',
      )
    })

    test('a refund is inserted once per key; its answer and a refusal each move it once', async () => {
      const refund = {
        payment: payments[1] as number,
        accountId,
        orderNumber,
        amountMinor: 200n,
        currency: 'GBP',
        idempotencyKey: 'printroute-refund-chg_1-2',
        status: 'requested' as const,
        reason: 'refund chg_1',
        ledgerEntryId: null,
        at: new Date(),
      }
      const id = await insertRefund(database.db, refund)
      assert.ok(id)
      assert.equal(await insertRefund(database.db, refund), undefined, 'the same key: nothing inserted')
      const refused = { status: 'failed' as const, refundId: null, reason: 'invalidRequest' }
      const refusedAt = new Date()
      assert.equal(await markRefundRefused(database.db, id, refused, refusedAt), true)
      assert.equal(await markRefundRefused(database.db, id, refused, new Date()), false, 'once')
      // The money put back on the balance pays nothing of an invoice: the open amount leaves it out.
      const reversal = await insertLedgerEntry(
        database.db,
        {
          accountId,
          orderNumber,
          chargeId: null,
          entry: 'balance-refund',
          amountMinor: 200n,
          currency: 'GBP',
          reference: null,
        },
        200n,
        new Date(),
      )
      await setRefundReversal(database.db, id, reversal)
      assert.equal(await openAmountOfAccount(database.db, accountId, 'GBP'), 0n)
      // Back on the balance after a report made a second earlier, not after one made a second later.
      const payment = payments[1] as number
      assert.equal(await sumRefusedRefundsSince(database.db, payment, new Date(refusedAt.getTime() - 1000)), 200n)
      assert.equal(await sumRefusedRefundsSince(database.db, payment, new Date(refusedAt.getTime() + 1000)), 0n)
      assert.equal(
        await recordRefundAnswer(database.db, id, { refundId: 're_1', status: 'succeeded' }, new Date()),
        false,
        'a refused refund is not answered again',
      )
      const second = await insertRefund(database.db, { ...refund, idempotencyKey: 'printroute-refund-chg_2-2' })
      assert.ok(second)
      assert.equal(
        await recordRefundAnswer(database.db, second, { refundId: 're_2', status: 'pending' }, new Date()),
        true,
      )
      assert.equal(
        await recordRefundAnswer(database.db, second, { refundId: 're_2', status: 'succeeded' }, new Date()),
        true,
        'pending becomes succeeded',
      )
      assert.equal(
        await recordRefundAnswer(database.db, second, { refundId: 're_2', status: 'succeeded' }, new Date()),
        false,
      )
    })

    test("a pending refund is found by the provider's id, listed for the sweeper, and settled once; failed stays failed", async () => {
      const asked = new Date('2026-03-01T09:00:00Z')
      const refund = (key: string) =>
        insertRefund(database.db, {
          payment: payments[1] as number,
          accountId,
          orderNumber,
          amountMinor: 50n,
          currency: 'GBP',
          idempotencyKey: key,
          status: 'requested',
          reason: key,
          ledgerEntryId: null,
          at: asked,
        })
      const failing = (await refund('printroute-refund-chg_3-2')) as number
      const succeeding = (await refund('printroute-refund-chg_4-2')) as number
      const unanswered = (await refund('printroute-refund-chg_5-2')) as number
      await recordRefundAnswer(database.db, failing, { refundId: 're_3', status: 'pending' }, asked)
      await recordRefundAnswer(database.db, succeeding, { refundId: 're_4', status: 'pending' }, asked)
      assert.equal((await findRefundByProviderId(database.db, 'stripe', 're_3'))?.id, failing)
      assert.equal(await findRefundByProviderId(database.db, 'other', 're_3'), undefined, "another provider's id")
      assert.equal(await findRefundByProviderId(database.db, 'stripe', 're_unknown'), undefined)
      // Pending refunds asked for before the cutoff; a requested one is the job's, not read back.
      assert.deepEqual(
        await listStaleRefunds(database.db, { provider: 'stripe', status: 'pending', before: asked, limit: 10 }),
        [],
      )
      const later = new Date(asked.getTime() + 1000)
      assert.deepEqual(
        await listStaleRefunds(database.db, { provider: 'stripe', status: 'pending', before: later, limit: 10 }),
        [failing, succeeding],
      )
      assert.deepEqual(
        await listStaleRefunds(database.db, { provider: 'other', status: 'pending', before: later, limit: 10 }),
        [],
      )
      // The one still requested is listed for its job to be put back, and only as requested.
      const requested = await listStaleRefunds(database.db, {
        provider: 'stripe',
        status: 'requested',
        before: later,
        limit: 10,
      })
      assert.ok(requested.includes(unanswered) && !requested.includes(failing) && !requested.includes(succeeding))

      const refused = { status: 'failed' as const, refundId: 're_3', reason: 'expired_or_canceled_card' }
      assert.equal(await markRefundRefused(database.db, failing, refused, later), true)
      assert.equal(await markRefundSucceeded(database.db, failing, later), false, 'a failed refund never succeeds')
      assert.equal(await markRefundSucceeded(database.db, succeeding, later), true)
      assert.equal(await markRefundSucceeded(database.db, succeeding, later), false, 'once')
      // charge.refunded's marking leaves the failed refund failed.
      await recordRefundAnswer(database.db, unanswered, { refundId: 're_5', status: 'pending' }, later)
      assert.equal(await markAnsweredRefundsSucceeded(database.db, payments[1] as number, later), 1)
      const statuses = await database.db.query<{ id: number; status: string; failure: string | null }>(
        `SELECT id::int AS id, status, failure_reason AS failure FROM provider_refunds WHERE id = ANY($1) ORDER BY id`,
        [[failing, succeeding, unanswered]],
      )
      assert.deepEqual(statuses, [
        { id: failing, status: 'failed', failure: 'expired_or_canceled_card' },
        { id: succeeding, status: 'succeeded', failure: null },
        { id: unanswered, status: 'succeeded', failure: null },
      ])
      assert.deepEqual(
        await listStaleRefunds(database.db, { provider: 'stripe', status: 'pending', before: later, limit: 10 }),
        [],
      )
    })

    test('a dispute is stored once by its id, its entries set once; what it makes owed counts, until it is won', async () => {
      const at = new Date()
      const dispute = {
        provider: 'stripe',
        disputeId: 'dp_1',
        payment: payments[0] as number,
        accountId,
        orderNumber,
        paymentId: 'pi_a',
        amountMinor: 1000n,
        currency: 'GBP',
        reason: 'fraudulent',
        status: 'needs_response',
        closed: false,
        at,
      }
      const opened = await database.db.transaction((tx) => upsertDispute(tx, dispute))
      assert.equal(opened.closedAt, null)
      const entry = (kind: 'card-dispute' | 'card-dispute-won', amountMinor: bigint) =>
        insertLedgerEntry(
          database.db,
          { accountId, orderNumber, chargeId: null, entry: kind, amountMinor, currency: 'GBP', reference: null },
          0n,
          at,
        )
      const owedEntry = await entry('card-dispute', -1000n)
      assert.equal(await setDisputeEntry(database.db, 'stripe', 'dp_1', 'opened', owedEntry), true)
      assert.equal(await setDisputeEntry(database.db, 'stripe', 'dp_1', 'opened', owedEntry), false)
      assert.equal(await owedOnInvoiceOfAccount(database.db, accountId, 'GBP'), 1000n)
      assert.equal(await openAmountOfAccount(database.db, accountId, 'GBP'), 1000n)
      const closed = await database.db.transaction((tx) =>
        upsertDispute(tx, { ...dispute, status: 'won', closed: true, at: new Date(at.getTime() + 1000) }),
      )
      assert.equal(closed.status, 'won')
      assert.equal(closed.openedEntryId, owedEntry)
      assert.ok(closed.closedAt)
      const again = await database.db.transaction((tx) =>
        upsertDispute(tx, { ...dispute, status: 'won', closed: true, at: new Date(at.getTime() + 5000) }),
      )
      assert.equal(again.closedAt?.getTime(), closed.closedAt?.getTime(), 'closed once')
      const wonEntry = await entry('card-dispute-won', 1000n)
      assert.equal(await setDisputeEntry(database.db, 'stripe', 'dp_1', 'won', wonEntry), true)
      assert.equal(await setDisputeEntry(database.db, 'stripe', 'dp_1', 'won', wonEntry), false)
      assert.equal(await owedOnInvoiceOfAccount(database.db, accountId, 'GBP'), 0n)
      assert.equal(await openAmountOfAccount(database.db, accountId, 'GBP'), 0n)
    })
  })
}
