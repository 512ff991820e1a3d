// Two operators resolving the same claim at once (docs/claims.md#resolutions): the order's row lock takes them one
// after the other and the claim's status and version decide, so one resolution wins and the other is refused; at
// most one reprint shipment and one credit note come of it, on either database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { OperatorRefusal } from '../../src/domain/operator-refusal.ts'
import type { ClaimDecider } from '../../src/services/claim-resolution.service.ts'
import { makeClaim } from '../support/claims-resolve.fixture.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { blackCanvasOrder, shippedOrder } from '../support/shipped-order.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')
const OPERATOR_A: ClaimDecider = { kind: 'operator', operatorId: 'opr_1', name: 'Ada' }
const OPERATOR_B: ClaimDecider = { kind: 'operator', operatorId: 'opr_2', name: 'Bea' }

for (const kind of databaseKinds) {
  describe(`two resolutions of one claim at once (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      t = await startTestApp({ kind, maxConnections: 4 })
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    test('one wins, the other is refused: at most one reprint and one credit note', async () => {
      const { orderId, itemId, order: shipped } = await shippedOrder(t, blackCanvasOrder(images.url('canvas.jpg')))
      const chargesBefore = shipped.document.charges.length

      for (const [first, second] of [
        ['Reprint', 'Credit'],
        ['Reprint', 'Reprint'],
        ['Refund', 'Credit'],
      ] as const) {
        // One open claim per item: each is decided before the next is made.
        const claim = await makeClaim(t, { orderId, items: [{ itemId, category: 'Damaged' }] })
        const outcomes: PromiseSettledResult<unknown>[] = await Promise.allSettled([
          t.app.services.claimResolution.resolve(
            { claimId: claim.id, decision: first, amount: '1.00', expectedVersion: 1 },
            OPERATOR_A,
          ),
          t.app.services.claimResolution.resolve(
            { claimId: claim.id, decision: second, amount: '1.00', expectedVersion: 1 },
            OPERATOR_B,
          ),
        ])
        const won = outcomes.filter((outcome) => outcome.status === 'fulfilled')
        const lost = outcomes.filter((outcome) => outcome.status === 'rejected')
        assert.equal(won.length, 1, `${first} against ${second}: one resolution`)
        assert.equal(lost.length, 1)
        const reason = (lost[0] as PromiseRejectedResult).reason
        assert.ok(reason instanceof OperatorRefusal, String(reason))
        assert.equal(reason.field, 'claim')
        assert.ok(['changed', 'not-pending'].includes(reason.reason), reason.reason)

        const rows = await t.database.db.query<{ status: string; version: number }>(
          'SELECT status, version FROM claims WHERE id = $1',
          [Number(claim.id.slice(4))],
        )
        assert.deepEqual(rows, [{ status: 'Resolved', version: 2 }])
      }

      const order = await pipelineDriver(t).state(orderId)
      const reprints = order.document.shipments.filter((candidate) => candidate.reprintOf !== undefined)
      const creditNotes = order.document.charges.length - chargesBefore
      // Three claims: each gave exactly one reprint or one credit note.
      assert.equal(reprints.length + creditNotes, 3)
      assert.equal(new Set(reprints.map((reprint) => reprint.claimId)).size, reprints.length, 'one reprint a claim')
      const audit = await t.app.services.audit.list({ actions: ['claim.resolved'] })
      assert.equal(audit.entries.filter((entry) => (entry.after as any).order === orderId).length, 3)
    })
  })
}
