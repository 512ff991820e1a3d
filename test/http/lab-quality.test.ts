// Lab quality steering Live allocation (docs/allocation.md#lab-quality): a lab whose upheld claims per 1,000 items
// shipped over 90 days are above the catalogue's `qualityThreshold` is left out of new orders and quotes with the
// routing reason QualityBelowThreshold, and used again once its rate falls back (an upheld claim rejected on review
// here); Sandbox is unaffected. The rates are read once a minute at most: the test moves its clock past that.
// Shipped items come from a 50-item order's hand-off recorded as shipped, claims from the fixture.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { LAB_QUALITY_CACHE_SECONDS } from '../../src/domain/lab-quality.ts'
import { insertClaim, insertShippedHandoff, setClaimStatus } from '../support/claims-lab.fixture.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

/** The lab a print to GB goes to with every lab free. */
const FIRST_CHOICE = 'uk6'

describe('lab quality in allocation', () => {
  let images: ImageServer
  let t: TestApp

  before(async () => {
    images = await startImageServer()
    t = await startTestApp({
      catalogue: changedSampleCatalogue('quality threshold', (file) => {
        for (const lab of file.labs) if (lab.code === FIRST_CHOICE) lab.qualityThreshold = 10
      }),
    })
  })
  after(async () => {
    await t.close()
    await images.close()
  })

  async function createPrintOrder(items: number, server: 'live' | 'sandbox' = 'live'): Promise<string> {
    const created = await t[server]({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({
        items: Array.from({ length: items }, () => ({
          sku: 'GLOBAL-FAP-16x24',
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ url: images.url('print.jpg') }],
        })),
      }),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(created.statusCode, 200, created.body)
    return json(created).order.id
  }

  /** What the routing of a new order (not yet allocated: the estimate) says of each lab. */
  async function estimatedReasons(server: 'live' | 'sandbox' = 'live'): Promise<Record<string, string>> {
    const orderId = await createPrintOrder(1, server)
    const response = await t[server]({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })
    assert.equal(response.statusCode, 200, response.body)
    const item = json(response).routing.allocations.at(-1).items[0]
    return Object.fromEntries(
      item.labsExcluded.map((lab: { labCode: string; reason: string }) => [lab.labCode, lab.reason]),
    )
  }

  async function quotedReasons(): Promise<Record<string, string>> {
    const response = await t.live({
      method: 'POST',
      url: '/v4.0/quotes',
      payload: {
        shippingMethod: 'Standard',
        destinationCountryCode: 'GB',
        items: [{ sku: 'GLOBAL-FAP-16x24', copies: 1, assets: [{ printArea: 'default' }] }],
      },
    })
    assert.equal(response.statusCode, 200, response.body)
    const quote = json(response).quotes[0]
    const routing = json(await t.live({ method: 'GET', url: `/v4.0/quotes/${quote.id}/routing` })).routing
    return Object.fromEntries(
      routing.allocations[0].items[0].labsExcluded.map((lab: { labCode: string; reason: string }) => [
        lab.labCode,
        lab.reason,
      ]),
    )
  }

  const nextMinute = () => t.clock.advanceSeconds(LAB_QUALITY_CACHE_SECONDS + 1)

  test('a lab above its threshold is left out (QualityBelowThreshold) until its rate falls back', async () => {
    // 50 items shipped by the lab: the minimum volume.
    const shipped = await createPrintOrder(50)
    const allocated = await pipelineDriver(t).allocate(shipped)
    const [shipmentId, shipment] = Object.entries(allocated.pipeline.shipments)[0] ?? []
    assert.equal(shipment?.labCode, FIRST_CHOICE)
    await insertShippedHandoff(t.database.db, {
      orderId: shipped,
      shipmentId: shipmentId as string,
      labCode: FIRST_CHOICE,
      at: t.clock.now(),
    })
    const itemIds = allocated.document.items.map((item) => item.id)
    const claimOn = (index: number, category: 'Damaged' | 'LateDelivery', status: 'Resolved' | 'Pending') =>
      insertClaim(t.database.db, {
        orderId: shipped,
        labCode: FIRST_CHOICE,
        items: [{ itemId: itemIds[index] as string, shipmentId: shipmentId as string, category, description: 'x' }],
        status,
        at: t.clock.now(),
      })
    // Not upheld against the lab: pending, or a category that is not the lab's fault.
    await claimOn(0, 'Damaged', 'Pending')
    await claimOn(1, 'LateDelivery', 'Resolved')
    nextMinute()
    assert.equal((await estimatedReasons())[FIRST_CHOICE], undefined, 'no upheld claim: the lab is considered')

    // One upheld Damaged item in 50: 20 per 1,000, above 10.
    const upheld = await claimOn(2, 'Damaged', 'Resolved')
    assert.equal((await estimatedReasons())[FIRST_CHOICE], undefined, 'the rates read a minute ago still hold')
    nextMinute()
    assert.equal((await estimatedReasons())[FIRST_CHOICE], 'QualityBelowThreshold')
    assert.equal((await quotedReasons())[FIRST_CHOICE], 'QualityBelowThreshold')
    const next = await createPrintOrder(1)
    const nextAllocated = await pipelineDriver(t).allocate(next)
    const labs = Object.values(nextAllocated.pipeline.shipments).map((entry) => entry.labCode)
    assert.ok(labs.length > 0 && !labs.includes(FIRST_CHOICE), `allocated elsewhere: ${labs.join(', ')}`)
    const routing = json(await t.live({ method: 'GET', url: `/v4.0/orders/${next}/routing` })).routing
    const excluded = routing.allocations.at(-1).items[0].labsExcluded
    assert.deepEqual(
      excluded.find((lab: { labCode: string }) => lab.labCode === FIRST_CHOICE),
      { labCode: FIRST_CHOICE, reason: 'QualityBelowThreshold' },
    )
    // Sandbox work goes to the simulated labs: never left out for quality.
    assert.equal((await estimatedReasons('sandbox'))[FIRST_CHOICE], undefined)

    // The upheld claim no longer counts (here: rejected on review): the lab is used again.
    await setClaimStatus(t.database.db, upheld.id, 'Rejected', t.clock.now())
    nextMinute()
    assert.equal((await estimatedReasons())[FIRST_CHOICE], undefined)
  })
})
