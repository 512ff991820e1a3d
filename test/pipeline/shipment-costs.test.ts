// What each shipment costs at its lab (shipment_costs, docs/billing.md#margin) and the labs' payables statements
// (docs/billing.md#lab-payables-statements, docs/labs.md#statements): orders moved step by step (the step helper),
// each hand-off recorded once with the lab's agreed cost beside the merchant's price, settled by the shipment's
// outcome; statements numbered per lab, only shipped Live work owed, served to each lab and no other.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { parseAmountToMinor } from '../../src/domain/money.ts'
import { insertShipmentCost, settleShipmentCosts } from '../../src/repositories/shipment-costs.repository.ts'
import { consoleLabsOf } from '../../src/services/operator/console-sections.ts'
import { registerLabsPages } from '../../src/web/operator/labs.pages.ts'
import { startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { documentText } from '../support/pdf-reading.ts'
import { blackCanvasItem, PHONE_CASE, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

interface CostRow {
  shipment_id: string
  order_id: string
  environment: string
  lab_code: string
  kind: string
  lab_currency: string
  production_cost_minor: string
  shipping_cost_minor: string
  price_currency: string
  price_items_minor: string
  price_shipping_minor: string
  cost_in_price_currency_minor: string
  catalogue_version: number | null
  outcome: string
  outcome_at: Date | string | null
  statement_number: string | null
}

const DAY = 24 * 3600

describe('shipment costs and lab statements', () => {
  let images: ImageServer
  let t: TestApp
  const costsOf = (orderId: string) =>
    t.database.db.query<CostRow>(
      `SELECT shipment_id::text, order_id::text, environment, lab_code, kind, lab_currency,
              production_cost_minor::text, shipping_cost_minor::text, price_currency, price_items_minor::text,
              price_shipping_minor::text, cost_in_price_currency_minor::text, catalogue_version, outcome, outcome_at,
              statement_number
       FROM shipment_costs WHERE order_id = $1 ORDER BY shipment_id`,
      [orderId.replace('ord_', '')],
    )
  const lab = (key: string, url: string, headers: Record<string, string> = {}) =>
    t.app.live.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } })

  async function create(server: 'live' | 'sandbox', payload: Record<string, unknown>): Promise<string> {
    const created = await t[server]({
      method: 'POST',
      url: '/v4.0/orders',
      payload,
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(created.statusCode, 200, created.body)
    return json(created).order.id
  }

  /** A Live order allocated, rendered and submitted to its lab(s). */
  async function submitted(server: 'live' | 'sandbox', payload: Record<string, unknown>) {
    const orderId = await create(server, payload)
    const drive = pipelineDriver(t)
    await drive.allocate(orderId)
    await drive.render(orderId)
    return { orderId, drive, order: await drive.submit(orderId) }
  }

  const phoneCases = (copies: number) =>
    sampleOrder({
      items: [{ sku: PHONE_CASE, copies, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
    })

  before(async () => {
    images = await startImageServer({}, await solidJpeg(800, 1200, { r: 30, g: 90, b: 160 }))
    t = await startTestApp({ labCancelWaitSeconds: 0.2 })
  })
  after(async () => {
    await t?.close()
    await images?.close()
  })

  let phoneLab = ''

  test('a shipped order: one row per shipment with the lab cost of every copy beside the price, then Shipped', async () => {
    const { orderId, drive, order } = await submitted('live', phoneCases(3))
    const [shipment] = order.document.shipments
    assert.ok(shipment)
    phoneLab = shipment.fulfillmentLocation.labCode
    // A retried submission (the job run again) records nothing more.
    await t.app.services.pipeline.submitShipment(orderId, shipment.id)
    const rows = await costsOf(orderId)
    assert.equal(rows.length, 1)
    const [row] = rows
    assert.ok(row)
    assert.equal(`shp_${row.shipment_id}`, shipment.id)
    assert.deepEqual([row.environment, row.lab_code, row.kind, row.outcome], ['live', phoneLab, 'Original', 'Open'])
    // The price is what the order's charge says (untaxed), in its currency.
    const [charge] = order.document.charges
    assert.ok(charge)
    const minor = (amount: string | undefined) => parseAmountToMinor(amount ?? 'x') ?? -1n
    const itemLines = charge.items.filter((line) => line.itemId !== null)
    const shippingLines = charge.items.filter((line) => line.shipmentId === shipment.id && line.itemId === null)
    assert.equal(row.price_currency, charge.totalCost.currency)
    assert.equal(BigInt(row.price_items_minor), minor(itemLines[0]?.cost.amount))
    assert.equal(BigInt(row.price_shipping_minor), minor(shippingLines[0]?.cost.amount))
    // The lab's cost: the catalogue's cost of one copy of the variant at this lab, times the three copies.
    const labEntry = catalogue.labs.find((candidate) => candidate.code === phoneLab)
    assert.ok(labEntry)
    assert.equal(row.lab_currency, labEntry.currency)
    const offer = catalogue
      .findProduct(PHONE_CASE)
      ?.variants.flatMap((variant) => variant.offers)
      .find((candidate) => candidate.lab.code === phoneLab)
    assert.ok(offer)
    assert.equal(BigInt(row.production_cost_minor), offer.unitCost.minor * 3n)
    assert.ok(BigInt(row.shipping_cost_minor) > 0n)
    const total = BigInt(row.production_cost_minor) + BigInt(row.shipping_cost_minor)
    assert.equal(
      BigInt(row.cost_in_price_currency_minor),
      catalogue.convertMinorUnits(total, row.lab_currency, row.price_currency),
    )

    t.clock.advanceSeconds(3600)
    await drive.ship(orderId)
    const [shipped] = await costsOf(orderId)
    assert.equal(shipped?.outcome, 'Shipped')
    assert.equal(new Date(shipped?.outcome_at ?? 0).toISOString(), t.clock.now().toISOString())
  })

  test('a two-lab order records one row per lab; a Sandbox order is recorded as sandbox', async () => {
    const split = await submitted('live', twoLabOrder(images.url, { shippingMethod: 'Standard' }))
    const rows = await costsOf(split.orderId)
    assert.equal(rows.length, 2)
    assert.equal(new Set(rows.map((row) => row.lab_code)).size, 2)
    await split.drive.ship(split.orderId)
    assert.deepEqual(
      (await costsOf(split.orderId)).map((row) => row.outcome),
      ['Shipped', 'Shipped'],
    )
    const sandbox = await submitted('sandbox', phoneCases(1))
    await sandbox.drive.simulateLabs(sandbox.orderId, { carrierScans: false })
    const [row] = await costsOf(sandbox.orderId)
    assert.deepEqual([row?.environment, row?.outcome], ['sandbox', 'Shipped'])
  })

  test("a shipping method changed before the hand-off: the hand-off records the new method's shipping cost", async () => {
    const orderId = await create('live', phoneCases(1))
    const drive = pipelineDriver(t)
    const allocated = await drive.allocate(orderId)
    const before = Object.values(allocated.pipeline.shipments)[0]?.labCost
    assert.ok(before)
    const changed = await t.live({
      method: 'POST',
      url: `/v4.0/orders/${orderId}/actions/updateShippingMethod`,
      payload: { shippingMethod: 'Express' },
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(json(changed).outcome, 'Updated', changed.body)
    await drive.render(orderId)
    await drive.submit(orderId)
    const [row] = await costsOf(orderId)
    assert.ok(row)
    // The lab's currency is the price's here (GBP): the lab's shipping is the merchant's shipping line, unconverted.
    assert.equal(row.lab_currency, row.price_currency)
    assert.notEqual(row.shipping_cost_minor, before.shipping, 'Express costs the lab another amount than Standard')
    assert.equal(row.shipping_cost_minor, row.price_shipping_minor)
  })

  let cancelledShipment = ''

  test('a shipment its lab agrees to cancel is Cancelled; one it rejects is Rejected', async () => {
    const { orderId, order } = await submitted('live', phoneCases(1))
    const [shipment] = order.document.shipments
    assert.ok(shipment)
    cancelledShipment = shipment.id
    const key = (await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)).key
    // The lab does not answer within the cancel's wait; its later "cancelled" cancels the shipment.
    const cancel = json(await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }))
    assert.equal(cancel.outcome, 'FailedToCancel')
    const answered = await t.app.live.inject({
      method: 'POST',
      url: `/labs/v1/jobs/${shipment.id}/cancellation`,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: { answer: 'cancelled' },
    })
    assert.equal(json(answered).outcome, 'Updated', answered.body)
    assert.deepEqual(
      (await costsOf(orderId)).map((row) => row.outcome),
      ['Cancelled'],
    )

    // A canvas to GB, which two labs make: the one that rejects it, and the one it moves to.
    const rejected = await submitted('live', sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }))
    const [given] = rejected.order.document.shipments
    assert.ok(given)
    const canvasKey = (await t.app.services.labs.createLabKey(given.fulfillmentLocation.labCode, TEST_ACTOR)).key
    const reply = await t.app.live.inject({
      method: 'POST',
      url: `/labs/v1/jobs/${given.id}/reject`,
      headers: { 'x-api-key': canvasKey, 'content-type': 'application/json' },
      payload: { reason: 'Out of stock' },
    })
    assert.equal(reply.statusCode, 200, reply.body)
    const rows = await costsOf(rejected.orderId)
    assert.equal(rows[0]?.outcome, 'Rejected')
    // Allocated again and handed to another lab: the new hand-off is the work moved.
    const drive = rejected.drive
    const again = await drive.state(rejected.orderId)
    await t.app.services.pipeline.allocateOrder(rejected.orderId, again.pipeline.allocationRound)
    await drive.render(rejected.orderId)
    await drive.submit(rejected.orderId)
    const moved = (await costsOf(rejected.orderId)).filter((row) => row.kind === 'Moved')
    assert.equal(moved.length, 1)
    assert.notEqual(moved[0]?.lab_code, rows[0]?.lab_code)
  })

  let issued: { lab: string; number: string; otherLab: string; otherNumber: string } | undefined

  test('statements: per lab and month, gapless per lab, shipped Live work only, served to its own lab', async () => {
    const statements = t.app.services.labStatements
    await assert.rejects(statements.issue(phoneLab, '2026-03', TEST_ACTOR), /has not ended/)
    t.clock.advanceSeconds(31 * DAY)
    await assert.rejects(statements.issue(phoneLab, '2026-02', TEST_ACTOR), /shipped no Live work/)
    await assert.rejects(statements.issue('nolab', '2026-03', TEST_ACTOR), /No lab nolab/)

    const first = await statements.issue(phoneLab, '2026-03', TEST_ACTOR)
    assert.equal(first.issued, true)
    assert.equal(first.statement.number, `SB-${phoneLab.toUpperCase()}-000001`)
    // Twice for the same month: the same statement, no new number.
    const again = await statements.issue(phoneLab, '2026-03', TEST_ACTOR)
    assert.deepEqual([again.issued, again.statement], [false, first.statement])
    // The cancelled job is listed as not owed; no Sandbox work anywhere.
    assert.ok(first.statement.notOwed.some((line) => line.shipmentId === cancelledShipment))
    assert.ok(first.statement.owed.every((line) => line.outcome === 'Shipped'))
    const sandboxShipments = await t.database.db.query<{ id: string }>(
      "SELECT 'shp_' || shipment_id AS id FROM shipment_costs WHERE environment = 'sandbox'",
    )
    const listed = new Set([...first.statement.owed, ...first.statement.notOwed].map((line) => line.shipmentId))
    assert.ok(sandboxShipments.length > 0)
    for (const { id } of sandboxShipments) assert.ok(!listed.has(id), `sandbox ${id} on a Live statement`)
    // The totals are the owed lines' sum, from the rows the statement settled.
    const settled = await t.database.db.query<{ production: string; shipping: string; n: string }>(
      `SELECT sum(production_cost_minor)::text AS production, sum(shipping_cost_minor)::text AS shipping,
              count(*)::text AS n
       FROM shipment_costs WHERE statement_number = $1 AND outcome = 'Shipped'`,
      [first.statement.number],
    )
    const [total] = first.statement.totals
    assert.ok(total && settled[0])
    assert.equal(total.jobs, Number(settled[0].n))
    assert.equal(parseAmountToMinor(total.total), BigInt(settled[0].production) + BigInt(settled[0].shipping))

    // The month job issues every other lab's statement of the month, once, each audited once as printroute's.
    assert.ok((await statements.issueForPreviousMonth()) >= 1)
    assert.equal(await statements.issueForPreviousMonth(), 0)
    const byJob = await t.database.db.query<{ target: string; actorKind: string }>(
      `SELECT target, actor_kind AS "actorKind" FROM audit_events WHERE action = 'lab.statementIssued'
       ORDER BY target`,
    )
    assert.equal(new Set(byJob.map((entry) => entry.target)).size, byJob.length, 'one entry per statement')
    assert.deepEqual(
      byJob.filter((entry) => entry.target !== first.statement.number).map((entry) => entry.actorKind),
      byJob.filter((entry) => entry.target !== first.statement.number).map(() => 'system'),
    )
    const otherLabs = await t.database.db.query<{ labCode: string; number: string }>(
      `SELECT lab_code AS "labCode", number FROM lab_statements WHERE lab_code <> $1 ORDER BY lab_code`,
      [phoneLab],
    )
    assert.ok(otherLabs.length >= 1)
    for (const other of otherLabs) assert.equal(other.number, `SB-${other.labCode.toUpperCase()}-000001`)

    // April's work gets the lab's next number.
    const april = await submitted('live', phoneCases(1))
    await april.drive.ship(april.orderId)
    t.clock.advanceSeconds(30 * DAY)
    const second = await statements.issue(phoneLab, '2026-04', TEST_ACTOR)
    assert.equal(second.statement.number, `SB-${phoneLab.toUpperCase()}-000002`)
    assert.deepEqual(
      second.statement.owed.map((line) => line.orderId),
      [april.orderId],
    )

    // The lab API: each lab sees its own statements only.
    const key = (await t.app.services.labs.createLabKey(phoneLab, TEST_ACTOR)).key
    const other = otherLabs[0] as { labCode: string; number: string }
    const otherKey = (await t.app.services.labs.createLabKey(other.labCode, TEST_ACTOR)).key
    const list = json(await lab(key, '/labs/v1/statements'))
    assert.deepEqual(
      list.statements.map((statement: { number: string }) => statement.number),
      [second.statement.number, first.statement.number],
    )
    const own = json(await lab(key, `/labs/v1/statements/${first.statement.number}`))
    assert.deepEqual(own.statement, first.statement)
    assert.equal((await lab(otherKey, `/labs/v1/statements/${first.statement.number}`)).statusCode, 404)
    assert.equal((await lab(otherKey, `/labs/v1/statements/${first.statement.number}.pdf`)).statusCode, 404)
    assert.equal((await lab(key, `/labs/v1/statements/${other.number}`)).statusCode, 404)

    const csv = await lab(key, `/labs/v1/statements/${first.statement.number}`, { accept: 'text/csv' })
    assert.match(String(csv.headers['content-type']), /^text\/csv/)
    const csvRows = csv.body.trim().split('\r\n')
    assert.equal(csvRows.length, 1 + first.statement.owed.length + first.statement.notOwed.length + 1)
    assert.match(csvRows.at(-1) ?? '', new RegExp(`,Total,.*,${total.total.replace('.', '\\.')}$`))

    const pdfReply = await lab(key, `/labs/v1/statements/${first.statement.number}.pdf`)
    assert.equal(pdfReply.headers['content-type'], 'application/pdf')
    const text = documentText(await PDFDocument.load(pdfReply.rawPayload))
    assert.match(text, new RegExp(`Self-billing statement ${first.statement.number}`))
    assert.match(text, /on behalf of the seller/)
    for (const line of first.statement.owed) assert.ok(text.includes(line.shipmentId), line.shipmentId)
    assert.ok(text.includes(cancelledShipment), 'the cancelled job, not owed')
    assert.ok(text.includes(`${total.total} ${total.currency}`), 'the total owed')
    // Drawn from the fixed content: the same bytes every time.
    const pdfAgain = await lab(key, `/labs/v1/statements/${first.statement.number}`, { accept: 'application/pdf' })
    assert.deepEqual(pdfAgain.rawPayload, pdfReply.rawPayload)
    issued = { lab: phoneLab, number: first.statement.number, otherLab: other.labCode, otherNumber: other.number }
  })

  test("the console lists a lab's statements with their files and generates one; the portal shows the lab's own", async () => {
    assert.ok(issued)
    const { lab: labCode, number, otherNumber } = issued
    const pages = await startAdminPages((scope, console) =>
      registerLabsPages(
        scope,
        console,
        consoleLabsOf(t.app.services.labs, t.app.services.adminViews.labs, t.app.services.labStatements),
      ),
    )
    try {
      const page = await pages.request(`/admin/labs/${labCode}`)
      assert.equal(page.status, 200)
      assert.match(page.body, new RegExp(`data-statement="${number}"`))
      assert.ok(page.body.includes(`/admin/labs/${labCode}/statements/${number}.pdf`))
      const csv = await pages.request(`/admin/labs/${labCode}/statements/${number}.csv`)
      assert.equal(csv.status, 200)
      assert.match(csv.body, /^statement,shipmentId/)
      assert.equal((await pages.request(`/admin/labs/${labCode}/statements/${otherNumber}.csv`)).status, 404)
      // Generating a month already issued changes nothing; an unfinished month is refused with the reason.
      const again = await pages.request(`/admin/labs/${labCode}/statements`, { month: '2026-03' })
      assert.equal(again.status, 303)
      assert.match(String(again.notice), new RegExp(`${number} for 2026-03 had already been issued`))
      const early = await pages.request(`/admin/labs/${labCode}/statements`, { month: '2099-01' })
      assert.equal(early.status, 400)
      assert.match(early.body, /has not ended yet/)

      // February, in which the lab only had a job cancelled: the console issues it, audited once as the operator's.
      const [source] = await t.database.db.query<{ orderId: string; accountId: string }>(
        'SELECT order_id::text AS "orderId", account_id::text AS "accountId" FROM shipment_costs WHERE shipment_id = $1',
        [cancelledShipment.replace('shp_', '')],
      )
      assert.ok(source)
      await t.database.db.transaction(async (tx) => {
        await insertShipmentCost(tx, {
          handoffKey: `shp_900001:Original:${labCode}`,
          shipmentNumber: 900001,
          orderNumber: Number(source.orderId),
          accountId: Number(source.accountId),
          environment: 'live',
          labCode,
          kind: 'Original',
          handedAt: new Date('2026-02-10T10:00:00Z'),
          catalogueVersion: null,
          labCurrency: 'GBP',
          productionCostMinor: 700n,
          shippingCostMinor: 300n,
          priceCurrency: 'GBP',
          priceItemsMinor: 700n,
          priceShippingMinor: 300n,
          costInPriceCurrencyMinor: 1000n,
        })
        await settleShipmentCosts(tx, 900001, 'Cancelled', new Date('2026-02-11T10:00:00Z'))
      })
      const february = await pages.request(`/admin/labs/${labCode}/statements`, { month: '2026-02' })
      assert.equal(february.status, 303)
      const februaryNumber = `SB-${labCode.toUpperCase()}-000003`
      assert.match(String(february.notice), new RegExp(`Issued statement ${februaryNumber} for 2026-02`))
      await pages.request(`/admin/labs/${labCode}/statements`, { month: '2026-02' })
      const entries = await t.database.db.query<{ actorKind: string; actor: string }>(
        `SELECT actor_kind AS "actorKind", actor FROM audit_events
         WHERE action = 'lab.statementIssued' AND target = $1`,
        [februaryNumber],
      )
      assert.deepEqual(entries, [{ actorKind: 'operator', actor: 'opr_1' }])
    } finally {
      await pages.close()
    }

    const key = (await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)).key
    const signIn = await t.app.live.inject({
      method: 'POST',
      url: '/labs/portal/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ labKey: key }).toString(),
    })
    const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_lab_session')
    assert.ok(cookie, signIn.body)
    const portal = (url: string) =>
      t.app.live.inject({ method: 'GET', url, headers: { cookie: `${cookie.name}=${cookie.value}` } })
    const listing = await portal('/labs/portal/statements')
    assert.equal(listing.statusCode, 200)
    assert.match(listing.body, new RegExp(`data-statement="${number}"`))
    assert.ok(!listing.body.includes(otherNumber))
    const pdf = await portal(`/labs/portal/statements/${number}.pdf`)
    assert.equal(pdf.headers['content-type'], 'application/pdf')
    assert.match(documentText(await PDFDocument.load(pdf.rawPayload)), new RegExp(number))
    assert.equal((await portal(`/labs/portal/statements/${otherNumber}.pdf`)).statusCode, 404)
  })
})
