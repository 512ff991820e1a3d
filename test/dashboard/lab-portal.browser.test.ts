// The lab portal in a real browser, as a print shop uses it: signing in with a lab key, the job queue, a job
// acknowledged, put in production and shipped, a job rejected, the capacity set, a cancellation answered; a job
// pushed to the lab (signature verified), acknowledged, shipped in two parcels with one item rejected and re-routed;
// refusals shown beside their forms; accessible, and usable at phone width. Nothing here is skipped.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { assertAccessible, assertImagesLoaded, newContext, screenshotForDocs, setViewport } from '../support/browser.ts'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

const PORTAL = '/labs/portal'

for (const kind of databaseKinds) {
  describe(`lab portal (${kind})`, () => {
    let h: DashboardHarness
    let labCode: string
    let labKey: string

    /** Places a Live order of `count` phone cases (one shipment at one lab); its shipment once the lab has it. */
    async function placeLiveOrder(
      count: number,
      reference: string,
      extra: Record<string, unknown> = {},
    ): Promise<{ orderId: string; shipmentId: string }> {
      const items = Array.from({ length: count }, (_, index) => ({
        merchantReference: `case-${index + 1}`,
        sku: PHONE_CASE,
        copies: 1,
        sizing: 'fillPrintArea',
        assets: [{ printArea: 'default', url: `${h.urls.live}/samples/landscape.jpg` }],
      }))
      const response = await h.t.live({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({ merchantReference: reference, items, ...extra }),
      })
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id as string
      const shipment = await waitFor(
        `the lab job of ${orderId}`,
        async () => {
          const order = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          const first = order.shipments[0]
          if (!first) return undefined
          const jobs = await h.t.app.services.labs.listJobs(first.fulfillmentLocation.labCode)
          return jobs.some((job) => job.shipmentId === first.id) ? first : undefined
        },
        60_000,
      )
      labCode ??= shipment.fulfillmentLocation.labCode
      assert.equal(shipment.fulfillmentLocation.labCode, labCode, 'every test order goes to one lab')
      return { orderId, shipmentId: shipment.id }
    }

    async function signedInPage(viewport: 'desktop' | 'phone' = 'desktop'): Promise<Page> {
      const context = await newContext(h.browser, viewport)
      const page = await context.newPage()
      await page.goto(`${h.urls.live}${PORTAL}/`)
      await page.getByLabel('Lab key').fill(labKey)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/labs\/portal\/jobs/)
      return page
    }

    /** Turns the browser's own form checks off, so that the server's answer to a wrong value shows. */
    const skipBrowserChecks = (page: Page) =>
      page.evaluate("document.querySelectorAll('form').forEach((form) => { form.noValidate = true })")

    /** The page's text, for checks that read like what a person sees. */
    const mainText = (page: Page) => page.locator('main').innerText()

    before(async () => {
      h = await startDashboardHarness(kind)
    })
    after(() => h.close())

    test('a wrong key is refused; a lab key signs in with a session that is not the key; sign out ends it', async () => {
      const first = await placeLiveOrder(1, 'PORTAL-SIGN-IN')
      labKey = (await h.t.app.services.labs.createLabKey(labCode, TEST_ACTOR)).key
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await page.goto(`${h.urls.live}${PORTAL}/jobs`)
      assert.match(page.url(), /\/labs\/portal\/sign-in\?next=%2Flabs%2Fportal%2Fjobs$/)
      await assertAccessible(page, 'lab portal sign-in')
      await page.getByLabel('Lab key').fill('pr_lab_not-a-real-key')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').getByText('That lab key is not valid').waitFor()
      await page.getByLabel('Lab key').fill(h.t.account.liveKey)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').getByText('That is not a lab key').waitFor()
      assert.deepEqual(await context.cookies(), [], 'no session for a wrong key')

      await page.getByLabel('Lab key').fill(labKey)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/labs\/portal\/jobs$/)
      const cookies = await context.cookies()
      assert.equal(cookies.length, 1)
      assert.equal(cookies[0]?.name, 'printroute_lab_session')
      assert.equal(cookies[0]?.httpOnly, true)
      assert.equal(cookies[0]?.sameSite, 'Strict')
      assert.ok(!cookies[0]?.value.includes(labKey.slice(7)), 'the cookie is not the key')
      assert.match(await mainText(page), new RegExp(first.shipmentId))
      // A lab session is no merchant session: the dashboard and the API do not take it.
      const dashboard = await page.goto(`${h.urls.live}/dashboard/orders`)
      assert.match(dashboard?.url() ?? '', /\/dashboard\/sign-in/)

      await page.goto(`${h.urls.live}${PORTAL}/jobs`)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor()
      await page.goto(`${h.urls.live}${PORTAL}/jobs`)
      assert.match(page.url(), /\/labs\/portal\/sign-in/)
      await context.close()
    })

    test('the queue groups the jobs with counts, earliest ship-by first; a job is acknowledged, made and shipped', async () => {
      const job = await placeLiveOrder(2, 'PORTAL-SHIP')
      const page = await signedInPage()
      const views = page.getByRole('navigation', { name: 'Job views' })
      const count = async (label: string) =>
        Number(
          (
            await views
              .getByRole('link', { name: new RegExp(`^${label}`) })
              .locator('.badge')
              .innerText()
          ).trim(),
        )
      const jobs = await h.t.app.services.labs.listJobs(labCode)
      assert.equal(await count('All open'), jobs.length)
      assert.equal(await count('New'), jobs.filter((candidate) => candidate.state === 'submitted').length)
      const rows = await page.locator('table.lab-jobs tbody th').allInnerTexts()
      const expected = [...jobs]
        .sort((a, b) => (a.shipBy ?? '9999').localeCompare(b.shipBy ?? '9999'))
        .map((candidate) => candidate.shipmentId)
      assert.deepEqual(
        rows.map((row) => row.trim()),
        expected,
        'sorted by ship-by date',
      )
      await assertAccessible(page, 'lab portal queue')
      await screenshotForDocs(page, 'portal-queue', 'labs')

      await page.getByRole('link', { name: job.shipmentId }).click()
      await page.getByRole('heading', { name: `Job ${job.shipmentId}` }).waitFor()
      assert.equal(await assertImagesLoaded(page), 2, 'a preview of each print file')
      const downloads = page.getByRole('link', { name: /^Download default/ })
      assert.equal(await downloads.count(), 2)
      const file = await page.request.get((await downloads.first().getAttribute('href')) ?? '')
      assert.equal(file.status(), 200, 'the download link is the signed print file')
      assert.match(await mainText(page), /Ada Lovelace/)
      assert.match(await mainText(page), /14 Test Street/)
      // What to make and how to send it: the product's description, the carrier and service it was priced with.
      const given = await h.t.app.services.labs.getJob(labCode, job.shipmentId)
      const description = given.items[0]?.description ?? ''
      assert.notEqual(description, PHONE_CASE)
      assert.equal(
        await page.locator('.item-description', { hasText: description }).count(),
        2,
        "each item shows its product's description",
      )
      const priced = `${given.carrier.name} · ${given.carrier.service}`
      assert.match(await page.locator('dl.facts').innerText(), new RegExp(`Carrier and service\\s+${priced}`))
      await assertAccessible(page, 'lab portal job')
      await screenshotForDocs(page, 'portal-job', 'labs')

      await page.getByRole('button', { name: 'Acknowledge' }).click()
      await page.getByText(`${job.shipmentId}: acknowledged.`).waitFor()
      assert.equal(await page.getByRole('button', { name: 'Acknowledge' }).count(), 0)
      await page.getByRole('button', { name: 'Mark in production' }).click()
      await page.getByText(`${job.shipmentId}: in production.`).waitFor()

      // The ship form starts with the priced carrier and service. A refusal is shown beside its form, the values
      // kept, never an error page.
      const ship = page.locator('form', { has: page.getByRole('button', { name: 'Record parcel as shipped' }) })
      assert.equal(await ship.getByLabel('Carrier').inputValue(), given.carrier.name)
      assert.equal(await ship.getByLabel('Service').inputValue(), given.carrier.service)
      await ship.getByLabel('Carrier').fill('Royal Mail')
      await ship.getByLabel('Service').fill('')
      await ship.getByLabel('Tracking number (optional)').fill('RM123456789GB')
      // The browser's own check (required) would stop the form first; the server's answer is what is tested.
      await skipBrowserChecks(page)
      await ship.getByRole('button', { name: 'Record parcel as shipped' }).click()
      const summary = page.getByRole('alert').filter({ hasText: 'The parcel was not recorded' })
      await summary.waitFor()
      assert.match(await summary.innerText(), /Service is required/)
      assert.doesNotMatch(await summary.innerText(), /Tracking link/, 'the tracking link is optional')
      assert.equal(await ship.getByLabel('Carrier').inputValue(), 'Royal Mail')
      assert.equal(await ship.getByLabel('Service').getAttribute('aria-invalid'), 'true')
      await assertAccessible(page, 'lab portal job with a refused form')

      // A tracking number without its link is a parcel.
      await ship.getByLabel('Service').fill('Tracked 48')
      await ship.getByRole('button', { name: 'Record parcel as shipped' }).click()
      await page.waitForURL(/\/labs\/portal\/jobs$/)
      await page.getByText(`${job.shipmentId}: parcel recorded as shipped.`).waitFor()
      assert.equal(await page.getByRole('link', { name: job.shipmentId }).count(), 0, 'a shipped job leaves the queue')
      const order = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/${job.orderId}` })).order
      const shipped = order.shipments.find((candidate: { id: string }) => candidate.id === job.shipmentId)
      assert.equal(shipped.status, 'Shipped')
      assert.deepEqual(shipped.carrier, { name: 'Royal Mail', service: 'Tracked 48' })
      assert.deepEqual(shipped.tracking, { number: 'RM123456789GB', url: '' })

      // The shipped job is in the History, found by its tracking number; its page is its record, without forms.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'History' }).click()
      await page.getByRole('heading', { name: 'History' }).waitFor()
      await page.getByLabel('Search', { exact: true }).fill('rm123456789')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.waitForURL(/\/labs\/portal\/history\?q=rm123456789$/)
      assert.deepEqual(await page.locator('table.lab-jobs tbody th').allInnerTexts(), [job.shipmentId])
      const row = page.locator('table.lab-jobs tbody tr')
      assert.match(await row.innerText(), /Shipped/)
      assert.match(await row.innerText(), /RM123456789GB/)
      const slip = await page.request.get((await row.getByRole('link', { name: 'PDF' }).getAttribute('href')) ?? '')
      assert.equal(slip.status(), 200, "a shipped job's packing slip prints again")
      await assertAccessible(page, 'lab portal history')
      await screenshotForDocs(page, 'portal-history', 'labs')
      await page.getByLabel('Search', { exact: true }).fill('nothing-matches-this')
      await page.getByRole('button', { name: 'Search' }).click()
      await page.getByText('No closed job matches “nothing-matches-this”.').waitFor()
      await page.goto(`${h.urls.live}${PORTAL}/history?q=PORTAL-SHIP`)
      assert.deepEqual(await page.locator('table.lab-jobs tbody th').allInnerTexts(), [job.shipmentId], 'by reference')

      await page.getByRole('link', { name: job.shipmentId }).click()
      await page.getByRole('heading', { name: `Job ${job.shipmentId}` }).waitFor()
      const parcels = page.getByRole('region', { name: 'Parcels' })
      assert.match(await parcels.innerText(), /Royal Mail · Tracked 48/)
      assert.match(await parcels.innerText(), /RM123456789GB/)
      assert.match(await mainText(page), /This job is shipped: nothing more to report here/)
      assert.equal(await page.getByRole('button').filter({ hasNotText: 'Sign out' }).count(), 0, 'read-only')
      await assertAccessible(page, 'lab portal shipped job')
      await page.context().close()
    })

    test('a whole job is rejected with a reason; a file defect needs its description', async () => {
      const job = await placeLiveOrder(1, 'PORTAL-REJECT')
      const page = await signedInPage()
      await page.goto(`${h.urls.live}${PORTAL}/jobs/${job.shipmentId}`)
      const reject = page.locator('form', { has: page.getByRole('button', { name: 'Reject' }) })
      await reject.getByLabel('Reason').selectOption('FileDefect')
      await reject.getByRole('button', { name: 'Reject' }).click()
      const summary = page.getByRole('alert').filter({ hasText: 'The rejection was not recorded' })
      await summary.waitFor()
      assert.match(await summary.innerText(), /Description.* is required/)
      await reject.getByLabel(/^Description/).fill('The image is cut off at the top edge')
      await reject.getByRole('button', { name: 'Reject' }).click()
      await page.waitForURL(/\/labs\/portal\/jobs$/)
      await page.getByText(`${job.shipmentId}: rejected`).waitFor()
      const order = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/${job.orderId}` })).order
      assert.ok(
        order.shipments.every((candidate: { id: string }) => candidate.id !== job.shipmentId),
        'the rejected shipment left the order',
      )
      await page.context().close()
    })

    test('the capacity is set from the queue; a wrong number is refused beside the field', async () => {
      const page = await signedInPage()
      const capacity = page.getByRole('region', { name: /^Today/ })
      await capacity.getByLabel('How many more jobs can you take today?').fill('-3')
      // The browser's own check stops a negative number; the server's answers when it is bypassed.
      await skipBrowserChecks(page)
      await capacity.getByRole('button', { name: 'Save capacity' }).click()
      await page.getByRole('alert').filter({ hasText: 'The capacity was not saved' }).waitFor()
      assert.match(await capacity.innerText(), /must be a whole number/)
      await capacity.getByLabel('How many more jobs can you take today?').fill('12')
      await capacity.getByRole('button', { name: 'Save capacity' }).click()
      await page.getByText('Saved: you can take 12 more jobs today.').waitFor()
      assert.equal((await h.t.app.services.labs.capacity(labCode)).jobsToday, 12)
      assert.match(await page.getByRole('region', { name: /^Today/ }).innerText(), /You said you can take\s+12/)
      await page.context().close()
    })

    test('at phone width the queue and a job page fit the screen', async () => {
      const job = await placeLiveOrder(1, 'PORTAL-PHONE')
      const page = await signedInPage('phone')
      await setViewport(page, 'phone')
      const overflow = () =>
        page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')
      assert.equal(await overflow(), 0, 'the queue does not scroll sideways')
      await screenshotForDocs(page, 'portal-phone-queue', 'labs')
      await page.goto(`${h.urls.live}${PORTAL}/jobs/${job.shipmentId}`)
      assert.equal(await overflow(), 0, 'the job page does not scroll sideways')
      await assertAccessible(page, 'lab portal job at phone width')
      await screenshotForDocs(page, 'portal-phone', 'labs')
      await page.goto(`${h.urls.live}${PORTAL}/history`)
      await page.context().close()
    })

    test('cancel part: the merchant asks to cancel, the lab answers cancelled from the job page', async () => {
      const job = await placeLiveOrder(1, 'PORTAL-CANCEL')
      const page = await signedInPage()
      // With nothing asked, the portal refuses an answer (the form is not even shown).
      await page.goto(`${h.urls.live}${PORTAL}/jobs/${job.shipmentId}`)
      assert.equal(await page.getByRole('heading', { name: 'The merchant asks to cancel this job' }).count(), 0)

      const cancelling = h.t.live({ method: 'POST', url: `/v4.0/orders/${job.orderId}/actions/cancel` })
      await waitFor('the cancellation request in the job', async () => {
        const listed = (await h.t.app.services.labs.listJobs(labCode)).find(
          (candidate) => candidate.shipmentId === job.shipmentId,
        )
        return listed?.cancellationRequested ? true : undefined
      })
      await page.goto(`${h.urls.live}${PORTAL}/jobs/${job.shipmentId}`)
      await page.getByRole('heading', { name: 'The merchant asks to cancel this job' }).waitFor()
      await assertAccessible(page, 'lab portal job with a cancellation request')
      await page.getByRole('button', { name: /^Cancelled/ }).click()
      await page.getByText(`${job.shipmentId}: cancelled, as the merchant asked.`).waitFor()
      const answer = json(await cancelling)
      assert.equal(answer.outcome, 'Cancelled')
      await page.context().close()
    })

    test('items part: a job pushed, acknowledged, shipped in two parcels, and one item rejected and re-routed', async () => {
      // Every lab pushes to a receiver here, so the job's lab (whichever it is) is heard from.
      const receiver = await startCallbackReceiver()
      const merchantFiles = await startImageServer({
        '/slip.pdf': { body: Buffer.from('%PDF-1.4\n% merchant packing slip\n'), type: 'application/pdf' },
      })
      const secrets = new Map<string, string>()
      try {
        for (const { code } of catalogue.labs) {
          const configured = await h.t.app.services.labPushes.configure(
            code,
            { pushUrl: receiver.url(`/lab/${code}`) },
            TEST_ACTOR,
          )
          secrets.set(code, configured.secret as string)
        }
        const job = await placeLiveOrder(3, 'PORTAL-PARCELS', {
          packingSlip: { url: merchantFiles.url('slip.pdf') },
          branding: { flyer: { url: merchantFiles.url('flyer.jpg') } },
        })
        const created = await waitFor('the created push of the job', () =>
          receiver.received.find(
            (push) => push.event.type === 'com.printroute.lab.job.created' && push.event.subject === job.shipmentId,
          ),
        )
        assert.equal(created.url, `/lab/${labCode}`)
        const verified = new Webhook(secrets.get(labCode) as string).verify(
          created.body,
          created.headers as Record<string, string>,
        ) as { data: { job: { shipmentId: string } } }
        assert.equal(verified.data.job.shipmentId, job.shipmentId)
        const listed = await waitFor('the job with its packing slip', async () => {
          const found = (await h.t.app.services.labs.listJobs(labCode)).find(
            (candidate) => candidate.shipmentId === job.shipmentId,
          )
          return found?.packingSlipPdf ? found : undefined
        })
        assert.deepEqual(
          listed.items.map((item) => item.state),
          ['open', 'open', 'open'],
        )
        const [first, second, third] = listed.items.map((item) => item.itemId) as [string, string, string]
        await portalItems(job, first, second, third)
      } finally {
        for (const { code } of catalogue.labs) {
          await h.t.app.services.labPushes.configure(code, { removePush: true }, TEST_ACTOR)
        }
        await receiver.close()
        await merchantFiles.close()
      }
    })

    /** The items part's browser steps: the job's links, acknowledge, one item rejected, two parcels. */
    async function portalItems(
      job: { orderId: string; shipmentId: string },
      first: string,
      second: string,
      third: string,
    ): Promise<void> {
      const page = await signedInPage()
      await page.goto(`${h.urls.live}${PORTAL}/jobs/${job.shipmentId}`)
      const slip = await page.request.get(
        (await page.getByRole('link', { name: 'Packing slip (PDF)' }).getAttribute('href')) ?? '',
      )
      assert.equal(slip.status(), 200, "printroute's packing slip link answers")
      assert.equal(slip.headers()['content-type'], 'application/pdf')
      const merchantSlip = await page.request.get(
        (await page.getByRole('link', { name: "Merchant's packing slip" }).getAttribute('href')) ?? '',
      )
      assert.equal(merchantSlip.status(), 200, "the merchant's own packing slip is linked")
      assert.equal(await page.getByRole('link', { name: 'Branding: flyer' }).count(), 1, 'and its branding')

      await page.getByRole('button', { name: 'Acknowledge' }).click()
      await page.getByText(`${job.shipmentId}: acknowledged.`).waitFor()

      const reject = page.locator('form', { has: page.getByRole('button', { name: 'Reject' }) })
      await reject.getByRole('checkbox', { name: new RegExp(third) }).check()
      await reject.getByLabel('Reason').selectOption('OutOfStock')
      await reject.getByRole('button', { name: 'Reject' }).click()
      await page.getByText(`${job.shipmentId}: rejected`).waitFor()
      await assertAccessible(page, 'lab portal job with an item rejected')
      const rerouted = await waitFor('the rejected item allocated again', async () => {
        const routing = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/${job.orderId}/routing` })).routing
        return routing.allocations
          .flatMap((round: { reroutedItems?: { itemId: string }[] }) => round.reroutedItems ?? [])
          .find((entry: { itemId: string }) => entry.itemId === third)
      })
      assert.deepEqual(rerouted, {
        itemId: third,
        fromShipmentId: job.shipmentId,
        fromLabCode: labCode,
        reason: 'OutOfStock',
      })

      const printed = page.locator('form', { has: page.getByRole('button', { name: 'Mark printed' }) })
      await printed.getByRole('checkbox', { name: new RegExp(first) }).check()
      await printed.getByRole('button', { name: 'Mark printed' }).click()
      await page.getByText(`${job.shipmentId}: items marked printed.`).waitFor()

      const parcel = async (itemId: string, tracking: string) => {
        const ship = page.locator('form', { has: page.getByRole('button', { name: 'Record parcel as shipped' }) })
        await ship.getByRole('checkbox', { name: new RegExp(itemId) }).check()
        await ship.getByLabel('Carrier').fill('DPD')
        await ship.getByLabel('Service').fill('Next Day')
        await ship.getByLabel('Tracking number (optional)').fill(tracking)
        await ship.getByLabel('Tracking link (optional)').fill(`https://track.dpd.co.uk/parcels/${tracking}`)
        await ship.getByRole('button', { name: 'Record parcel as shipped' }).click()
        await page.getByText(`${job.shipmentId}: parcel recorded as shipped.`).waitFor()
      }
      await parcel(first, 'DPD0001')
      assert.match(page.url(), new RegExp(`/jobs/${job.shipmentId}$`), 'a job with items left to ship stays open')
      await parcel(second, 'DPD0002')
      await page.waitForURL(/\/labs\/portal\/jobs$/)

      const order = json(await h.t.live({ method: 'GET', url: `/v4.0/orders/${job.orderId}` })).order
      const shipped = order.shipments.find((candidate: { id: string }) => candidate.id === job.shipmentId)
      assert.equal(shipped.status, 'Shipped')
      assert.deepEqual(
        shipped.parcels.map((entry: { tracking: { number: string } }) => entry.tracking.number),
        ['DPD0001', 'DPD0002'],
      )
      assert.ok(
        !shipped.items.some((entry: { itemId: string }) => entry.itemId === third),
        'the rejected item left the shipment',
      )
      await page.context().close()
    }
  })
}
