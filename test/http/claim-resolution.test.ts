// Resolving claims (docs/claims.md#resolutions) through the claim resolution service, as the console and the command
// line call it, on Live orders driven to Shipped by the pipeline's own steps: a Reprint is a new shipment on the
// same order (reprintOf, claimId), at another lab when the lab was at fault, charged nothing, handed off as a
// `Reprint`, tracked to Delivered with its print file the original's; a Refund or Credit is one credit note of what
// the claimed items cost (or less); a Reject needs its reason. Each writes the claim, its audit entry and its event.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { OperatorRefusal } from '../../src/domain/operator-refusal.ts'
import type { ClaimDecider } from '../../src/services/claim-resolution.service.ts'
import { answerClaimAsLab, makeClaim } from '../support/claims-resolve.fixture.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { blackCanvasOrder, shippedOrder } from '../support/shipped-order.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const TEST_ACTOR: ClaimDecider = { kind: 'cli', host: 'test-host', user: 'test' }

for (const kind of databaseKinds) {
  describe(`resolving claims (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      // The undisputed-claims rule is on (3 days); it runs only when a test asks it to (no workers here).
      t = await startTestApp({ kind, claimAutoResolveDays: 3 })
      images = await startImageServer()
      // Claims are made by the claims service, which takes a missing parcel only after its estimated delivery: 11
      // March, after the driver's dispatch (2 March) and well within the 30 days a claim may be made in.
      t.clock.advanceSeconds(10 * 24 * 60 * 60)
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    /** A black canvas to GB by Standard, made by uk6 and shipped. */
    async function shippedCanvas(): Promise<{ orderId: string; shipmentId: string; itemId: string }> {
      const shipped = await shippedOrder(t, blackCanvasOrder(images.url('canvas.jpg')))
      assert.equal(shipped.order.document.status.stage, 'Complete')
      assert.equal(shipped.order.document.shipments[0]?.fulfillmentLocation.labCode, 'uk6')
      return shipped
    }

    const orderOf = async (orderId: string) =>
      json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    const claimRow = async (claimId: string) =>
      (
        await t.database.db.query<{ status: string; version: number; document: string; resolved_by: string }>(
          'SELECT status, version, document, resolved_by FROM claims WHERE id = $1',
          [Number(claimId.slice(4))],
        )
      )[0]
    const openItems = async (claimId: string) =>
      (
        await t.database.db.query<{ open: boolean }>('SELECT open FROM claim_items WHERE claim_id = $1', [
          Number(claimId.slice(4)),
        ])
      ).map((row) => row.open)
    /** The order's routing rounds as the merchant reads them (GET /v4.0/orders/{id}/routing). */
    const routingRounds = async (orderId: string) => {
      const response = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).routing.allocations as any[]
    }
    const exclusionsOf = (round: any, itemId: string) =>
      Object.fromEntries(
        round.items
          .find((item: any) => item.itemId === itemId)
          .labsExcluded.map((lab: any) => [lab.labCode, lab.reason]),
      )
    const events = async (orderId: string) =>
      json(await t.live({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events as any[]

    test('a print defect is reprinted at another lab: a new shipment, charged nothing, Reprint hand-off, event, audit', async () => {
      const { orderId, shipmentId, itemId } = await shippedCanvas()
      const before = await orderOf(orderId)
      const claim = await makeClaim(t, {
        orderId,
        items: [{ itemId, category: 'PrintDefect' }],
        preferredResolution: 'Reprint',
      })

      const result = await t.app.services.claimResolution.resolve(
        { claimId: claim.id, decision: 'Reprint', note: 'banding across the sky', expectedVersion: 1 },
        TEST_ACTOR,
      )
      assert.ok(result.reprint)
      assert.equal(result.reprint.labCode, 'nl1', 'uk6 was at fault: the reprint goes elsewhere')
      assert.equal(result.claim.status, 'Resolved')
      assert.deepEqual(
        { ...result.claim.resolution, resolvedAt: undefined },
        {
          type: 'Reprint',
          note: 'banding across the sky',
          resolvedAt: undefined,
          reprintShipmentId: result.reprint.shipmentId,
          creditNote: null,
          amount: null,
        },
      )

      const order = await orderOf(orderId)
      assert.equal(order.status.stage, 'InProgress', 'in progress again until the reprint ships')
      assert.equal(order.status.details.shipping, 'InProgress')
      const reprint = order.shipments.find((shipment: any) => shipment.id === result.reprint?.shipmentId)
      assert.ok(reprint, 'the reprint is a shipment of the same order')
      assert.deepEqual(
        Object.keys(reprint).slice(-2),
        ['reprintOf', 'claimId'],
        "the reprint's keys come last on the shipment",
      )
      assert.equal(reprint.reprintOf, shipmentId)
      assert.equal(reprint.claimId, claim.id)
      assert.deepEqual(
        reprint.items.map((entry: any) => entry.itemId),
        [itemId],
      )
      assert.deepEqual(order.charges, before.charges, 'a reprint is charged nothing')

      // The reprint's allocation is a round of the order's routing, naming the claim, uk6 excluded for its fault.
      const rounds = await routingRounds(orderId)
      assert.equal(rounds.length, 2, 'the first allocation, then the reprint')
      const round = rounds[1]
      assert.equal(round.basis, 'Allocation')
      assert.equal(round.claimId, claim.id)
      assert.equal(rounds[0].claimId, undefined)
      assert.equal(exclusionsOf(round, itemId).uk6, 'AtFaultForClaim')
      assert.deepEqual(
        round.chosenPlan.shipments.map((shipment: any) => [shipment.labCode, shipment.itemIds]),
        [['nl1', [itemId]]],
      )
      assert.equal(exclusionsOf(rounds[0], itemId).uk6, undefined, 'the first round excluded nothing for a claim')

      const row = await claimRow(claim.id)
      assert.equal(row?.status, 'Resolved')
      assert.equal(row?.version, 2)
      assert.equal(row?.resolved_by, 'cli')
      assert.deepEqual(JSON.parse(row?.document ?? '{}'), result.claim)
      assert.deepEqual(await openItems(claim.id), [false])

      const claimEvents = (await events(orderId)).filter((event) => event.type.includes('.claims.claim#'))
      assert.deepEqual(claimEvents.map((event) => event.type.split('#')[1]).sort(), ['Created', 'Resolved'])
      const resolvedEvent = claimEvents.find((event) => event.type.endsWith('#Resolved'))
      assert.deepEqual(resolvedEvent.data.claim, result.claim)

      const audit = await t.app.services.audit.list({ actions: ['claim.resolved'] })
      const entry = audit.entries.find((candidate) => candidate.target === claim.id)
      assert.ok(entry, 'the audit entry')
      assert.equal((entry.after as any).reprintShipmentId, result.reprint.shipmentId)

      // Made, handed to nl1 and shipped like any shipment: the order is Complete again, still charged the same.
      const drive = pipelineDriver(t)
      await drive.render(orderId)
      await drive.submit(orderId, result.reprint.shipmentId)
      const shipped = await drive.ship(orderId)
      assert.equal(shipped.document.status.stage, 'Complete')
      const costs = await t.database.db.query<{ shipment_id: string; lab_code: string; kind: string; price: string }>(
        `SELECT shipment_id::text, lab_code, kind, (price_items_minor + price_shipping_minor)::text AS price
           FROM shipment_costs WHERE order_id = $1 ORDER BY id`,
        [Number(orderId.slice(4))],
      )
      assert.deepEqual(
        costs.map((cost) => [`shp_${cost.shipment_id}`, cost.lab_code, cost.kind, cost.price]),
        [
          [shipmentId, 'uk6', 'Original', costs[0]?.price],
          [result.reprint.shipmentId, 'nl1', 'Reprint', '0'],
        ],
      )
      assert.deepEqual((await orderOf(orderId)).charges, before.charges)
    })

    test('a missing parcel is reprinted whole at its lab with the very same print file, and tracked to Delivered', async () => {
      const { orderId, shipmentId, itemId } = await shippedCanvas()
      const claim = await makeClaim(t, {
        orderId,
        missingShipmentId: shipmentId,
      })
      const result = await t.app.services.claimResolution.resolve(
        { claimId: claim.id, decision: 'Reprint' },
        TEST_ACTOR,
      )
      assert.ok(result.reprint)
      const reprintId = result.reprint.shipmentId
      assert.equal(result.reprint.labCode, 'uk6', 'the lab was not at fault: allocation chose it again')
      const round = (await routingRounds(orderId)).at(-1)
      assert.equal(round.claimId, claim.id, "the reprint's round")
      assert.equal(exclusionsOf(round, itemId).uk6, undefined, 'a missing parcel does not blame the lab')
      assert.equal(round.items[0].chosenLabCode, 'uk6')
      assert.deepEqual(result.reprint.rerenderedAssetIds, [], 'the same lab takes the same file')

      const drive = pipelineDriver(t)
      let state = await drive.state(orderId)
      assert.equal(state.pipeline.phase, 'producing', 'nothing to render: handed to the lab at once')
      await drive.submit(orderId, reprintId)
      await drive.ship(orderId)
      await t.app.services.pipeline.reportLab(orderId, reprintId, {
        kind: 'tracking',
        events: [{ time: '2026-03-05T12:00:00.000Z', status: 'Delivered', description: 'Delivered' }],
      })
      state = await drive.state(orderId)
      const reprint = state.document.shipments.find((shipment) => shipment.id === reprintId)
      assert.equal(reprint?.deliveryStatus, 'Delivered')
      assert.deepEqual(Object.keys(reprint ?? {}).slice(-2), ['reprintOf', 'claimId'], 'kept last after tracking')
      assert.equal(state.document.status.stage, 'Complete')

      const digest = async (id: string) => {
        const files = Object.values(state.pipeline.shipments[id]?.printFiles ?? {})
        assert.equal(files.length, 1)
        const bytes = await t.app.services.files.get(files[0]?.blobKey as string)
        return createHash('sha256').update(bytes).digest('hex')
      }
      assert.equal(await digest(reprintId), await digest(shipmentId), "the reprint's print file is the original's")
    })

    test('a refund credits what the claimed item cost, one credit note; a credit may give less, never more', async () => {
      const { orderId, itemId } = await shippedCanvas()
      const state = await pipelineDriver(t).state(orderId)
      const line = state.pipeline.billing?.lines[`item:${itemId}`]
      assert.ok(line)
      const itemCost = BigInt(line.cost) + BigInt(line.tax)
      const claim = await makeClaim(t, {
        orderId,
        items: [{ itemId, category: 'Damaged' }],
        preferredResolution: 'Refund',
      })
      const refunded = await t.app.services.claimResolution.resolve(
        { claimId: claim.id, decision: 'Refund' },
        TEST_ACTOR,
      )
      const currency = state.pipeline.billing?.currency
      assert.deepEqual(refunded.amount, {
        amount: `${itemCost / 100n}.${String(itemCost % 100n).padStart(2, '0')}`,
        currency,
      })
      assert.ok(refunded.creditNote, 'a credit note')
      const order = await orderOf(orderId)
      const last = order.charges.at(-1)
      assert.equal(last.chargeType, 'Refund')
      assert.equal(last.prodigiInvoiceNumber, refunded.creditNote)
      assert.equal(refunded.claim.resolution?.creditNote, refunded.creditNote)

      // A second claim on the same (now closed) item: a Credit of 5.00; more than what is left is refused.
      const second = await makeClaim(t, {
        orderId,
        items: [{ itemId, category: 'Other' }],
      })
      await assert.rejects(
        t.app.services.claimResolution.resolve(
          { claimId: second.id, decision: 'Credit', amount: '99999.00' },
          TEST_ACTOR,
        ),
        (error: unknown) =>
          error instanceof OperatorRefusal && error.field === 'amount' && error.reason === 'more-than-refundable',
      )
      const credited = await t.app.services.claimResolution.resolve(
        { claimId: second.id, decision: 'Credit', amount: '5.00', note: 'goodwill' },
        TEST_ACTOR,
      )
      assert.deepEqual(credited.amount, { amount: '5.00', currency })
      assert.notEqual(credited.creditNote, refunded.creditNote)
      const after = await orderOf(orderId)
      assert.equal(after.charges.length, order.charges.length + 1, 'one credit note each')
      // Each shows on the order as a credit of the claim, as a late delivery's does.
      assert.deepEqual(
        after.credits.map((entry: { reason: string; claimId: string; creditNote: string; amount: unknown }) => [
          entry.reason,
          entry.claimId,
          entry.creditNote,
          entry.amount,
        ]),
        [
          ['Claim', claim.id, refunded.creditNote, refunded.amount],
          ['Claim', second.id, credited.creditNote, { amount: '5.00', currency }],
        ],
      )
    })

    test('the undisputed-claims rule resolves, as the merchant preferred, only Pending claims 3 days old no lab disputed', async () => {
      const day = 24 * 60 * 60
      const claimOn = async (preferredResolution?: 'Refund') => {
        const { orderId, itemId } = await shippedCanvas()
        return makeClaim(t, {
          orderId,
          items: [{ itemId, category: 'Other' }],
          ...(preferredResolution ? { preferredResolution } : {}),
        })
      }
      // Made by the claims service at the clock's time: 6, 5, 4 and 1 days old when the rule runs.
      const noPreference = await claimOn()
      t.clock.advanceSeconds(day)
      const disputed = await claimOn('Refund')
      await answerClaimAsLab(t.database.db, disputed.id, 'Disputed', 'the print left us perfect')
      t.clock.advanceSeconds(day)
      const due = await claimOn('Refund')
      t.clock.advanceSeconds(3 * day)
      const fresh = await claimOn('Refund')
      t.clock.advanceSeconds(day)

      assert.equal(await t.app.services.claimResolution.applyUndisputedRule(), 1)
      const resolved = await claimRow(due.id)
      assert.equal(resolved?.status, 'Resolved')
      assert.equal(resolved?.resolved_by, 'rule')
      assert.equal(JSON.parse(resolved?.document ?? '{}').resolution.type, 'Refund')
      for (const left of [disputed, fresh, noPreference]) assert.equal((await claimRow(left.id))?.status, 'Pending')
      // A second run finds nothing more to do.
      assert.equal(await t.app.services.claimResolution.applyUndisputedRule(), 0)
    })

    test('a rejection needs its reason; a decided claim is not decided again; an old version is refused', async () => {
      const { orderId, itemId } = await shippedCanvas()
      const claim = await makeClaim(t, {
        orderId,
        items: [{ itemId, category: 'Other' }],
      })
      const refusal = (field: string, reason: string) => (error: unknown) =>
        error instanceof OperatorRefusal && error.field === field && error.reason === reason
      const resolve = (input: Record<string, unknown>) =>
        t.app.services.claimResolution.resolve({ claimId: claim.id, decision: 'Reject', ...input }, TEST_ACTOR)
      await assert.rejects(resolve({ note: ' ' }), refusal('note', 'missing'))
      await assert.rejects(resolve({ decision: 'Replace', note: 'x' }), refusal('resolution', 'unknown'))
      await assert.rejects(resolve({ claimId: 'claim-1', note: 'x' }), refusal('claim', 'not-an-id'))
      await assert.rejects(resolve({ claimId: 'clm_999999', note: 'x' }), refusal('claim', 'unknown'))
      await assert.rejects(resolve({ note: 'x', expectedVersion: 7 }), refusal('claim', 'changed'))

      const rejected = await resolve({ note: 'the photo shows the print as ordered' })
      assert.deepEqual(rejected.claim.rejection, {
        reason: 'the photo shows the print as ordered',
        rejectedAt: rejected.claim.lastUpdated,
      })
      assert.equal(rejected.reprint, null)
      assert.deepEqual(await openItems(claim.id), [false])
      const claimEvents = (await events(orderId)).filter((event) => event.type.includes('.claims.claim#'))
      assert.match(claimEvents.at(-1)?.type ?? '', /\.claims\.claim#Rejected$/)

      await assert.rejects(
        t.app.services.claimResolution.resolve({ claimId: claim.id, decision: 'Reprint' }, TEST_ACTOR),
        refusal('claim', 'not-pending'),
      )
      const audit = await t.app.services.audit.list({ actions: ['claim.rejected'] })
      assert.ok(audit.entries.some((entry) => entry.target === claim.id))
    })
  })
}
