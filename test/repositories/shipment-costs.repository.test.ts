// Shipment costs and lab statements on both databases (migrations 0032 and 0033): a hand-off is recorded once
// even by two transactions at once, and not at all by one that rolls back; statements issued at once are numbered
// without gaps per lab, one per lab and month, and a refused issue uses up no number; a month of only cancelled or
// rejected work gets its statement, owing nothing, once, with one audit entry.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import type { NewShipmentCost } from '../../src/domain/lab-statements.ts'
import { insertShipmentCost, settleShipmentCosts } from '../../src/repositories/shipment-costs.repository.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { documentText } from '../support/pdf-reading.ts'
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
      // A cancelled job of lab B's October: nothing shipped that month, and still a statement settles it.
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
        [labB as string, '2025-12'],
        [labA as string, '2025-12'],
      ]
      const results = await Promise.allSettled(requests.map(([lab, month]) => statements.issue(lab, month, TEST_ACTOR)))
      const numbers = new Map<string, string>()
      results.forEach((result, index) => {
        const [lab, month] = requests[index] as [string, string]
        if (lab === labB && month === '2025-12') {
          assert.equal(result.status, 'rejected', 'nothing settled: no statement')
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
      assert.deepEqual(sequences(labB as string), [1, 2], "the refused month used up none of lab B's numbers")
      const labBNumbers = [numbers.get(`${labB} 2025-10`), numbers.get(`${labB} 2025-11`)].sort()
      const prefix = `SB-${(labB as string).toUpperCase()}`
      assert.deepEqual(labBNumbers, [`${prefix}-000001`, `${prefix}-000002`])
      const months = stored.filter((row) => row.lab === labA).map((row) => row.month)
      assert.deepEqual([...months].sort(), ['2025-10', '2025-11', '2025-12'])
    })

    test('a month of only cancelled or rejected work gets its statement, owing nothing; the job issues it once', async () => {
      const settled = async (labCode: string, outcome: 'Cancelled' | 'Rejected' | 'Shipped', at: string) => {
        const handoff = cost(labCode)
        await t.database.db.transaction(async (tx) => {
          await insertShipmentCost(tx, handoff)
          await settleShipmentCosts(tx, handoff.shipmentNumber, outcome, new Date(at))
        })
        return handoff.shipmentNumber
      }
      const b = labB as string
      // The test clock stands in March 2026: the job's month is February. Lab B only had work given back in it.
      const february = [
        await settled(b, 'Cancelled', '2026-02-03T10:00:00Z'),
        await settled(b, 'Rejected', '2026-02-20T10:00:00Z'),
      ]
      const statements = t.app.services.labStatements
      const audited = async (number: string) =>
        t.database.db.query<{ actorKind: string; after: string }>(
          `SELECT actor_kind AS "actorKind", after::text AS after FROM audit_events
           WHERE action = 'lab.statementIssued' AND target = $1`,
          [number],
        )

      assert.ok((await statements.issueForPreviousMonth()) >= 1)
      const issued = await t.database.db.query<{ number: string; sequence: string; count: string }>(
        `SELECT number, sequence::text, shipment_count::text AS count FROM lab_statements
         WHERE lab_code = $1 AND month = '2026-02'`,
        [b],
      )
      assert.equal(issued.length, 1)
      const statement = issued[0] as { number: string; sequence: string; count: string }
      // Lab B had numbers 1 and 2: the next one, no gap.
      assert.equal(statement.number, `SB-${b.toUpperCase()}-000003`)
      assert.equal(statement.count, '2')
      const content = await statements.read(statement.number, b)
      assert.ok(content)
      assert.deepEqual(content.owed, [])
      assert.deepEqual(content.totals, [], 'nothing owed: no total')
      const text = documentText(await PDFDocument.load(await statements.pdf(content)))
      assert.match(text, /nothing is owed to the lab/)
      assert.ok(text.includes(`shp_${february[0]}`), 'the cancelled job listed')
      assert.deepEqual(
        content.notOwed.map((line) => [line.shipmentId, line.outcome]),
        [
          [`shp_${february[0]}`, 'Cancelled'],
          [`shp_${february[1]}`, 'Rejected'],
        ],
      )
      const numbered = await t.database.db.query<{ statement: string | null }>(
        'SELECT statement_number AS statement FROM shipment_costs WHERE shipment_id = ANY($1::bigint[])',
        [february.map(String)],
      )
      assert.deepEqual(
        numbered.map((row) => row.statement),
        [statement.number, statement.number],
      )
      const entries = await audited(statement.number)
      assert.equal(entries.length, 1, 'one audit entry per issue')
      assert.equal(entries[0]?.actorKind, 'system')
      assert.deepEqual(JSON.parse(entries[0]?.after ?? 'null'), {
        labCode: b,
        month: '2026-02',
        owed: 0,
        notOwed: 2,
        totals: [],
      })

      // Run again (tomorrow's run, a retry): nothing new, no number used, no second entry.
      assert.equal(await statements.issueForPreviousMonth(), 0)
      const counter = await t.database.db.query<{ last: string }>(
        'SELECT last::text FROM lab_statement_counters WHERE lab_code = $1',
        [b],
      )
      assert.equal(counter[0]?.last, '3')
      assert.equal((await audited(statement.number)).length, 1)

      // On demand (the command line's actor), a cancelled-only month before: issued once, audited once as the cli's.
      await settled(b, 'Cancelled', '2026-01-10T10:00:00Z')
      const january = await statements.issue(b, '2026-01', TEST_ACTOR)
      assert.equal(january.issued, true)
      assert.equal(january.statement.number, `SB-${b.toUpperCase()}-000004`)
      assert.equal((await statements.issue(b, '2026-01', TEST_ACTOR)).issued, false)
      const januaryEntries = await audited(january.statement.number)
      assert.deepEqual(
        januaryEntries.map((entry) => entry.actorKind),
        ['cli'],
      )
    })
  })
}
