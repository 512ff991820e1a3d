// The orders repository on every configured backend (PGlite always, PostgreSQL when
// PRINTROUTE_TEST_DATABASE_URL is set): the one-round-trip insert, idempotency, reads and list filters.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildNewOrderDocument, type NewOrder } from '../../src/domain/order.ts'
import { insertAccount } from '../../src/repositories/accounts.repository.ts'
import {
  findOrder,
  findOrderByIdempotencyKey,
  insertNewOrder,
  listOrders,
  newOrderIdPlaceholders,
  type OrderListFilter,
  type OrderScope,
} from '../../src/repositories/orders.repository.ts'
import { openTestDatabase, type TestDatabase, testDatabaseKinds } from '../support/databases.ts'

function newOrder(overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    merchantReference: 'MR-1',
    shippingMethod: 'Standard',
    idempotencyKey: null,
    callbackUrl: null,
    recipient: {
      name: 'Ada',
      email: null,
      phoneNumber: null,
      address: {
        line1: 'l1',
        line2: null,
        postalOrZipCode: 'EC1',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: null,
      },
    },
    branding: null,
    packingSlip: null,
    metadata: null,
    items: [
      {
        merchantReference: null,
        sku: 'GLOBAL-FAP-16x24',
        copies: 1,
        sizing: 'fillPrintArea',
        recipientCost: null,
        attributes: {},
        assets: [{ printArea: 'default', url: 'https://x.test/a.jpg', md5Hash: null, pageCount: null }],
      },
    ],
    ...overrides,
  }
}

function insert(
  db: TestDatabase['db'],
  scope: OrderScope,
  order: NewOrder,
  createdAt: Date,
  onHoldUntil: Date | null = null,
) {
  const placeholders = newOrderIdPlaceholders(
    order.items.length,
    order.items.reduce((n, i) => n + i.assets.length, 0),
  )
  const document = buildNewOrderDocument(order, placeholders.ids, createdAt)
  return insertNewOrder(db, scope, {
    idempotencyKey: order.idempotencyKey,
    merchantReference: order.merchantReference,
    stage: 'InProgress',
    createdAt,
    onHoldUntil,
    placeholders,
    documentTemplate: JSON.stringify(document),
  })
}

const baseFilter: OrderListFilter = {
  visibleAt: new Date('2030-01-01T00:00:00Z'),
  createdFrom: null,
  createdTo: null,
  stage: null,
  awaitingPayment: false,
  matchNothing: false,
  orderNumbers: null,
  merchantReferences: null,
  search: null,
  skip: 0,
  top: 10,
}

