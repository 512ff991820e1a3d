// Revenue and margin (docs/billing.md#revenue-and-margin): the figures' definitions on small hand-made cases, and
// properties over generated documents and hand-offs: each grouping's groups add up to the whole, margin is
// revenue - refunds - lab cost, currencies are never added, and the query's parser refuses what it must.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import {
  buildRevenueReport,
  formatMarginRate,
  isoWeekOf,
  NO_LAB,
  orderMarginView,
  parseRevenueQuery,
  REVENUE_GROUPINGS,
  type RevenueCharge,
  type RevenueCost,
  type RevenueFigures,
  type RevenueGrouping,
  type RevenueQuery,
  revenueCsv,
  revenueReportView,
  SEVERAL_PRODUCTS,
  type ShipmentAttribution,
} from './revenue.ts'

tier('pure')

const at = (text: string) => new Date(text)
const NOVEMBER: Omit<RevenueQuery, 'by'> = { from: at('2026-11-01T00:00:00Z'), to: at('2026-12-01T00:00:00Z') }

function charge(overrides: Partial<RevenueCharge>): RevenueCharge {
  return {
    kind: 'Invoice',
    accountId: 1,
    orderNumber: 1,
    issuedAt: at('2026-11-02T10:00:00Z'),
    currency: 'GBP',
    lines: [],
    ...overrides,
  }
}

function cost(overrides: Partial<RevenueCost>): RevenueCost {
  return {
    accountId: 1,
    orderNumber: 1,
    shipmentId: 'shp_1',
    labCode: 'LAB-A',
    kind: 'Original',
    handedAt: at('2026-11-02T10:05:00Z'),
    outcome: 'Shipped',
    priceCurrency: 'GBP',
    priceItemsMinor: 1000n,
    priceShippingMinor: 500n,
    costInPriceCurrencyMinor: 900n,
    ...overrides,
  }
}

const NO_ATTRIBUTION: ShipmentAttribution = { labOf: new Map(), skusOf: new Map() }

/** One order: an invoice of two items and shipping, a credit note refunding the shipping, two hand-offs. */
function oneOrder(): { charges: RevenueCharge[]; costs: RevenueCost[]; attribution: ShipmentAttribution } {
  return {
    charges: [
      charge({
        lines: [
          { kind: 'Item', sku: 'MUG', shipmentId: 'shp_1', costMinor: 1000n },
          { kind: 'Shipping', sku: null, shipmentId: 'shp_1', costMinor: 500n },
          { kind: 'Item', sku: 'CASE', shipmentId: 'shp_2', costMinor: 2000n },
          { kind: 'Item', sku: 'MUG', shipmentId: 'shp_2', costMinor: 700n },
          { kind: 'Duties', sku: null, shipmentId: 'shp_2', costMinor: 999n },
        ],
      }),
      charge({
        kind: 'CreditNote',
        issuedAt: at('2026-11-10T09:00:00Z'),
        lines: [{ kind: 'Shipping', sku: null, shipmentId: 'shp_1', costMinor: -500n }],
      }),
    ],
    costs: [
      cost({ shipmentId: 'shp_1', labCode: 'LAB-A', costInPriceCurrencyMinor: 600n }),
      cost({ shipmentId: 'shp_2', labCode: 'LAB-B', costInPriceCurrencyMinor: 1500n }),
      // A rejected hand-off owes nothing.
      cost({ shipmentId: 'shp_2', labCode: 'LAB-C', outcome: 'Rejected', costInPriceCurrencyMinor: 4000n }),
    ],
    attribution: {
      labOf: new Map([
        ['shp_1', 'LAB-A'],
        ['shp_2', 'LAB-B'],
      ]),
      skusOf: new Map([
        ['shp_1', new Set(['MUG'])],
        ['shp_2', new Set(['CASE', 'MUG'])],
      ]),
    },
  }
}

const figures = (values: Partial<RevenueFigures>): RevenueFigures => ({
  orders: 1,
  revenueMinor: 0n,
  refundsMinor: 0n,
  netRevenueMinor: 0n,
  labCostMinor: 0n,
  marginMinor: 0n,
  ...values,
})

test('the whole: revenue leaves duties out, refunds are the credit notes, cost only what is owed', () => {
  const report = buildRevenueReport({ query: { ...NOVEMBER, by: 'account' }, ...oneOrder() })
  assert.equal(report.currencies.length, 1)
  const block = report.currencies[0]
  assert.ok(block)
  assert.deepEqual(
    block.total,
    figures({
      revenueMinor: 4200n,
      refundsMinor: 500n,
      netRevenueMinor: 3700n,
      labCostMinor: 2100n,
      marginMinor: 1600n,
    }),
  )
  assert.deepEqual(
    block.groups.map((group) => group.key),
    ['acc_1'],
  )
})

