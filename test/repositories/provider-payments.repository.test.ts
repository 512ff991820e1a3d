// The card provider's payments and events on both databases (migrations 0045 and 0046): a payment moves from open
// once however many callers race for it, its ledger entry is linked, an event is stored once, and the rows read
// back with their types (bigint amounts, dates, the requesting actor).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ManualClock } from '../../src/adapters/clock.ts'
import type { PaymentEvent } from '../../src/domain/payment-gateway.ts'
import { creditBalance } from '../../src/repositories/accounts.repository.ts'
import { insertLedgerEntry } from '../../src/repositories/billing.repository.ts'
import {
  claimSucceeded,
  endOpenPayment,
  findProviderEvent,
  findProviderPayment,
  findProviderPaymentBySession,
  insertProviderEvent,
  insertProviderPayment,
  linkLedgerEntry,
  listStaleOpenPayments,
  listUnprocessedEvents,
  markEventProcessed,
  recordSession,
} from '../../src/repositories/provider-payments.repository.ts'
import { createAccountsService } from '../../src/services/accounts.service.ts'
import { eventFromPayload } from '../../src/services/payment-events.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')
const AT = new Date('2026-03-01T09:00:00.000Z')

for (const kind of databaseKinds) {
  describe(`provider payments and events (${kind})`, () => {
    let database: TestDatabase
    let accountId: number

    before(async () => {
      database = await openTestDatabase(kind)
      const accounts = createAccountsService({ db: database.db, clock: new ManualClock(), isKnownCurrency: () => true })
      const created = await accounts.createAccount(
        { name: 'Shop', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null },
        TEST_ACTOR,
      )
      accountId = Number(created.account.id.slice(4))
    })
    after(() => database.close())

    test('a payment is recorded once by its key, moves from open once under a race, and links its ledger entry', async () => {
      const payment = {
        provider: 'stripe',
        accountId,
        orderNumber: null,
        purpose: 'topUp' as const,
        amountMinor: 12_345n,
        currency: 'GBP',
        idempotencyKey: `key-${kind}-1`,
        createdAt: AT,
        tokenHash: 'ab'.repeat(32),
        requestedBy: { kind: 'key' as const, accountId, keyPrefix: 'pr_live_abc' },
        linkExpiresAt: new Date(AT.getTime() + 86_400_000),
      }
      const row = await insertProviderPayment(database.db, payment)
      assert.ok(row)
      assert.equal(await insertProviderPayment(database.db, payment), undefined, 'the same key is recorded once')
      assert.equal(row.amountMinor, 12_345n)
      assert.deepEqual(row.requestedBy, payment.requestedBy)
      assert.equal(row.status, 'open')
      await recordSession(database.db, row.id, { sessionId: `cs_${kind}_1`, url: 'https://pay', expiresAt: AT })
      assert.equal((await findProviderPaymentBySession(database.db, 'stripe', `cs_${kind}_1`))?.id, row.id)

      const wins = await Promise.all(
        [1, 2, 3].map(() =>
          database.db.transaction(async (tx) => {
            if (!(await claimSucceeded(tx, row.id, 'pi_1', AT))) return false
            const after = (await creditBalance(tx, accountId, 12_345n)) ?? 0n
            await insertLedgerEntry(
              tx,
              {
                accountId,
                orderNumber: null,
                chargeId: null,
                entry: 'top-up',
                amountMinor: 12_345n,
                currency: 'GBP',
                reference: 'stripe:pi_1',
              },
              after,
              AT,
            )
            await linkLedgerEntry(tx, row.id, accountId, 'top-up')
            return true
          }),
        ),
      )
      assert.deepEqual(wins.filter(Boolean).length, 1)
      const done = await findProviderPayment(database.db, row.id)
      assert.equal(done?.status, 'succeeded')
      assert.equal(done?.paymentId, 'pi_1')
      assert.ok(done?.ledgerEntryId)
      assert.equal(await endOpenPayment(database.db, row.id, 'expired', AT), false, 'an end is final')
      assert.deepEqual(await listStaleOpenPayments(database.db, 'stripe', new Date(AT.getTime() + 1), 10), [])
    })

    test('an event is stored once, read back as the event, and processed once', async () => {
      const event: PaymentEvent = {
        kind: 'refunded',
        eventId: `evt_${kind}_1`,
        livemode: true,
        createdAt: AT,
        paymentId: 'pi_1',
        amountRefundedMinor: 500n,
        currency: 'GBP',
      }
      assert.equal(await insertProviderEvent(database.db, 'stripe', event, AT), true)
      assert.equal(await insertProviderEvent(database.db, 'stripe', event, AT), false)
      const stored = await findProviderEvent(database.db, 'stripe', event.eventId)
      assert.ok(stored)
      assert.deepEqual(eventFromPayload(stored.payload), event)
      assert.deepEqual(await listUnprocessedEvents(database.db, 'stripe', new Date(AT.getTime() + 1), 10), [
        event.eventId,
      ])
      assert.equal(await markEventProcessed(database.db, 'stripe', event.eventId, 'done', AT), true)
      assert.equal(await markEventProcessed(database.db, 'stripe', event.eventId, 'again', AT), false)
      assert.equal((await findProviderEvent(database.db, 'stripe', event.eventId))?.outcome, 'done')
    })
  })
}