for (const kind of testDatabaseKinds()) {
  describe(`orders repository (${kind})`, () => {
    let database: TestDatabase
    let scope: OrderScope
    let otherScope: OrderScope
    const t0 = new Date('2026-03-01T09:00:00.000Z')

    before(async () => {
      database = await openTestDatabase(kind, { maxConnections: 20 })
      const account = await insertAccount(database.db, {
        name: 'a',
        billingCurrency: 'GBP',
        pauseWindowSeconds: 0,
        callbackUrls: { sandbox: null, live: null },
        createdAt: t0,
      })
      const other = await insertAccount(database.db, {
        name: 'b',
        billingCurrency: 'GBP',
        pauseWindowSeconds: 0,
        callbackUrls: { sandbox: null, live: null },
        createdAt: t0,
      })
      scope = { accountId: account.id, environment: 'sandbox' }
      otherScope = { accountId: other.id, environment: 'sandbox' }
    })
    after(() => database.close())

    test('an insert draws increasing IDs for the order, its items and assets and fills them in', async () => {
      const twoItems = newOrder({
        items: [...newOrder().items, ...newOrder().items].map((item, index) => ({
          ...item,
          assets: Array.from({ length: index + 1 }, () => item.assets[0]!),
        })),
      })
      const first = await insert(database.db, scope, twoItems, t0)
      const second = await insert(database.db, scope, twoItems, t0)
      assert.equal(first.inserted, true)
      const a = JSON.parse(first.documentJson)
      const b = JSON.parse(second.documentJson)
      assert.equal(a.id, `ord_${first.orderNumber}`)
      assert.ok(second.orderNumber > first.orderNumber)
      const number = (id: string) => Number(id.split('_')[1])
      const itemIds = [...a.items, ...b.items].map((item: { id: string }) => number(item.id))
      assert.deepEqual(
        itemIds,
        [...itemIds].sort((x, y) => x - y),
      )
      assert.equal(new Set(itemIds).size, 4)
      const assetIds = [...a.items, ...b.items].flatMap((item: { assets: { id: string }[] }) =>
        item.assets.map((asset) => asset.id),
      )
      assert.equal(assetIds.length, 6)
      assert.ok(assetIds.every((id: string) => /^ast_\d+$/.test(id)))
      assert.equal(new Set(assetIds).size, 6)
      assert.doesNotMatch(first.documentJson, /@[0-9a-f]{24}/, 'no placeholder left behind')
    })

    test('merchant text that looks like a placeholder is stored untouched', async () => {
      const { token } = newOrderIdPlaceholders(0, 0)
      const sneaky = `${token}:order ori_@000000000000000000000000:item:1`
      const stored = await insert(
        database.db,
        scope,
        newOrder({ merchantReference: sneaky, metadata: { note: sneaky } }),
        t0,
      )
      const document = JSON.parse(stored.documentJson)
      assert.equal(document.merchantReference, sneaky)
      assert.equal(document.metadata.note, sneaky)
    })

    test('a taken idempotency key returns the existing order and inserts nothing', async () => {
      const keyed = newOrder({ idempotencyKey: 'key-1' })
      const first = await insert(database.db, scope, keyed, t0)
      const again = await insert(database.db, scope, { ...keyed, merchantReference: 'different' }, t0)
      assert.equal(again.inserted, false)
      assert.equal(again.orderNumber, first.orderNumber)
      assert.equal(again.documentJson, first.documentJson)
      const elsewhere = await insert(database.db, otherScope, keyed, t0)
      assert.equal(elsewhere.inserted, true, 'keys are scoped to the account')
      const live = await insert(database.db, { ...scope, environment: 'live' }, keyed, t0)
      assert.equal(live.inserted, true, 'and to the environment')
      const found = await findOrderByIdempotencyKey(database.db, scope, 'key-1')
      assert.equal(found?.orderNumber, first.orderNumber)
    })

    test('50 concurrent inserts with one idempotency key insert exactly one order', async () => {
      // Straight at the database, without the service's early lookup, so every insert really races.
      const keyed = newOrder({ idempotencyKey: 'race-key' })
      const results = await Promise.all(Array.from({ length: 50 }, () => insert(database.db, scope, keyed, t0)))
      assert.equal(results.filter((result) => result.inserted).length, 1)
      assert.equal(new Set(results.map((result) => result.orderNumber)).size, 1)
      assert.equal(new Set(results.map((result) => result.documentJson)).size, 1)
      const rows = await database.db.query<{ count: string | number }>(
        "SELECT count(*) AS count FROM orders WHERE idempotency_key = 'race-key'",
      )
      assert.equal(Number(rows[0]?.count), 1)
    })

    test('orders are read only within their scope, as the stored text', async () => {
      const stored = await insert(database.db, scope, newOrder(), t0)
      const found = await findOrder(database.db, scope, stored.orderNumber)
      assert.equal(found?.documentJson, stored.documentJson)
      assert.equal(await findOrder(database.db, otherScope, stored.orderNumber), undefined)
      assert.equal(await findOrder(database.db, { ...scope, environment: 'live' }, stored.orderNumber), undefined)
    })

    test('listing filters, pages newest first and hides orders on hold', async () => {
      const lister = await insertAccount(database.db, {
        name: 'c',
        billingCurrency: 'GBP',
        pauseWindowSeconds: 0,
        callbackUrls: { sandbox: null, live: null },
        createdAt: t0,
      })
      const listScope: OrderScope = { accountId: lister.id, environment: 'live' }
      const created: number[] = []
      for (let index = 0; index < 5; index++) {
        const at = new Date(t0.getTime() + index * 60_000)
        const stored = await insert(database.db, listScope, newOrder({ merchantReference: `ref-${index % 2}` }), at)
        created.push(stored.orderNumber)
      }
      const held = await insert(database.db, listScope, newOrder(), t0, new Date('2031-01-01T00:00:00Z'))
      const numbers = (result: { ordersJson: string[] }) =>
        result.ordersJson.map((json) => Number(JSON.parse(json).id.slice(4)))

      const all = await listOrders(database.db, listScope, { ...baseFilter, top: 100 })
      assert.deepEqual(numbers(all), [...created].reverse())
      assert.ok(!numbers(all).includes(held.orderNumber))

      const page = await listOrders(database.db, listScope, { ...baseFilter, top: 2, skip: 1 })
      assert.deepEqual(numbers(page), [created[3], created[2]])
      assert.equal(page.hasMore, true)
      const last = await listOrders(database.db, listScope, { ...baseFilter, top: 2, skip: 4 })
      assert.equal(last.hasMore, false)

      const window = await listOrders(database.db, listScope, {
        ...baseFilter,
        createdFrom: new Date(t0.getTime() + 60_000),
        createdTo: new Date(t0.getTime() + 180_000),
      })
      assert.deepEqual(numbers(window), [created[3], created[2], created[1]])

      const byReference = await listOrders(database.db, listScope, { ...baseFilter, merchantReferences: ['ref-1'] })
      assert.deepEqual(numbers(byReference), [created[3], created[1]])
      const byId = await listOrders(database.db, listScope, { ...baseFilter, orderNumbers: [created[0]!, created[4]!] })
      assert.deepEqual(numbers(byId), [created[4], created[0]])
      assert.deepEqual(numbers(await listOrders(database.db, listScope, { ...baseFilter, stage: 'Complete' })), [])
      assert.deepEqual(numbers(await listOrders(database.db, listScope, { ...baseFilter, awaitingPayment: true })), [])
      assert.deepEqual(numbers(await listOrders(database.db, listScope, { ...baseFilter, matchNothing: true })), [])
      const later = await listOrders(database.db, listScope, {
        ...baseFilter,
        top: 100,
        visibleAt: new Date('2031-06-01T00:00:00Z'),
      })
      assert.ok(numbers(later).includes(held.orderNumber), 'visible once the hold has expired')
    })
  })
}