test('by product: item lines by SKU; a one-product shipment takes its shipping and cost; others are apart', () => {
  const report = buildRevenueReport({ query: { ...NOVEMBER, by: 'product' }, ...oneOrder() })
  const groups = Object.fromEntries(report.currencies[0]?.groups.map((group) => [group.key, group.figures]) ?? [])
  // MUG: 1000 + 500 shipping (shp_1 has only mugs) + 700 in shp_2; the shipping refunded; shp_1's cost.
  assert.deepEqual(
    groups.MUG,
    figures({
      revenueMinor: 2200n,
      refundsMinor: 500n,
      netRevenueMinor: 1700n,
      labCostMinor: 600n,
      marginMinor: 1100n,
    }),
  )
  assert.deepEqual(groups.CASE, figures({ revenueMinor: 2000n, netRevenueMinor: 2000n, marginMinor: 2000n }))
  // shp_2 holds two products: its cost (and the rejected hand-off) is not split between them.
  assert.deepEqual(groups[SEVERAL_PRODUCTS], figures({ labCostMinor: 1500n, marginMinor: -1500n }))
})

test('by lab: a line follows its shipment to the lab of its latest hand-off; unknown shipments have none', () => {
  const order = oneOrder()
  order.charges.push(
    charge({ orderNumber: 2, lines: [{ kind: 'Item', sku: 'MUG', shipmentId: 'shp_9', costMinor: 300n }] }),
  )
  const report = buildRevenueReport({ query: { ...NOVEMBER, by: 'lab' }, ...order })
  const groups = report.currencies[0]?.groups ?? []
  assert.deepEqual(
    groups.map((group) => group.key),
    [NO_LAB, 'LAB-A', 'LAB-B', 'LAB-C'],
  )
  const byKey = Object.fromEntries(groups.map((group) => [group.key, group.figures]))
  assert.equal(byKey['LAB-A']?.revenueMinor, 1500n)
  assert.equal(byKey['LAB-A']?.refundsMinor, 500n)
  assert.equal(byKey['LAB-A']?.labCostMinor, 600n)
  assert.equal(byKey['LAB-C']?.labCostMinor, 0n)
  assert.equal(byKey[NO_LAB]?.revenueMinor, 300n)
})

test('by period: documents by their issue, hand-offs by theirs, in UTC; ISO weeks start on Monday', () => {
  const order = oneOrder()
  const days = buildRevenueReport({ query: { ...NOVEMBER, by: 'day' }, ...order })
  assert.deepEqual(
    days.currencies[0]?.groups.map((group) => group.key),
    ['2026-11-02', '2026-11-10'],
  )
  const weeks = buildRevenueReport({ query: { ...NOVEMBER, by: 'week' }, ...order })
  assert.deepEqual(
    weeks.currencies[0]?.groups.map((group) => group.key),
    ['2026-W45', '2026-W46'],
  )
  assert.equal(isoWeekOf(at('2026-11-01T23:59:59Z')), '2026-W44') // a Sunday
  assert.equal(isoWeekOf(at('2026-11-02T00:00:00Z')), '2026-W45') // the Monday after
  assert.equal(isoWeekOf(at('2027-01-01T12:00:00Z')), '2026-W53') // a Friday: the year before's last week
  assert.equal(isoWeekOf(at('2024-12-30T12:00:00Z')), '2025-W01') // a Monday: next year's first week
  const months = buildRevenueReport({ query: { ...NOVEMBER, by: 'month' }, ...order })
  assert.deepEqual(
    months.currencies[0]?.groups.map((group) => group.key),
    ['2026-11'],
  )
})

test('the range is [from, to): what lies outside is left out, whatever is given', () => {
  const report = buildRevenueReport({
    query: { ...NOVEMBER, by: 'account' },
    charges: [
      charge({
        issuedAt: at('2026-12-01T00:00:00Z'),
        lines: [{ kind: 'Item', sku: 'A', shipmentId: 's', costMinor: 5n }],
      }),
      charge({
        issuedAt: at('2026-11-01T00:00:00Z'),
        lines: [{ kind: 'Item', sku: 'A', shipmentId: 's', costMinor: 7n }],
      }),
    ],
    costs: [cost({ handedAt: at('2026-10-31T23:59:59.999Z') })],
    attribution: NO_ATTRIBUTION,
  })
  assert.equal(report.currencies[0]?.total.revenueMinor, 7n)
  assert.equal(report.currencies[0]?.total.labCostMinor, 0n)
})

