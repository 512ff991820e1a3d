// CSV order imports' SQL on every configured backend (migrations/0042_order_imports.sql): scoped reads, the cursor
// list, rows recorded once whatever re-runs write them, and counts recounted from the rows (all of them, or the rows
// since the last count).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ManualClock } from '../../src/adapters/clock.ts'
import { parseId } from '../../src/domain/ids.ts'
import type { ImportRowResult } from '../../src/domain/order-imports.ts'
import {
  claimOrderImport,
  countOrderImportRows,
  findOrderImportForCaller,
  finishOrderImport,
  insertOrderImport,
  listOrderImportsForCaller,
  nextOrderImportNumber,
  readImportRows,
  readOrderImport,
  recordImportRows,
  recountOrderImport,
} from '../../src/repositories/order-imports.repository.ts'
import { createAccountsService } from '../../src/services/accounts.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const created = (row: number, orderId: string): ImportRowResult => ({
  row,
  merchantReference: orderId,
  outcome: 'Created',
  orderId,
  failures: [],
})

for (const kind of databaseKinds) {
  describe(`order imports repository (${kind})`, () => {
    let database: TestDatabase
    let accountId: number
    let otherAccountId: number

    before(async () => {
      database = await openTestDatabase(kind)
      const accounts = createAccountsService({ db: database.db, clock: new ManualClock(), isKnownCurrency: () => true })
      const make = async () => {
        const made = await accounts.createAccount(
          { name: 'Shop', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null },
          TEST_ACTOR,
        )
        return parseId('acc', made.account.id) as number
      }
      accountId = await make()
      otherAccountId = await make()
    })
    after(() => database.close())

    async function newImport(
      account: number,
      environment: 'sandbox' | 'live' = 'sandbox',
      approval?: 'automatic' | 'manual',
    ) {
      const id = await nextOrderImportNumber(database.db)
      return insertOrderImport(
        database.db,
        { accountId: account, environment },
        {
          id,
          caller: '{}',
          fileName: 'fair.csv',
          bytes: 10,
          rowsExpected: 3,
          blobKey: `order-imports/${id}.csv`,
          ...(approval ? { approval } : {}),
          createdAt: new Date(),
        },
      )
    }

    test('an import is found only in its own account and environment; the list pages newest first', async () => {
      const first = await newImport(accountId)
      const second = await newImport(accountId, 'sandbox', 'manual')
      await newImport(accountId, 'live')
      await newImport(otherAccountId)
      const scope = { accountId, environment: 'sandbox' as const }
      assert.equal((await findOrderImportForCaller(database.db, scope, first.id))?.status, 'Pending')
      // The approval is stored (manual: drafts), automatic when not named.
      assert.equal((await findOrderImportForCaller(database.db, scope, first.id))?.approval, 'automatic')
      assert.equal((await findOrderImportForCaller(database.db, scope, second.id))?.approval, 'manual')
      assert.equal(
        await findOrderImportForCaller(database.db, { accountId: otherAccountId, environment: 'sandbox' }, first.id),
        undefined,
      )
      assert.equal(await findOrderImportForCaller(database.db, { accountId, environment: 'live' }, first.id), undefined)
      const page = await listOrderImportsForCaller(database.db, scope, { before: null, top: 1 })
      assert.deepEqual(
        page.imports.map((entry) => entry.id),
        [second.id],
      )
      assert.equal(page.hasMore, true)
      const older = await listOrderImportsForCaller(database.db, scope, { before: second.id, top: 5 })
      assert.deepEqual(
        older.imports.map((entry) => entry.id),
        [first.id],
      )
      assert.equal(older.hasMore, false)
    })

    test('rows are recorded once, counts come from them, and a finished import is not claimed again', async () => {
      const entry = await newImport(accountId)
      assert.equal(await claimOrderImport(database.db, entry.id), true)
      assert.equal(await claimOrderImport(database.db, entry.id), true, 'a Running import is claimed again by a retry')
      await recordImportRows(database.db, entry.id, [
        created(2, 'ord_1'),
        created(3, 'ord_1'),
        {
          row: 4,
          merchantReference: null,
          outcome: 'Failed',
          orderId: null,
          failures: [{ row: 4, field: 'merchantReference', code: 'Required' }],
        },
      ])
      // A re-run writes the same rows again, one of them differently: the first record stays.
      await recordImportRows(database.db, entry.id, [
        { ...created(3, 'ord_9'), outcome: 'Duplicate' },
        { row: 5, merchantReference: 'B', outcome: 'Duplicate', orderId: 'ord_2', failures: [] },
      ])
      // The recount also says the highest row recorded: a re-run skips the rows up to it.
      const tally = await recountOrderImport(database.db, entry.id)
      const counted = await readOrderImport(database.db, entry.id)
      assert.deepEqual(
        [counted?.rowsRead, counted?.ordersCreated, counted?.rowsFailed, counted?.duplicatesSkipped],
        [4, 1, 1, 1],
      )
      assert.equal(tally.upTo, 5)
      const rows = await readImportRows(database.db, entry.id, 2, 2)
      assert.deepEqual(
        rows.map((row) => [row.row, row.outcome, row.orderId]),
        [
          [3, 'Created', 'ord_1'],
          [4, 'Failed', null],
        ],
      )
      assert.equal(rows[1]?.failures[0]?.code, 'Required')
      const at = new Date('2026-03-01T10:00:00Z')
      await finishOrderImport(database.db, entry.id, { status: 'Completed', failure: null }, at)
      const finished = await readOrderImport(database.db, entry.id)
      assert.equal(finished?.status, 'Completed')
      assert.equal(finished?.blobKey, null)
      assert.equal(finished?.finishedAt?.toISOString(), at.toISOString())
      assert.equal(await claimOrderImport(database.db, entry.id), false)
    })

    test('a count of the rows since the last one comes to what a recount of every row does', async () => {
      const entry = await newImport(accountId)
      const duplicate = (row: number, orderId: string): ImportRowResult => ({
        ...created(row, orderId),
        outcome: 'Duplicate',
      })
      const failed: ImportRowResult = {
        row: 4,
        merchantReference: null,
        outcome: 'Failed',
        orderId: null,
        failures: [{ row: 4, field: 'merchantReference', code: 'Required' }],
      }
      await recordImportRows(database.db, entry.id, [created(2, 'ord_1'), created(3, 'ord_1'), failed])
      const start = await recountOrderImport(database.db, entry.id)
      assert.deepEqual(start, { rowsRead: 3, ordersCreated: 1, rowsFailed: 1, duplicatesSkipped: 0, upTo: 4 })
      // ord_7 is answered as a duplicate on both sides of a count (two references with one idempotency key): one
      // order not created again. Row 9 is recorded (by another run, further on) after the count's last row.
      await recordImportRows(database.db, entry.id, [duplicate(5, 'ord_7'), duplicate(6, 'ord_7'), created(7, 'ord_2')])
      await recordImportRows(database.db, entry.id, [created(9, 'ord_4')])
      const middle = await countOrderImportRows(database.db, entry.id, start, 7)
      assert.deepEqual(middle, { rowsRead: 6, ordersCreated: 2, rowsFailed: 1, duplicatesSkipped: 1, upTo: 7 })
      await recordImportRows(database.db, entry.id, [duplicate(8, 'ord_7'), duplicate(10, 'ord_8')])
      const end = await countOrderImportRows(database.db, entry.id, middle, 10)
      assert.deepEqual(end, { rowsRead: 9, ordersCreated: 3, rowsFailed: 1, duplicatesSkipped: 2, upTo: 10 })
      const written = await readOrderImport(database.db, entry.id)
      assert.deepEqual(
        [written?.rowsRead, written?.ordersCreated, written?.rowsFailed, written?.duplicatesSkipped],
        [9, 3, 1, 2],
      )
      assert.deepEqual(await recountOrderImport(database.db, entry.id), end)
    })
  })
}
