// The console's "needs attention" queue (docs/admin.md#needs-attention), each reason made for real on one app: an
// order's issue left for over an hour (not before), an asset that failed to download, a prepaid order held for
// payment, a shipment past its ship-by date, a lab whose push endpoint fails. Each row says why and links to where
// it is acted on; the page filters by reason and refuses a reason it does not know. Orders are moved by the
// pipeline's own steps (no workers); time passes on the app's manual clock.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AttentionReason } from '../../src/domain/attention.ts'
import { registerAttentionPages } from '../../src/web/operator/attention.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

for (const kind of databaseKinds) {
  describe(`the needs-attention queue (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let missing: ImageServer
    let failingLab: CallbackReceiver
    let pages: AdminPagesHarness

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      missing = await startImageServer({}, null)
      failingLab = await startCallbackReceiver({ respond: () => 500 })
      pages = await startAdminPages((scope, shell) => registerAttentionPages(scope, shell, t.app.services.attention))
    })
    after(async () => {
      await pages.close()
      await failingLab.close()
      await missing.close()
      await images.close()
      await t.close()
    })

    async function create(payload: Record<string, unknown>, key?: string): Promise<string> {
      const created = await t.live(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        key,
      )
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id as string
    }
    const rows = async (reason?: AttentionReason) =>
      (await t.app.services.attention.list({ skip: 0, reason: reason ?? null })).rows
    const keysOf = async (reason?: AttentionReason) => (await rows(reason)).map((row) => row.key)

    test('every reason, each made for real, listed with why and where to act', async () => {
      const drive = pipelineDriver(t)
      // An issue: the recipient's postcode breaks GB's rules (a warning issue; the order goes on).
      const withIssue = await create({
        ...sampleOrder({ items: [blackCanvasItem(images.url('a.jpg'))] }),
        recipient: {
          name: 'Ada Lovelace',
          address: {
            line1: '14 Test Street',
            postalOrZipCode: 'NOT-A-POSTCODE',
            countryCode: 'GB',
            townOrCity: 'London',
          },
        },
      })
      // An asset that cannot be downloaded.
      const failing = await create(sampleOrder({ items: [blackCanvasItem(missing.url('gone.jpg'))] }))
      await drive.download(failing)
      // A prepaid account with no balance: its order is held for payment once allocated.
      const prepaid = await t.createAccount({ billingMode: 'prepaid' })
      const unpaid = await create(sampleOrder({ items: [blackCanvasItem(images.url('b.jpg'))] }), prepaid.liveKey)
      await drive.allocate(unpaid)
      // uk6's push endpoint answers 500: the push of the job it is given fails.
      await t.app.services.labPushes.configure('uk6', { pushUrl: failingLab.url('/uk6') }, TEST_ACTOR)
      const late = await create(sampleOrder({ items: [blackCanvasItem(images.url('c.jpg'))] }))
      await drive.allocate(late)
      await drive.render(late)
      const submitted = await drive.submit(late)
      const lateShipment = submitted.document.shipments[0]?.id
      assert.ok(lateShipment)
      assert.equal(submitted.pipeline.shipments[lateShipment]?.labCode, 'uk6')
      await drive.deliverCallbacks()
      assert.ok(failingLab.received.length > 0, 'the push was attempted')

      // Right away: the asset, the payment and the lab; the issue waits its hour, the ship-by date is ahead.
      assert.ok((await keysOf('assetFailing')).includes(`assetFailing:${failing}`))
      assert.ok((await keysOf('paymentPending')).includes(`paymentPending:${unpaid}`))
      assert.deepEqual(await keysOf('labNotAnswering'), ['labNotAnswering:uk6'])
      assert.ok(!(await keysOf('issue')).includes(`issue:${withIssue}`), 'not within the hour')
      assert.deepEqual(await keysOf('pastShipBy'), [])

      t.clock.advanceSeconds(2 * 3600)
      const issue = (await rows('issue')).find((row) => row.subject === withIssue)
      assert.ok(issue, 'the issue after an hour')
      assert.match(issue.why, /order\.recipient\.AddressUnverified/)

      t.clock.advanceSeconds(30 * 86_400)
      const past = (await rows('pastShipBy')).find((row) => row.shipmentId === lateShipment)
      assert.ok(past, 'the shipment past its ship-by date')
      assert.equal(past.subject, late)
      assert.match(
        past.why,
        new RegExp(`Shipment ${lateShipment} at lab uk6 should have shipped by \\d{4}-\\d{2}-\\d{2}`),
      )

      // The page: each row says why and links to its action.
      const page = await pages.request('/admin/attention')
      assert.equal(page.status, 200)
      const rowHtml = (key: string) => page.body.match(new RegExp(`<tr data-attention="${key}">[\\s\\S]*?</tr>`))?.[0]
      const issueRow = rowHtml(`issue:${withIssue}`)
      assert.ok(issueRow)
      assert.match(issueRow, new RegExp(`href="/admin/orders/${withIssue}">Open the order`))
      assert.match(rowHtml(`assetFailing:${failing}`) ?? '', /failed to download/)
      assert.match(rowHtml(`paymentPending:${unpaid}`) ?? '', new RegExp(`href="/admin/accounts/${prepaid.id}">Top up`))
      assert.match(
        rowHtml(`pastShipBy:${lateShipment}`) ?? '',
        new RegExp(`href="/admin/orders/${late}#move-${lateShipment}">Move to another lab`),
      )
      assert.match(rowHtml('labNotAnswering:uk6') ?? '', /href="\/admin\/callbacks">/)
      assert.match(rowHtml('labNotAnswering:uk6') ?? '', /HTTP 500/)

      // Filtered by reason; the count the navigation shows is the queue's.
      const filtered = await pages.request('/admin/attention?reason=labNotAnswering')
      assert.match(filtered.body, /data-attention="labNotAnswering:uk6"/)
      assert.doesNotMatch(filtered.body, /data-attention="issue:/)
      const total = (await t.app.services.attention.list({ skip: 0, reason: null })).total
      assert.equal(await t.app.services.attention.count(), total)
      assert.ok(total >= 5)

      // The real console's navigation shows the count beside the section, on every page.
      const { token } = await t.app.services.operators.createOperator('Dana', TEST_ACTOR)
      const signIn = await t.app.live.inject({
        method: 'POST',
        url: '/admin/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ operatorToken: token }).toString(),
      })
      const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_admin_session')
      assert.ok(cookie, signIn.body)
      const accounts = await t.app.live.inject({
        method: 'GET',
        url: '/admin/accounts',
        headers: { cookie: `${cookie.name}=${cookie.value}` },
      })
      assert.match(
        accounts.body,
        new RegExp(`href="/admin/attention">Needs attention <span class="[^"]*nav-count"[^>]*>${total}</span>`),
      )
    })

    test('a reason the queue does not know is refused, naming it', async () => {
      const refused = await pages.request('/admin/attention?reason=everything')
      assert.equal(refused.status, 400)
      assert.match(refused.body, /reason: must be one of issue, pastShipBy/)
      const badSkip = await pages.request('/admin/attention?skip=-1')
      assert.equal(badSkip.status, 400)
    })
  })
}
