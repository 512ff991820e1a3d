// The console's claims section (docs/admin.md#claims) on a Live order shipped by the pipeline's own steps: the queue
// Pending first, a claim's page with its photos (served by the console), the order, the lab and its answer; the
// decisions taken from the page's form with the claim's version, a second decision refused in words; and the claim
// waiting in the needs-attention queue until it is decided.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { consoleClaimsOf } from '../../src/services/operator/console-sections.ts'
import { registerClaimsPages } from '../../src/web/operator/claims.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { answerClaimAsLab, makeClaim } from '../support/claims-resolve.fixture.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasOrder, shippedOrder } from '../support/shipped-order.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`the console's claims (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let pages: AdminPagesHarness

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      pages = await startAdminPages((scope, shell) =>
        registerClaimsPages(scope, shell, consoleClaimsOf(t.app.services.claimResolution)),
      )
    })
    after(async () => {
      await pages.close()
      await images.close()
      await t.close()
    })

    test('the queue, a claim with its photos and the lab answer, a decision, and a second one refused', async () => {
      const { orderId, itemId } = await shippedOrder(t, blackCanvasOrder(images.url('canvas.jpg')))
      const photo = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
        .jpeg()
        .toBuffer()
      const claim = await makeClaim(t, {
        orderId,
        items: [{ itemId, category: 'Damaged', description: 'The corner is crushed', photos: [photo] }],
        preferredResolution: 'Reprint',
      })
      await answerClaimAsLab(t.database.db, claim.id, 'Disputed', 'It left us in perfect shape')

      const attention = await t.app.services.attention.list({ skip: 0, reason: 'claimWaiting' })
      assert.ok(
        attention.rows.some((row) => row.key === `claimWaiting:${claim.id}`),
        'the claim waits in the queue',
      )

      const queue = await pages.request('/admin/claims?status=Pending')
      assert.equal(queue.status, 200)
      assert.match(queue.body, new RegExp(`data-claim="${claim.id}"`))
      assert.equal((await pages.request('/admin/claims?status=Open')).status, 400)

      const page = await pages.request(`/admin/claims/${claim.id}`)
      assert.equal(page.status, 200)
      const evidenceId = claim.items[0]?.evidence[0] as string
      assert.match(page.body, new RegExp(`<img src="/admin/claims/${claim.id}/photos/${evidenceId}"`))
      assert.match(page.body, new RegExp(`href="/admin/orders/${orderId}"`))
      assert.match(page.body, /It answered <strong>Disputed<\/strong>.*It left us in perfect shape/s)
      assert.match(page.body, /The corner is crushed/)
      assert.match(page.body, /name="version" value="1"/)

      const served = await fetch(`${pages.origin}/admin/claims/${claim.id}/photos/${evidenceId}`)
      assert.equal(served.status, 200)
      assert.equal(served.headers.get('content-type'), 'image/jpeg')
      // The photo as the claims service kept it (re-encoded without metadata), the bytes its merchant is served.
      const kept = await t.live({ method: 'GET', url: `/v4.0/claims/evidence/${evidenceId}/image` })
      assert.equal(kept.statusCode, 200)
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), kept.rawPayload)
      assert.equal((await fetch(`${pages.origin}/admin/claims/${claim.id}/photos/evd_999999`)).status, 404)

      const noNote = await pages.request(`/admin/claims/${claim.id}/decide`, { resolution: 'Reject', version: '1' })
      assert.equal(noNote.status, 303)
      assert.match(noNote.notice ?? '', /Note: write something/)
      const stale = await pages.request(`/admin/claims/${claim.id}/decide`, { resolution: 'Reprint', version: '0' })
      assert.match(stale.notice ?? '', /changed since it was read/)

      const decided = await pages.request(`/admin/claims/${claim.id}/decide`, {
        resolution: 'Reprint',
        note: 'Reprinting it elsewhere',
        version: '1',
      })
      assert.equal(decided.location, `/admin/claims/${claim.id}`)
      const notice = JSON.parse(decided.notice ?? '{}')
      assert.equal(notice.kind, 'success', notice.text)
      assert.match(notice.text, new RegExp(`Resolved ${claim.id} as Reprint: shipment shp_\\d+ at lab nl1`))

      const again = await pages.request(`/admin/claims/${claim.id}/decide`, { resolution: 'Credit', version: '2' })
      assert.match(again.notice ?? '', new RegExp(`${claim.id} is Resolved: it was already decided`))
      const resolved = await pages.request(`/admin/claims/${claim.id}`)
      assert.match(resolved.body, /Resolved <strong>Reprint<\/strong>/)
      assert.doesNotMatch(resolved.body, /action="\/admin\/claims\/[^"]+\/decide"/, 'no decision form once decided')
      const after = await t.app.services.attention.list({ skip: 0, reason: 'claimWaiting' })
      assert.ok(!after.rows.some((row) => row.key === `claimWaiting:${claim.id}`))
    })
  })
}
