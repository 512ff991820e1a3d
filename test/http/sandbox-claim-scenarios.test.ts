// The Sandbox's simulated operator deciding claims by itself (docs/sandbox.md#claims): a claim made on an order of
// the scenario claimsResolved (or claimsRejected) queues a simulated-claim-decision job one simulated lab's step later,
// which decides it through the same decision as advance: as the merchant preferred (or rejected with the simulated
// operator's reason), with the claim's events. A claim retracted meanwhile stays retracted; an order without such a
// scenario queues nothing, its claims wait for advance. The job's handler is called as its worker would (no workers).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { jobRequest } from '../../src/domain/jobs.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`Sandbox claims decided by the simulated operator's scenarios (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    /** A Sandbox order of the scenario, delivered by the simulated labs; its one item. */
    async function deliveredOrder(scenario: string | null): Promise<{ orderId: string; itemId: string }> {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
        headers: { 'content-type': 'application/json', ...(scenario ? { 'x-sandbox-scenario': scenario } : {}) },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const delivered = await drive.simulateLabs(orderId)
      assert.equal(delivered.document.shipments[0]?.deliveryStatus, 'Delivered', 'the scenario delivers as usual')
      return { orderId, itemId: delivered.document.items[0]?.id as string }
    }

    async function claim(orderId: string, itemId: string, preferredResolution?: 'Refund' | 'Reprint') {
      const made = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/claims`,
        headers: { 'content-type': 'application/json' },
        payload: {
          items: [{ itemId, category: 'MissingItem', description: 'Not in the parcel' }],
          ...(preferredResolution ? { preferredResolution } : {}),
        },
      })
      assert.equal(made.statusCode, 201, made.body)
      return json(made).claim.id as string
    }

    /**
     * The simulated operator's queued decision of the claim (its payload); undefined when none was queued. (Its
     * start is a step after the test clock's time, which is in the past: the queue runs it at once.)
     */
    async function queuedDecision(claimId: string): Promise<unknown> {
      const id = jobIdFromKey(jobRequest('simulated-claim-decision', { claimId }).key)
      const rows = await t.database.db.query<{ data: unknown }>(
        `SELECT data FROM ${t.database.jobSchema}.job WHERE id = $1 AND name = 'simulated-claim-decision'`,
        [id],
      )
      return rows[0]?.data
    }

    const claimOf = async (claimId: string) =>
      json(await t.sandbox({ method: 'GET', url: `/v4.0/claims/${claimId}` })).claim
    const claimEvents = async (orderId: string) =>
      (json(await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events as any[])
        .map((event) => event.type.replace('com.printroute.order.', ''))
        .filter((type) => type.startsWith('claims.') || type.startsWith('credits.'))

    test('claimsResolved: the claim made queues the decision, which resolves it as the merchant preferred', async () => {
      const { orderId, itemId } = await deliveredOrder('claimsResolved')
      const claimId = await claim(orderId, itemId, 'Refund')
      assert.deepEqual(await queuedDecision(claimId), { claimId })
      assert.equal((await claimOf(claimId)).status, 'Pending', 'until the job runs')

      assert.equal(await t.app.services.sandboxClaims.decideByScenario(claimId), true)
      const resolved = await claimOf(claimId)
      assert.equal(resolved.status, 'Resolved')
      assert.equal(resolved.resolution.type, 'Refund')
      assert.match(resolved.resolution.creditNote, /^SBX-CN-/)
      assert.deepEqual(await claimEvents(orderId), [
        'claims.claim#Created',
        'claims.claim#Resolved',
        'credits.credit#Issued',
      ])
      // The job run again (a retry) changes nothing.
      assert.equal(await t.app.services.sandboxClaims.decideByScenario(claimId), false)
      assert.equal((await claimOf(claimId)).lastUpdated, resolved.lastUpdated)

      // A claim naming no preference gets a Credit, as advance gives; one retracted before the job stays retracted.
      const second = await claim(orderId, itemId)
      assert.equal(await t.app.services.sandboxClaims.decideByScenario(second), true)
      assert.equal((await claimOf(second)).resolution.type, 'Credit')
      const third = await claim(orderId, itemId)
      const retracted = await t.sandbox({ method: 'POST', url: `/v4.0/claims/${third}/retract` })
      assert.equal(retracted.statusCode, 200, retracted.body)
      assert.equal(await t.app.services.sandboxClaims.decideByScenario(third), false)
      assert.equal((await claimOf(third)).status, 'Retracted')
    })

    test("claimsRejected: the claim is rejected with the simulated operator's reason", async () => {
      const { orderId, itemId } = await deliveredOrder('claimsRejected')
      const claimId = await claim(orderId, itemId, 'Reprint')
      assert.deepEqual(await queuedDecision(claimId), { claimId })
      assert.equal(await t.app.services.sandboxClaims.decideByScenario(claimId), true)
      const rejected = await claimOf(claimId)
      assert.equal(rejected.status, 'Rejected')
      assert.equal(rejected.rejection.reason, "Rejected by the Sandbox's simulated operator")
      assert.deepEqual(await claimEvents(orderId), ['claims.claim#Created', 'claims.claim#Rejected'])
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.equal(order.shipments.length, 1, 'no reprint')
    })

    test('without such a scenario nothing is queued: the claim waits for advance', async () => {
      const { orderId, itemId } = await deliveredOrder(null)
      const claimId = await claim(orderId, itemId, 'Refund')
      assert.equal(await queuedDecision(claimId), undefined)
      assert.equal(await t.app.services.sandboxClaims.decideByScenario(claimId), false)
      assert.equal((await claimOf(claimId)).status, 'Pending')
    })
  })
}
