// The operator moves a Live shipment to another lab from the console's order page (docs/admin.md#moving-a-shipment-
// to-another-lab): the old lab's job is cancelled (its list drops it, reading it says cancelled, with its items),
// the new lab gets a new shipment once its print files are ready, the merchant's charges stay, an order event and
// an audit entry are written. Refused, saying why, for a lab that does not make the product or does not ship there,
// for a shipment that has shipped, and without a reason. Orders are moved by the pipeline's own steps (no workers).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { consoleShipmentMovesOf } from '../../src/services/operator/console-sections.ts'
import { registerOrdersPages } from '../../src/web/operator/orders.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`moving a shipment to another lab (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let pages: AdminPagesHarness
    const keys = new Map<string, string>()

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      pages = await startAdminPages((scope, shell) =>
        registerOrdersPages(scope, shell, t.app.services.adminViews.orders, {
          moves: consoleShipmentMovesOf(t.app.services.shipmentMoves),
        }),
      )
    })
    after(async () => {
      await pages.close()
      await images.close()
      await t.close()
    })

    async function labKey(labCode: string): Promise<string> {
      const known = keys.get(labCode)
      if (known) return known
      const { key } = await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)
      keys.set(labCode, key)
      return key
    }
    async function lab(labCode: string, url: string) {
      return t.app.live.inject({ method: 'GET', url, headers: { 'x-api-key': await labKey(labCode) } })
    }
    const listed = async (labCode: string) =>
      (json(await lab(labCode, '/labs/v1/jobs')).jobs as any[]).map((job) => job.shipmentId as string)

    /** A black canvas to GB by Standard: uk6 gets it (nl1 could too); submitted to uk6. */
    async function submittedCanvas(): Promise<{ orderId: string; shipmentId: string }> {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      const order = await drive.submit(orderId)
      const [shipment] = order.document.shipments
      assert.ok(shipment)
      assert.equal(shipment.fulfillmentLocation.labCode, 'uk6')
      assert.equal(order.pipeline.shipments[shipment.id]?.state, 'submitted')
      return { orderId, shipmentId: shipment.id }
    }

    const move = (orderId: string, shipmentId: string, form: Record<string, string>) =>
      pages.request(`/admin/orders/${orderId}/shipments/${shipmentId}/move`, form)
    const noticeOf = (response: { notice: string | null }) =>
      response.notice ? (JSON.parse(response.notice) as { kind: string; text: string }) : null

    test('moved: the old lab sees its job cancelled, the new lab gets a new job, charges stay, event and audit written', async () => {
      const { orderId, shipmentId } = await submittedCanvas()
      assert.ok((await listed('uk6')).includes(shipmentId))
      const before = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      const eventsBefore = (
        json(await t.live({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events as any[]
      ).length

      const page = await pages.request(`/admin/orders/${orderId}`)
      assert.equal(page.status, 200)
      assert.match(page.body, new RegExp(`id="move-${shipmentId}"`), 'a move form for the shipment')
      assert.match(page.body, /<option value="nl1">/, 'nl1 makes the canvas and ships it to GB by Standard')
      assert.doesNotMatch(page.body, /<option value="us1">/, 'us1 does not ship it to GB by Standard')

      const moved = await move(orderId, shipmentId, { lab: 'nl1', reason: 'uk6 is flooded' })
      assert.equal(moved.status, 303)
      const notice = noticeOf(moved)
      assert.equal(notice?.kind, 'success', notice?.text)
      assert.match(notice?.text ?? '', new RegExp(`Shipment ${shipmentId} moved from lab uk6 to lab nl1 as shp_\\d+`))

      const drive = pipelineDriver(t)
      const order = await drive.state(orderId)
      const newShipment = order.document.shipments.find((shipment) => shipment.id !== shipmentId)
      assert.ok(newShipment, 'a new shipment')
      assert.equal(order.document.shipments.length, 1, 'the old shipment left the order')
      assert.equal(newShipment.fulfillmentLocation.labCode, 'nl1')
      assert.equal(order.pipeline.shipments[shipmentId]?.state, 'cancelled')
      assert.equal(order.pipeline.shipments[newShipment.id]?.movedFrom?.reason, 'uk6 is flooded')

      // The old lab: the job left its list, and reading it shows it cancelled with its items.
      assert.ok(!(await listed('uk6')).includes(shipmentId))
      const oldResponse = await lab('uk6', `/labs/v1/jobs/${shipmentId}`)
      assert.equal(oldResponse.statusCode, 200, oldResponse.body)
      const oldJob = json(oldResponse).job
      assert.equal(oldJob.state, 'cancelled')
      assert.deepEqual(
        (oldJob.items as any[]).map((item) => item.itemId),
        before.items.map((item: any) => item.id),
      )

      // The new lab: once the (kept or new) print files are there, the shipment is submitted and listed.
      await drive.render(orderId)
      await drive.submit(orderId, newShipment.id)
      assert.ok((await listed('nl1')).includes(newShipment.id), 'nl1 lists the new job')
      assert.equal(json(await lab('nl1', `/labs/v1/jobs/${newShipment.id}`)).job.state, 'submitted')
      assert.equal((await lab('nl1', `/labs/v1/jobs/${shipmentId}`)).statusCode, 404, "the old job is not nl1's")

      // What each lab is owed: the old hand-off settled Cancelled, the new one recorded as Moved at nl1's cost.
      const costs = await t.database.db.query<{ shipment_id: string; lab_code: string; kind: string; outcome: string }>(
        'SELECT shipment_id::text, lab_code, kind, outcome FROM shipment_costs WHERE order_id = $1 ORDER BY id',
        [Number(orderId.slice('ord_'.length))],
      )
      assert.deepEqual(
        costs.map((row) => [`shp_${row.shipment_id}`, row.lab_code, row.kind, row.outcome]),
        [
          [shipmentId, 'uk6', 'Original', 'Cancelled'],
          [newShipment.id, 'nl1', 'Moved', 'Open'],
        ],
      )

      // The merchant pays what was agreed: the same charges, now on the new shipment.
      const after = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      const totals = (charges: any[]) => charges.map((charge) => charge.totalCost)
      assert.deepEqual(totals(after.charges), totals(before.charges))
      const eventsAfter = json(await t.live({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events as any[]
      assert.ok(eventsAfter.length > eventsBefore, 'the move is an order event')
      assert.ok(
        eventsAfter.some((event) => event.data.order.shipments.some((s: any) => s.id === newShipment.id)),
        'an event shows the new shipment',
      )

      const audit = await t.app.services.audit.list({ actions: ['order.shipmentMoved'] })
      const entry = audit.entries.find((candidate) => candidate.target === orderId)
      assert.ok(entry, 'the audit entry')
      assert.equal(entry.actor.kind, 'operator')
      assert.deepEqual(entry.before, { shipmentId, labCode: 'uk6' })
      assert.deepEqual(entry.after, {
        shipmentId: newShipment.id,
        labCode: 'nl1',
        reason: 'uk6 is flooded',
        account: t.account.id,
      })
      assert.equal(entry.accountId, null, "the operator's entry: not in the merchant's audit trail")
      const merchantTrail = json(await t.live({ method: 'GET', url: '/v4.0/account/audit' })).entries as any[]
      assert.ok(!merchantTrail.some((candidate) => candidate.action === 'order.shipmentMoved'))
    })

    test('refused, naming why: a lab that does not make the product, one that does not ship there, no reason', async () => {
      const { orderId, shipmentId } = await submittedCanvas()
      const variant = catalogue.findVariant('GLOBAL-CAN-10x10', { wrap: 'Black' })
      const maker = new Set(variant?.offers.map((offer) => offer.lab.code))
      const nonMaker = catalogue.labs.find((candidate) => !maker.has(candidate.code))
      assert.ok(nonMaker, 'the sample has a lab without the canvas')

      const notMade = noticeOf(await move(orderId, shipmentId, { lab: nonMaker.code, reason: 'try' }))
      assert.equal(notMade?.kind, 'error')
      assert.match(notMade?.text ?? '', new RegExp(`lab ${nonMaker.code} does not make GLOBAL-CAN-10x10`))

      const notShipped = noticeOf(await move(orderId, shipmentId, { lab: 'us1', reason: 'try' }))
      assert.match(notShipped?.text ?? '', /lab us1 does not ship GLOBAL-CAN-10x10 to GB by Standard/)

      const unknown = noticeOf(await move(orderId, shipmentId, { lab: 'xx9', reason: 'try' }))
      assert.match(unknown?.text ?? '', /The catalogue has no lab xx9/)

      const noReason = noticeOf(await move(orderId, shipmentId, { lab: 'nl1', reason: '  ' }))
      assert.match(noReason?.text ?? '', /^reason: A reason is required/)

      // Nothing moved: uk6 still has the job, no audit entry.
      assert.ok((await listed('uk6')).includes(shipmentId))
      const audit = await t.app.services.audit.list({ actions: ['order.shipmentMoved'] })
      assert.ok(!audit.entries.some((entry) => entry.target === orderId))
    })

    test('refused for a shipment that has shipped, and for one whose lab has started production', async () => {
      const started = await submittedCanvas()
      await t.app.services.pipeline.reportLab(started.orderId, started.shipmentId, { kind: 'acknowledged' })
      await t.app.services.pipeline.reportLab(started.orderId, started.shipmentId, { kind: 'inProduction' })
      const inProduction = noticeOf(await move(started.orderId, started.shipmentId, { lab: 'nl1', reason: 'late' }))
      assert.match(inProduction?.text ?? '', /has started production of .*: it can no longer be moved/)

      const shipped = await submittedCanvas()
      await pipelineDriver(t).ship(shipped.orderId)
      const afterShipping = noticeOf(await move(shipped.orderId, shipped.shipmentId, { lab: 'nl1', reason: 'late' }))
      assert.equal(afterShipping?.kind, 'error')
      assert.match(afterShipping?.text ?? '', new RegExp(`Shipment ${shipped.shipmentId} has shipped`))
      const page = await pages.request(`/admin/orders/${shipped.orderId}`)
      assert.doesNotMatch(page.body, /<option value="nl1">/, 'no form for a shipped shipment')
    })

    test("a shipment another order's address names is not moved", async () => {
      const first = await submittedCanvas()
      const second = await submittedCanvas()
      const crossed = noticeOf(await move(first.orderId, second.shipmentId, { lab: 'nl1', reason: 'mix-up' }))
      assert.equal(crossed?.kind, 'error')
      assert.match(crossed?.text ?? '', new RegExp(`order ${first.orderId} has no shipment ${second.shipmentId}`))
      assert.ok((await listed('uk6')).includes(second.shipmentId))
    })
  })
}
