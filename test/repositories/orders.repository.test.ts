// The orders repository on every configured backend (PGlite always, PostgreSQL when
// PRINTROUTE_TEST_DATABASE_URL is set): the one-statement create (IDs, quote claim, Sandbox scenario, start job),
// idempotency, reads and list filters.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildNewOrderDocument, type NewOrder } from '../../src/domain/order.ts'
import { insertAccount, updateSandboxScenarioDefault } from '../../src/repositories/accounts.repository.ts'
import {
  createOrderRow,
  findOrder,
  findOrderByIdempotencyKey,
  listOrders,
  lockOrder,
  type NewOrderRow,
  newOrderIdPlaceholders,
  type OrderListFilter,
  type OrderScope,
  QuoteAlreadyClaimed,
  saveOrder,
} from '../../src/repositories/orders.repository.ts'
import { findQuote, insertQuotes } from '../../src/repositories/quotes.repository.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

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

// The start job's statement, standing in for the job queue's: it records the parameter it was run with, so a
// test sees whether it ran, and with the order's ID filled in for the placeholder.
const RECORD_START_JOB = 'INSERT INTO test_start_jobs (parameter) VALUES ($1)'

function insert(
  db: TestDatabase['db'],
  scope: OrderScope,
  order: NewOrder,
  createdAt: Date,
  onHoldUntil: Date | null = null,
  more: Partial<Pick<NewOrderRow, 'quoteNumber' | 'sandboxScenario' | 'draftExpiresAt'>> = {},
) {
  const placeholders = newOrderIdPlaceholders(
    order.items.length,
    order.items.reduce((n, i) => n + i.assets.length, 0),
  )
  const document = buildNewOrderDocument(order, placeholders.ids, createdAt)
  return createOrderRow(db, scope, {
    idempotencyKey: order.idempotencyKey,
    merchantReference: order.merchantReference,
    stage: 'InProgress',
    createdAt,
    onHoldUntil,
    placeholders,
    documentTemplate: JSON.stringify(document),
    quoteNumber: null,
    sandboxScenario: undefined,
    startJob: { text: RECORD_START_JOB, parameter: JSON.stringify({ orderId: placeholders.ids.order }) },
    draftExpiresAt: null,
    ...more,
  })
}

async function startJobsOf(db: TestDatabase['db'], orderNumber: number): Promise<number> {
  const rows = await db.query<{ count: string | number }>(
    'SELECT count(*) AS count FROM test_start_jobs WHERE parameter = $1',
    [JSON.stringify({ orderId: `ord_${orderNumber}` })],
  )
  return Number(rows[0]?.count)
}

async function scenarioOf(db: TestDatabase['db'], orderNumber: number): Promise<string | null | undefined> {
  const rows = await db.query<{ scenario: string | null }>(
    'SELECT sandbox_scenario AS scenario FROM orders WHERE id = $1',
    [orderNumber],
  )
  return rows[0]?.scenario
}

const baseFilter: OrderListFilter = {
  visibleAt: new Date('2030-01-01T00:00:00Z'),
  createdFrom: null,
  createdTo: null,
  stage: null,
  awaitingPayment: false,
  draftsOnly: false,
  orderNumbers: null,
  merchantReferences: null,
  search: null,
  skip: 0,
  top: 10,
}

