// The console's labs page (src/web/operator/labs.pages.ts) over its section (services/operator/console-sections.ts): each lab's jobs in
// flight, overdue jobs against their ship-by date, rejection rate and median time from submission to dispatch over
// 7 and 30 days, from real Live orders driven through the pipeline on a controlled clock (a Sandbox order beside
// them counts for nothing); pause and resume through the page; a lab's page with its keys: created and rotated
// (the key shown once, the overlap chosen), revoked after a confirmation page. On every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { consoleLabsOf } from '../../src/services/operator/console-sections.ts'
import { registerLabsPages } from '../../src/web/operator/labs.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

/** The sample catalogue's lab for a black canvas to GB by Standard. */
const LAB = 'uk6'
/** A lab with no work and, at first, no keys: its page's keys. */
const OTHER_LAB = 'us1'
const HOUR = 3600

for (const kind of databaseKinds) {
  describe(`console labs page (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let pages: AdminPagesHarness
    const start = new Date('2026-03-01T09:00:00.000Z')
    let inFlightShipment = ''

    /** A canvas order to GB taken to its lab: its order ID and its one shipment's ID. */
    async function submittedOrder(environment: 'live' | 'sandbox'): Promise<{ orderId: string; shipmentId: string }> {
      const send = environment === 'live' ? t.live : t.sandbox
      const created = await send({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id as string
      const driver = pipelineDriver(t)
      await driver.allocate(orderId)
      await driver.render(orderId)
      const submitted = await driver.submit(orderId)
      const [shipmentId, shipment] = Object.entries(submitted.pipeline.shipments)[0] ?? []
      assert.equal(shipment?.labCode, LAB)
      assert.equal(shipment?.state, 'submitted')
      return { orderId, shipmentId: shipmentId as string }
    }

    async function shipAfter(order: { orderId: string; shipmentId: string }, hours: number) {
      const pipeline = t.app.services.pipeline
      await pipeline.reportLab(order.orderId, order.shipmentId, { kind: 'acknowledged' })
      await pipeline.reportLab(order.orderId, order.shipmentId, {
        kind: 'shipped',
        carrier: null,
        tracking: { number: `T-${order.shipmentId}`, url: `https://tracking.example.com/${order.shipmentId}` },
        dispatchDate: new Date(start.getTime() + hours * HOUR * 1000),
      })
    }

    async function lab() {
      const labs = await t.app.services.adminViews.labs.listLabs()
      const found = labs.find((entry) => entry.code === LAB)
      assert.ok(found)
      return found
    }

    before(async () => {
      images = await startImageServer()
      t = await startTestApp({ kind })
      assert.equal(t.clock.now().toISOString(), start.toISOString())
      // Four Live jobs submitted now: two shipped (10 and 26 hours after submission), one rejected, one in flight.
      await shipAfter(await submittedOrder('live'), 10)
      await shipAfter(await submittedOrder('live'), 26)
      const rejected = await submittedOrder('live')
      await t.app.services.pipeline.reportLab(rejected.orderId, rejected.shipmentId, {
        kind: 'rejected',
        reason: 'Printer down',
        unavailableItemIds: [],
      })
      inFlightShipment = (await submittedOrder('live')).shipmentId
      // A Sandbox job with the same lab: the figures are of Live work only.
      await submittedOrder('sandbox')
      pages = await startAdminPages((scope, console) =>
        registerLabsPages(
          scope,
          console,
          consoleLabsOf(t.app.services.labs, t.app.services.adminViews.labs, t.app.services.labStatements),
        ),
      )
    })
    after(async () => {
      await pages.close()
      await t.close()
      await images.close()
    })

    test('counts the lab’s Live jobs in flight, rejections and the median time to dispatch', async () => {
      t.clock.advanceSeconds(2 * 24 * HOUR)
      const figures = await lab()
      assert.equal(figures.jobsInFlight, 1)
      assert.deepEqual(figures.rejections, { submitted: 4, rejected: 1 })
      // The median of 10 and 26 hours.
      assert.deepEqual(figures.medianDispatchSeconds, { last7Days: 18 * HOUR, last30Days: 18 * HOUR })
      assert.equal(figures.lastReportAt, start.toISOString())
      assert.equal(figures.overdueJobs, 0)
      assert.equal(figures.paused, false)
      const other = (await t.app.services.adminViews.labs.listLabs()).find((entry) => entry.code !== LAB)
      assert.ok(other)
      assert.equal(other.jobsInFlight, 0)
      assert.deepEqual(other.rejections, { submitted: 0, rejected: 0 })

      const page = await pages.request('/admin/labs')
      assert.equal(page.status, 200)
      const row = page.body.slice(page.body.indexOf(`<tr data-lab="${LAB}">`))
      assert.match(row, /<td class="number" data-jobs-in-flight>1<\/td>/)
      assert.match(row, /<td data-rejections>25% <span class="muted small">\(1 of 4\)<\/span><\/td>/)
      assert.match(row, /<td data-median-7>18\.0 h<\/td>/)
      assert.match(row, /<td data-median-30>18\.0 h<\/td>/)
    })

    test('a job in flight past its ship-by date is overdue; dispatches older than 7 days leave the 7-day median', async () => {
      const jobs = await t.app.services.labs.listJobs(LAB)
      const shipBy = jobs.find((job) => job.shipmentId === inFlightShipment)?.shipBy
      assert.ok(shipBy, 'the sample lab gives its jobs a ship-by date')
      // Well past the ship-by date and more than 7 days after both dispatches, within 30 days of them.
      const target = Math.max(
        new Date(`${shipBy}T00:00:00Z`).getTime() + 2 * 24 * HOUR * 1000,
        start.getTime() + 9 * 24 * HOUR * 1000,
      )
      t.clock.advanceSeconds(Math.ceil((target - t.clock.now().getTime()) / 1000))
      const figures = await lab()
      assert.equal(figures.overdueJobs, 1)
      assert.deepEqual(figures.medianDispatchSeconds, { last7Days: null, last30Days: 18 * HOUR })
      const page = await pages.request('/admin/labs')
      const row = page.body.slice(page.body.indexOf(`<tr data-lab="${LAB}">`))
      assert.match(row, /<td class="number" data-overdue><span class="badge badge-error">1<\/span><\/td>/)
    })

    test('pauses and resumes a lab through the page; an unknown lab changes nothing', async () => {
      const paused = await pages.request(`/admin/labs/${LAB}/pause`, { _csrf: 'csrf-test' })
      assert.equal(paused.status, 303)
      assert.equal(paused.location, '/admin/labs')
      assert.equal((await t.app.services.labs.capacity(LAB)).paused, true)
      assert.equal((await lab()).paused, true)
      const page = await pages.request('/admin/labs')
      const row = page.body.slice(page.body.indexOf(`<tr data-lab="${LAB}">`))
      assert.match(row, /Paused/)
      assert.match(
        row,
        new RegExp(
          `<form method="post" action="/admin/labs/${LAB}/resume"><input type="hidden" name="_csrf" value="csrf-test">`,
        ),
      )

      const resumed = await pages.request(`/admin/labs/${LAB}/resume`, { _csrf: 'csrf-test' })
      assert.equal(resumed.status, 303)
      assert.equal((await t.app.services.labs.capacity(LAB)).paused, false)

      const unknown = await pages.request('/admin/labs/zz9/pause', { _csrf: 'csrf-test' })
      assert.equal(unknown.status, 303)
      assert.match(String(unknown.location), /\/admin\/labs$/)
      // Nothing changed: every lab takes work.
      assert.ok((await t.app.services.adminViews.labs.listLabs()).every((entry) => !entry.paused))
      const section = consoleLabsOf(t.app.services.labs, t.app.services.adminViews.labs, t.app.services.labStatements)
      assert.equal(await section.setPaused('zz9', true, { kind: 'system' }), null)
    })

    test("a lab's page lists its keys; a created key is shown once, on the page that made it", async () => {
      const empty = await pages.request(`/admin/labs/${OTHER_LAB}`)
      assert.equal(empty.status, 200)
      assert.match(empty.body, /No keys: the lab cannot use the lab API or the portal yet/)
      const list = await pages.request('/admin/labs')
      assert.match(list.body, new RegExp(`<a href="/admin/labs/${OTHER_LAB}"><code>${OTHER_LAB}</code></a>`))

      const created = await pages.request(`/admin/labs/${OTHER_LAB}/keys`, { _csrf: 'csrf-test' })
      assert.equal(created.status, 200)
      const key = /<code class="new-key">(pr_lab_[^<]+)<\/code>/.exec(created.body)?.[1] ?? ''
      assert.ok(key, 'the new key is on the page')
      assert.match(created.body, /Copy it now, it is not shown again/)
      const [listed] = await t.app.services.labs.listLabKeys(OTHER_LAB)
      assert.ok(listed && key.startsWith(listed.prefix))
      assert.match(created.body, new RegExp(`<tr data-lab-key="${listed.id}">`))

      const again = await pages.request(`/admin/labs/${OTHER_LAB}`)
      assert.ok(!again.body.includes(key), 'never shown again')
      const row = again.body.slice(again.body.indexOf(`<tr data-lab-key="${listed.id}">`))
      assert.match(row, /<span class="badge badge-ok">Active<\/span>/)
      assert.match(row, /<span class="muted">never<\/span>/, 'not used yet')
      assert.match(row, new RegExp(`href="/admin/labs/${OTHER_LAB}/keys/${listed.id}/revoke"`))

      const unknown = await pages.request('/admin/labs/zz9')
      assert.equal(unknown.status, 404)
      assert.match(unknown.body, /The catalogue has no lab <code>zz9<\/code>/)
      const refused = await pages.request('/admin/labs/zz9/keys', { _csrf: 'csrf-test' })
      assert.equal(refused.status, 303)
      assert.match(String(refused.notice), /The catalogue has no lab zz9/)
    })

    test('rotating keeps the old key for the overlap chosen; a made-up overlap is refused with the reason', async () => {
      const { key: oldKey, view: oldView } = await t.app.services.labs.createLabKey(OTHER_LAB, { kind: 'system' })
      const page = await pages.request(`/admin/labs/${OTHER_LAB}`)
      assert.match(page.body, /<option value="86400" selected>24 hours<\/option>/)
      assert.match(page.body, /<option value="0">none: the old keys stop now<\/option>/)

      for (const overlapSeconds of ['soon', String(31 * 86_400)]) {
        const refused = await pages.request(`/admin/labs/${OTHER_LAB}/keys/rotate`, {
          _csrf: 'csrf-test',
          overlapSeconds,
        })
        assert.equal(refused.status, 400, overlapSeconds)
        assert.match(refused.body, /overlap/)
        assert.ok(!/class="new-key"/.test(refused.body))
      }
      assert.equal(
        (await t.app.services.labs.listLabKeys(OTHER_LAB)).filter((key) => key.state === 'active').length,
        2,
        'a refused rotation changes nothing',
      )

      const rotated = await pages.request(`/admin/labs/${OTHER_LAB}/keys/rotate`, {
        _csrf: 'csrf-test',
        overlapSeconds: '3600',
      })
      assert.equal(rotated.status, 200)
      assert.match(rotated.body, /<code class="new-key">pr_lab_/)
      const until = new Date(t.clock.now().getTime() + 3600_000).toISOString().slice(0, 16).replace('T', ' ')
      assert.match(rotated.body, new RegExp(`${oldView.prefix}… keep working until ${until} UTC`))
      const row = rotated.body.slice(rotated.body.indexOf(`<tr data-lab-key="${oldView.id}">`))
      assert.match(row, /Expiring/)
      assert.equal(await t.app.services.labs.authenticateLab(oldKey), OTHER_LAB, 'the old key works during the overlap')
    })

    test('revoking asks first, then the key is refused; a revoked or foreign key has no confirmation page', async () => {
      const { key, view } = await t.app.services.labs.createLabKey(OTHER_LAB, { kind: 'system' })
      const confirm = await pages.request(`/admin/labs/${OTHER_LAB}/keys/${view.id}/revoke`)
      assert.equal(confirm.status, 200)
      assert.match(confirm.body, new RegExp(`Revoke key ${view.prefix}… of lab ${OTHER_LAB}\\?`))
      assert.match(
        confirm.body,
        new RegExp(
          `<form method="post" action="/admin/labs/${OTHER_LAB}/keys/${view.id}/revoke" class="card stack"><input type="hidden" name="_csrf" value="csrf-test">`,
        ),
      )
      assert.equal(await t.app.services.labs.authenticateLab(key), OTHER_LAB, 'asking changes nothing')

      const revoked = await pages.request(`/admin/labs/${OTHER_LAB}/keys/${view.id}/revoke`, { _csrf: 'csrf-test' })
      assert.equal(revoked.status, 303, revoked.body)
      assert.equal(revoked.location, `/admin/labs/${OTHER_LAB}`)
      assert.equal(await t.app.services.labs.authenticateLab(key), undefined)
      const page = await pages.request(`/admin/labs/${OTHER_LAB}`)
      const row = page.body.slice(page.body.indexOf(`<tr data-lab-key="${view.id}">`))
      assert.match(row.slice(0, row.indexOf('</tr>')), /Revoked/)
      assert.ok(!row.slice(0, row.indexOf('</tr>')).includes('/revoke'), 'no Revoke on a revoked key')

      assert.equal((await pages.request(`/admin/labs/${OTHER_LAB}/keys/${view.id}/revoke`)).status, 404)
      // Another lab's key is not this lab's to revoke.
      const { key: foreignKey, view: foreign } = await t.app.services.labs.createLabKey(LAB, { kind: 'system' })
      assert.equal((await pages.request(`/admin/labs/${OTHER_LAB}/keys/${foreign.id}/revoke`)).status, 404)
      const refused = await pages.request(`/admin/labs/${OTHER_LAB}/keys/${foreign.id}/revoke`, { _csrf: 'csrf-test' })
      assert.equal(refused.status, 303)
      assert.match(String(refused.notice), new RegExp(`lab ${OTHER_LAB} has no key ${foreign.id}`))
      assert.equal(await t.app.services.labs.authenticateLab(foreignKey), LAB)
    })
  })
}