test('currencies are never added: one block per currency, in code order', () => {
  const report = buildRevenueReport({
    query: { ...NOVEMBER, by: 'account' },
    charges: [
      charge({ currency: 'USD', lines: [{ kind: 'Item', sku: 'A', shipmentId: 's1', costMinor: 100n }] }),
      charge({ currency: 'EUR', lines: [{ kind: 'Item', sku: 'A', shipmentId: 's2', costMinor: 200n }] }),
    ],
    costs: [cost({ priceCurrency: 'USD', costInPriceCurrencyMinor: 30n })],
    attribution: NO_ATTRIBUTION,
  })
  assert.deepEqual(
    report.currencies.map((block) => [block.currency, block.total.revenueMinor, block.total.labCostMinor]),
    [
      ['EUR', 200n, 0n],
      ['USD', 100n, 30n],
    ],
  )
})

test('accounts sort by number, not as text', () => {
  const report = buildRevenueReport({
    query: { ...NOVEMBER, by: 'account' },
    charges: [10, 9, 100].map((accountId) =>
      charge({ accountId, lines: [{ kind: 'Item', sku: 'A', shipmentId: 's', costMinor: 1n }] }),
    ),
    costs: [],
    attribution: NO_ATTRIBUTION,
  })
  assert.deepEqual(
    report.currencies[0]?.groups.map((group) => group.key),
    ['acc_9', 'acc_10', 'acc_100'],
  )
})

test('margin rate: one rounding, half away from zero; none without net revenue', () => {
  assert.equal(formatMarginRate(1600n, 3700n), '43.2%') // 43.243...
  assert.equal(formatMarginRate(1n, 8n), '12.5%')
  assert.equal(formatMarginRate(1n, 16n), '6.3%') // 6.25 -> 6.3
  assert.equal(formatMarginRate(-1n, 16n), '-6.3%')
  assert.equal(formatMarginRate(-1n, 100000n), '0.0%') // rounds to nothing: no minus sign on zero
  assert.equal(formatMarginRate(3700n, 3700n), '100.0%')
  assert.equal(formatMarginRate(-500n, 0n), null)
  assert.equal(formatMarginRate(10n, -5n), null)
})

test('the query: dates as YYYY-MM-DD, to after from and at most 366 days on, a known grouping', () => {
  assert.deepEqual(parseRevenueQuery({ from: '2026-11-01', to: '2026-12-01', by: 'week' }), {
    query: { from: at('2026-11-01T00:00:00Z'), to: at('2026-12-01T00:00:00Z'), by: 'week' },
  })
  const refused = (input: { from?: string; to?: string; by?: string }) => {
    const parsed = parseRevenueQuery(input)
    assert.ok('problems' in parsed, JSON.stringify(input))
    return parsed.problems
  }
  assert.deepEqual(Object.keys(refused({ from: '2026-02-30', to: '2026-03-01', by: 'day' })), ['from'])
  assert.deepEqual(Object.keys(refused({ from: '1/11/2026', to: 'tomorrow', by: 'day' })), ['from', 'to'])
  assert.deepEqual(Object.keys(refused({ to: '2026-03-01', by: 'day' })), ['from'])
  assert.deepEqual(Object.keys(refused({ from: '2026-03-01', to: '2026-03-01', by: 'day' })), ['to'])
  assert.deepEqual(Object.keys(refused({ from: '2026-01-01', to: '2027-01-03', by: 'day' })), ['to'])
  assert.deepEqual(Object.keys(refused({ from: '2026-01-01', to: '2026-02-01', by: 'year' })), ['by'])
  assert.ok('query' in parseRevenueQuery({ from: '2024-01-01', to: '2025-01-01', by: 'month' })) // 366 days
})

test('the CSV: a row per group and a Total per currency, named by the grouping', () => {
  const view = revenueReportView(buildRevenueReport({ query: { ...NOVEMBER, by: 'lab' }, ...oneOrder() }))
  assert.equal(
    revenueCsv(view),
    [
      'currency,lab,orders,revenue,refunds,netRevenue,labCost,margin,marginRate',
      'GBP,LAB-A,1,15.00,5.00,10.00,6.00,4.00,40.0%',
      'GBP,LAB-B,1,27.00,0.00,27.00,15.00,12.00,44.4%',
      'GBP,LAB-C,1,0.00,0.00,0.00,0.00,0.00,',
      'GBP,Total,1,42.00,5.00,37.00,21.00,16.00,43.2%',
      '',
    ].join('\r\n'),
  )
})