for (const kind of databaseKinds) {
  describe(`orders repository (${kind})`, () => {
    let database: TestDatabase
    let scope: OrderScope
    let otherScope: OrderScope
    const t0 = new Date('2026-03-01T09:00:00.000Z')

    /** A new account with no pause window and no callback URLs. */
    const newAccount = (name: string) =>
      insertAccount(database.db, {
        name,
        billingCurrency: 'GBP',
        pauseWindowSeconds: 0,
        callbackUrls: { sandbox: null, live: null },
        createdAt: t0,
      })

    before(async () => {
      database = await openTestDatabase(kind, { maxConnections: 20 })
      const account = await newAccount('a')
      const other = await newAccount('b')
      scope = { accountId: account.id, environment: 'sandbox' }
      otherScope = { accountId: other.id, environment: 'sandbox' }
      await database.db.exec('CREATE TABLE test_start_jobs (parameter text NOT NULL)')
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

    test('the start job statement runs once, in the same statement, with the order ID filled in', async () => {
      const stored = await insert(database.db, scope, newOrder(), t0)
      assert.equal(await startJobsOf(database.db, stored.orderNumber), 1)
    })

    test('a failing start job statement leaves no order behind', async () => {
      const before = await database.db.query<{ last: string | number | null }>('SELECT max(id) AS last FROM orders')
      const placeholders = newOrderIdPlaceholders(1, 1)
      await assert.rejects(
        createOrderRow(database.db, scope, {
          idempotencyKey: 'fails-to-enqueue',
          merchantReference: null,
          stage: 'InProgress',
          createdAt: t0,
          onHoldUntil: null,
          placeholders,
          documentTemplate: JSON.stringify(buildNewOrderDocument(newOrder(), placeholders.ids, t0)),
          quoteNumber: null,
          sandboxScenario: undefined,
          startJob: { text: 'INSERT INTO no_such_table VALUES ($1)', parameter: '{}' },
          draftExpiresAt: null,
        }),
      )
      assert.equal(await findOrderByIdempotencyKey(database.db, scope, 'fails-to-enqueue'), undefined)
      const afterwards = await database.db.query<{ last: string | number | null }>('SELECT max(id) AS last FROM orders')
      assert.equal(afterwards[0]?.last, before[0]?.last)
    })

    test('a Sandbox order gets the scenario it names, else the account default; Live gets none', async () => {
      const account = await newAccount('scenarios')
      const sandbox: OrderScope = { accountId: account.id, environment: 'sandbox' }
      const plain = await insert(database.db, sandbox, newOrder(), t0)
      assert.equal(plain.sandboxScenario, null)
      assert.equal(await scenarioOf(database.db, plain.orderNumber), null)
      await updateSandboxScenarioDefault(database.db, account.id, 'labRejects')
      const byDefault = await insert(database.db, sandbox, newOrder(), t0)
      assert.equal(byDefault.sandboxScenario, 'labRejects')
      assert.equal(await scenarioOf(database.db, byDefault.orderNumber), 'labRejects')
      const named = await insert(database.db, sandbox, newOrder(), t0, null, { sandboxScenario: 'outOfStock' })
      assert.equal(await scenarioOf(database.db, named.orderNumber), 'outOfStock')
      const namedNone = await insert(database.db, sandbox, newOrder(), t0, null, { sandboxScenario: null })
      assert.equal(await scenarioOf(database.db, namedNone.orderNumber), null, 'naming none beats the default')
      const live = await insert(database.db, { ...sandbox, environment: 'live' }, newOrder(), t0)
      assert.equal(await scenarioOf(database.db, live.orderNumber), null, 'Live ignores the default')
    })

    test('an order claims its quote; a second order naming it is not created', async () => {
      const [quoteId] = await insertQuotes(
        database.db,
        scope,
        [
          {
            shippingMethod: 'Standard',
            destinationCountryCode: 'GB',
            currency: 'GBP',
            items: [],
            shipments: [],
            routing: {
              basis: 'Quote',
              at: t0.toISOString(),
              shippingMethod: 'Standard',
              items: [],
              chosenPlan: null,
              bestUnsplitPlan: null,
              splitSaving: null,
              unavailableItemIds: [],
            },
          },
        ],
        { createdAt: t0, expiresAt: new Date(t0.getTime() + 3_600_000) },
      )
      const quoteNumber = Number(quoteId?.split('_')[1])
      const first = await insert(database.db, scope, newOrder(), t0, null, { quoteNumber })
      assert.equal((await findQuote(database.db, scope, quoteNumber))?.usedByOrderId, `ord_${first.orderNumber}`)
      const rejected = await insert(database.db, scope, newOrder({ idempotencyKey: 'second-on-quote' }), t0, null, {
        quoteNumber,
      }).catch((error: unknown) => error)
      assert.ok(rejected instanceof QuoteAlreadyClaimed, String(rejected))
      assert.equal(rejected.holderOrderNumber, first.orderNumber)
      assert.equal(await findOrderByIdempotencyKey(database.db, scope, 'second-on-quote'), undefined)
      const jobs = await database.db.query<{ count: string | number }>(
        'SELECT count(*) AS count FROM test_start_jobs WHERE parameter NOT LIKE $1',
        ['%ord_%'],
      )
      assert.equal(Number(jobs[0]?.count), 0, 'no job with a placeholder left')
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
      assert.equal(await startJobsOf(database.db, first.orderNumber), 1, 'the retry enqueued no second start job')
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
      const lister = await newAccount('c')
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
      assert.deepEqual(numbers(await listOrders(database.db, listScope, { ...baseFilter, draftsOnly: true })), [])
      const later = await listOrders(database.db, listScope, {
        ...baseFilter,
        top: 100,
        visibleAt: new Date('2031-06-01T00:00:00Z'),
      })
      assert.ok(numbers(later).includes(held.orderNumber), 'visible once the hold has expired')
    })

    test('a draft is stored with its expiry, listed by the draft filter, and leaves it once saved as no draft', async () => {
      const lister = await newAccount('d')
      const listScope: OrderScope = { accountId: lister.id, environment: 'sandbox' }
      const expiresAt = new Date(t0.getTime() + 30 * 86_400_000)
      const plain = await insert(database.db, listScope, newOrder(), t0)
      const draft = await insert(
        database.db,
        listScope,
        newOrder({ draftExpiresAt: expiresAt.toISOString() }),
        t0,
        null,
        { draftExpiresAt: expiresAt },
      )
      const numbers = (result: { ordersJson: string[] }) =>
        result.ordersJson.map((json) => Number(JSON.parse(json).id.slice(4)))
      assert.deepEqual(numbers(await listOrders(database.db, listScope, { ...baseFilter, draftsOnly: true })), [
        draft.orderNumber,
      ])
      assert.deepEqual(numbers(await listOrders(database.db, listScope, baseFilter)), [
        draft.orderNumber,
        plain.orderNumber,
      ])
      const rows = await database.db.query<{ expiry: Date | null }>(
        'SELECT draft_expires_at AS expiry FROM orders WHERE id = $1',
        [draft.orderNumber],
      )
      assert.equal(rows[0]?.expiry?.toISOString(), expiresAt.toISOString())
      // Confirmed: the document loses its draft keys and saveOrder clears the column.
      await database.db.transaction(async (tx) => {
        const order = await lockOrder(tx, draft.orderNumber, listScope)
        assert.ok(order)
        assert.equal(order.document.draft, true)
        delete order.document.draft
        delete order.document.expiresAt
        await saveOrder(tx, order)
      })
      assert.deepEqual(numbers(await listOrders(database.db, listScope, { ...baseFilter, draftsOnly: true })), [])
    })
  })
}
