// Shipment costs and lab statements on both databases (migrations 0032 and 0033): a hand-off is recorded once
// even by two transactions at once, and not at all by one that rolls back; statements issued at once are numbered
// without gaps per lab, one per lab and month, and a refused issue uses up no number.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { NewShipmentCost } from '../../src/domain/lab-statements.ts'
import { insertShipmentCost, settleShipmentCosts } from '../../src/repositories/shipment-costs.repository.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`shipment costs and lab statements (${kind})`, () => {
    let t: TestApp
    let orderNumber = 0
    let accountId = 0
    let nextShipment = 1000
    const [labA, labB] = catalogue.labs.map((lab) => lab.code)

    before(async () => {
      t = await startTestApp({ kind })
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder(),
        headers: { 'content-type': 'application/json' },
      })
      orderNumber = Number(String(json(created).order.id).replace('ord_', ''))
      accountId = Number(t.account.id.replace('acc_', ''))
    })
    after(() => t?.close())

    const cost = (labCode: string, shipmentNumber = nextShipment++): NewShipmentCost => ({
      handoffKey: `shp_${shipmentNumber}:Original:${labCode}`,
      shipmentNumber,
      orderNumber,
      accountId,
      environment: 'live',
      labCode,
      kind: 'Original',
      handedAt: new Date('2025-09-30T12:00:00Z'),
      catalogueVersion: null,
      labCurrency: 'GBP',
      productionCostMinor: 1000n,
      shippingCostMinor: 250n,
      priceCurrency: 'GBP',
      priceItemsMinor: 1000n,
      priceShippingMinor: 250n,
      costInPriceCurrencyMinor: 1250n,
    })
    const rowsOf = async (shipmentNumber: number) =>
      (
        await t.database.db.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM shipment_costs WHERE shipment_id = $1',
          [shipmentNumber],
        )
      )[0]?.n

    test('a hand-off recorded by two transactions at once is one row; a rolled-back one records none', async () => {
      const handoff = cost(labA as string)
      const added = await Promise.all(
        [0, 1, 2].map(() => t.database.db.transaction((tx) => insertShipmentCost(tx, handoff))),
      )
      assert.deepEqual(added.filter(Boolean).length, 1, `added by exactly one: ${JSON.stringify(added)}`)
      assert.equal(await rowsOf(handoff.shipmentNumber), '1')

      const rolledBack = cost(labA as string)
      await assert.rejects(
        t.database.db.transaction(async (tx) => {
          await insertShipmentCost(tx, rolledBack)
          throw new Error('the hand-off failed')
        }),
        /the hand-off failed/,
      )
      assert.equal(await rowsOf(rolledBack.shipmentNumber), '0')
    })

    test('statements issued at once: gapless per lab, one per lab and month, a refused one uses no number', async () => {
      const shipped = async (labCode: string, at: string) => {
        const handoff = cost(labCode)
        await t.database.db.transaction(async (tx) => {
          await insertShipmentCost(tx, handoff)
          await settleShipmentCosts(tx, handoff.shipmentNumber, 'Shipped', new Date(at))
        })
      }
      for (const month of ['2025-10', '2025-11', '2025-12']) await shipped(labA as string, `${month}-15T10:00:00Z`)
      await shipped(labB as string, '2025-11-15T10:00:00Z')
      // A cancelled job of lab B's October: listed on no statement of its own (nothing shipped that month).
      const cancelled = cost(labB as string)
      await t.database.db.transaction(async (tx) => {
        await insertShipmentCost(tx, cancelled)
        await settleShipmentCosts(tx, cancelled.shipmentNumber, 'Cancelled', new Date('2025-10-20T10:00:00Z'))
      })
      const statements = t.app.services.labStatements
      const requests: [string, string][] = [
        [labA as string, '2025-10'],
        [labA as string, '2025-11'],
        [labA as string, '2025-12'],
        [labA as string, '2025-11'],
        [labB as string, '2025-10'],
        [labB as string, '2025-11'],
        [labA as string, '2025-12'],
      ]
      const results = await Promise.allSettled(requests.map(([lab, month]) => statements.issue(lab, month)))
      const numbers = new Map<string, string>()
      results.forEach((result, index) => {
        const [lab, month] = requests[index] as [string, string]
        if (lab === labB && month === '2025-10') {
          assert.equal(result.status, 'rejected', 'nothing shipped: no statement')
          return
        }
        assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason))
        const number = (result as PromiseFulfilledResult<{ statement: { number: string } }>).value.statement.number
        const seen = numbers.get(`${lab} ${month}`)
        if (seen) assert.equal(number, seen, 'the same month twice is the same statement')
        numbers.set(`${lab} ${month}`, number)
      })
      const stored = await t.database.db.query<{ lab: string; sequence: string; month: string }>(
        'SELECT lab_code AS lab, sequence::text, month FROM lab_statements ORDER BY lab_code, sequence',
      )
      const sequences = (lab: string) => stored.filter((row) => row.lab === lab).map((row) => Number(row.sequence))
      assert.deepEqual(sequences(labA as string), [1, 2, 3])
      assert.deepEqual(sequences(labB as string), [1], "the refused month used up none of lab B's numbers")
      assert.equal(numbers.get(`${labB} 2025-11`), `SB-${(labB as string).toUpperCase()}-000001`)
      const months = stored.filter((row) => row.lab === labA).map((row) => row.month)
      assert.deepEqual([...months].sort(), ['2025-10', '2025-11', '2025-12'])
    })
  })
}