test("an order's margin: each hand-off's price, cost and margin; a rejected one counts for nothing", () => {
  const view = orderMarginView(oneOrder().costs)
  assert.deepEqual(
    view.rows.map((row) => [row.shipmentId, row.labCode, row.price, row.labCost, row.margin, row.costCounts]),
    [
      ['shp_1', 'LAB-A', '15.00', '6.00', '9.00', true],
      ['shp_2', 'LAB-B', '15.00', '15.00', '0.00', true],
      ['shp_2', 'LAB-C', '15.00', '40.00', null, false],
    ],
  )
  assert.deepEqual(view.totals, [
    { currency: 'GBP', price: '30.00', labCost: '21.00', margin: '9.00', marginRate: '30.0%' },
  ])
  assert.deepEqual(orderMarginView([]), { rows: [], totals: [] })
})

// ---------------------------------------------------------------------------------------------------------
// Properties over generated documents and hand-offs.

const CURRENCIES = ['GBP', 'EUR']
const SKUS = ['MUG', 'CASE', 'BOOK']
const LABS = ['LAB-A', 'LAB-B']
const SHIPMENTS = ['shp_1', 'shp_2', 'shp_3', 'shp_4']
const FROM = NOVEMBER.from.getTime()
const SPAN = 40 * 86_400_000 // some fall past the range's end

const instant = fc.integer({ min: FROM - 5 * 86_400_000, max: FROM + SPAN }).map((ms) => new Date(ms))
const amount = fc.bigInt({ min: -50_000n, max: 200_000n })

/** An order belongs to one account, as it does in the database. */
const accountOf = (orderNumber: number) => (orderNumber % 3) + 1

const chargeArbitrary: fc.Arbitrary<RevenueCharge> = fc
  .record({
    kind: fc.constantFrom('Invoice' as const, 'CreditNote' as const),
    accountId: fc.constant(0),
    orderNumber: fc.integer({ min: 1, max: 8 }),
    issuedAt: instant,
    currency: fc.constantFrom(...CURRENCIES),
    lines: fc.array(
      fc.record({
        kind: fc.constantFrom('Item' as const, 'Shipping' as const, 'Duties' as const),
        sku: fc.option(fc.constantFrom(...SKUS), { nil: null }),
        shipmentId: fc.constantFrom(...SHIPMENTS),
        costMinor: amount,
      }),
      { maxLength: 5 },
    ),
  })
  .map((document) => ({ ...document, accountId: accountOf(document.orderNumber) }))

const costArbitrary: fc.Arbitrary<RevenueCost> = fc
  .record({
    accountId: fc.constant(0),
    orderNumber: fc.integer({ min: 1, max: 8 }),
    shipmentId: fc.constantFrom(...SHIPMENTS),
    labCode: fc.constantFrom(...LABS),
    kind: fc.constantFrom('Original' as const, 'Moved' as const, 'Reprint' as const),
    handedAt: instant,
    outcome: fc.constantFrom('Open' as const, 'Shipped' as const, 'Cancelled' as const, 'Rejected' as const),
    priceCurrency: fc.constantFrom(...CURRENCIES),
    priceItemsMinor: fc.bigInt({ min: 0n, max: 100_000n }),
    priceShippingMinor: fc.bigInt({ min: 0n, max: 10_000n }),
    costInPriceCurrencyMinor: fc.bigInt({ min: 0n, max: 100_000n }),
  })
  .map((handoff) => ({ ...handoff, accountId: accountOf(handoff.orderNumber) }))

const attributionArbitrary: fc.Arbitrary<ShipmentAttribution> = fc
  .record({
    labs: fc.array(fc.option(fc.constantFrom(...LABS), { nil: undefined }), {
      minLength: SHIPMENTS.length,
      maxLength: SHIPMENTS.length,
    }),
    skus: fc.array(fc.subarray(SKUS), { minLength: SHIPMENTS.length, maxLength: SHIPMENTS.length }),
  })
  .map(({ labs, skus }) => ({
    labOf: new Map(
      SHIPMENTS.flatMap((shipment, index) => (labs[index] ? [[shipment, labs[index]] as [string, string]] : [])),
    ),
    skusOf: new Map(SHIPMENTS.map((shipment, index) => [shipment, new Set(skus[index])])),
  }))

const inputArbitrary = fc.record({
  by: fc.constantFrom(...REVENUE_GROUPINGS),
  charges: fc.array(chargeArbitrary, { maxLength: 12 }),
  costs: fc.array(costArbitrary, { maxLength: 12 }),
  attribution: attributionArbitrary,
})

type Money = 'revenueMinor' | 'refundsMinor' | 'netRevenueMinor' | 'labCostMinor' | 'marginMinor'
const MONEY: Money[] = ['revenueMinor', 'refundsMinor', 'netRevenueMinor', 'labCostMinor', 'marginMinor']

/** The whole computed directly from the definitions, without any grouping. */
function expectedWhole(input: { charges: RevenueCharge[]; costs: RevenueCost[] }, currency: string) {
  const within = (date: Date) => date >= NOVEMBER.from && date < NOVEMBER.to
  let revenue = 0n
  let refunds = 0n
  let labCost = 0n
  const orders = new Set<number>()
  for (const document of input.charges) {
    if (document.currency !== currency || !within(document.issuedAt)) continue
    for (const line of document.lines) {
      if (line.kind === 'Duties') continue
      orders.add(document.orderNumber)
      if (document.kind === 'Invoice') revenue += line.costMinor
      else refunds -= line.costMinor
    }
  }
  for (const handoff of input.costs) {
    if (handoff.priceCurrency !== currency || !within(handoff.handedAt)) continue
    orders.add(handoff.orderNumber)
    if (handoff.outcome === 'Open' || handoff.outcome === 'Shipped') labCost += handoff.costInPriceCurrencyMinor
  }
  return { revenue, refunds, labCost, orders: orders.size }
}

test('property: in every grouping, the groups add up to the whole, and the whole is the definitions', () => {
  fc.assert(
    fc.property(inputArbitrary, (input) => {
      const report = buildRevenueReport({ query: { ...NOVEMBER, by: input.by }, ...input })
      for (const block of report.currencies) {
        for (const field of MONEY) {
          const sum = block.groups.reduce((total, group) => total + group.figures[field], 0n)
          assert.equal(sum, block.total[field], `${block.currency} ${input.by} ${field}`)
        }
        const orderSum = block.groups.reduce((total, group) => total + group.figures.orders, 0)
        assert.ok(orderSum >= block.total.orders)
        if (input.by === 'account') assert.equal(orderSum, block.total.orders)
        const whole = expectedWhole(input, block.currency)
        assert.equal(block.total.revenueMinor, whole.revenue)
        assert.equal(block.total.refundsMinor, whole.refunds)
        assert.equal(block.total.labCostMinor, whole.labCost)
        assert.equal(block.total.orders, whole.orders)
      }
    }),
    { numRuns: 300 },
  )
})

test('property: margin = revenue - refunds - lab cost and net = revenue - refunds, in every group', () => {
  fc.assert(
    fc.property(inputArbitrary, (input) => {
      const report = buildRevenueReport({ query: { ...NOVEMBER, by: input.by }, ...input })
      for (const block of report.currencies) {
        for (const { figures: group } of [...block.groups, { figures: block.total }]) {
          assert.equal(group.netRevenueMinor, group.revenueMinor - group.refundsMinor)
          assert.equal(group.marginMinor, group.revenueMinor - group.refundsMinor - group.labCostMinor)
        }
      }
    }),
    { numRuns: 300 },
  )
})

test('property: the whole does not depend on the grouping, and a currency never mixes into another', () => {
  fc.assert(
    fc.property(inputArbitrary, (input) => {
      const totals = (by: RevenueGrouping) =>
        buildRevenueReport({ query: { ...NOVEMBER, by }, ...input }).currencies.map((block) => ({
          currency: block.currency,
          total: block.total,
        }))
      const first = totals('account')
      for (const by of REVENUE_GROUPINGS) assert.deepEqual(totals(by), first)
      // Dropping one currency's rows leaves the other's block as it was.
      const onlyGbp = buildRevenueReport({
        query: { ...NOVEMBER, by: input.by },
        charges: input.charges.filter((document) => document.currency === 'GBP'),
        costs: input.costs.filter((handoff) => handoff.priceCurrency === 'GBP'),
        attribution: input.attribution,
      })
      const full = buildRevenueReport({ query: { ...NOVEMBER, by: input.by }, ...input })
      assert.deepEqual(
        onlyGbp.currencies,
        full.currencies.filter((block) => block.currency === 'GBP'),
      )
    }),
    { numRuns: 200 },
  )
})

test('property: the margin rate is the ratio rounded once to 0.1 %', () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -1_000_000_000n, max: 1_000_000_000n }),
      fc.bigInt({ min: 1n, max: 1_000_000_000n }),
      (m, net) => {
        const text = formatMarginRate(m, net)
        assert.ok(text !== null)
        const shown = Number(text.slice(0, -1))
        const exact = (Number(m) / Number(net)) * 100
        assert.ok(Math.abs(shown - exact) <= 0.05 + 1e-9, `${m}/${net}: ${text} vs ${exact}`)
      },
    ),
  )
})
