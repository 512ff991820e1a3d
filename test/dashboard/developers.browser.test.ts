// The Developers page in a real browser: redelivering a callback from the log across orders, reading the events
// feed (forward by cursor, and its newest page), the settings of each environment (callback URL, signing secret,
// test callback; the pause window changed on Live only), and the account's API keys (created and shown once, revoked, the session of a revoked key ended).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { eventWords } from '../../src/web/kit/format.ts'
import { CALLBACKS_PAGE_SIZE, EVENTS_PAGE_SIZE } from '../../src/web/merchant/developers.page.ts'
import { assertAccessible, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { HANG_BOUND_MS, waitFor } from '../support/wait.ts'

const databaseKinds = tier('browser')

/** Enough complete orders (four events each) that the feed and the callbacks log have a second page. */
const ORDERS = 6

async function noHorizontalScroll(page: Page): Promise<void> {
  const widths = (await page.evaluate(
    '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
  )) as { page: number; viewport: number }
  assert.ok(widths.page <= widths.viewport, `the page is ${widths.page} px wide in a ${widths.viewport} px viewport`)
}

for (const kind of databaseKinds) {
  describe(`dashboard Developers page (${kind})`, () => {
    let h: DashboardHarness
    let receiver: CallbackReceiver
    const orderIds: string[] = []
    /** The feed's events once every order is delivered, oldest first. */
    let events: { id: string; type: string }[] = []
    let eventIds: string[] = []

    before(async () => {
      receiver = await startCallbackReceiver()
      h = await startDashboardHarness(kind)
      for (let index = 0; index < ORDERS; index++) {
        orderIds.push(
          await h.placeOrder({ merchantReference: `dev-${index}`, callbackUrl: receiver.url(`/orders/${index}`) }),
        )
      }
      // The simulated carrier goes on after Complete until every parcel is delivered: only then are the events final.
      await waitFor(
        'the orders to be delivered',
        async () => {
          const answer = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/orders?top=10' }))
          return answer.orders.every((order: { deliveredAt?: string }) => order.deliveredAt !== undefined)
            ? true
            : undefined
        },
        HANG_BOUND_MS,
        250,
      )
      events = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/events?top=100' })).events
      eventIds = events.map((event) => event.id)
      assert.ok(eventIds.length > EVENTS_PAGE_SIZE, `${eventIds.length} events: more than a page`)
      await waitFor(
        'their callbacks to be delivered',
        async () => {
          const delivered = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/callbacks?status=delivered&top=100' }))
          return delivered.callbacks.length === eventIds.length ? true : undefined
        },
        HANG_BOUND_MS,
        250,
      )
    })
    after(async () => {
      await h.close()
      await receiver.close()
    })

    test('a callback redelivered from the log reaches the receiver again with the same event id, and the log shows it', async () => {
      // The first delivery on the log's second page of delivered callbacks, where the test redelivers it.
      const listed = json(
        await h.t.sandbox({ method: 'GET', url: `/v4.0/callbacks?status=delivered&top=1&skip=${CALLBACKS_PAGE_SIZE}` }),
      )
      const [original] = listed.callbacks as { id: string; eventId: string }[]
      assert.ok(original, 'a second page of delivered callbacks')
      assert.equal(receiver.received.filter((callback) => callback.event.id === original.eventId).length, 1)

      const page = await h.sandboxPage()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Developers' }).click()
      await page.waitForURL(/\/dashboard\/developers\/callbacks$/)
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Callbacks')
      await assertAccessible(page, 'developers-callbacks')
      await screenshotForDocs(page, 'developers-callbacks')

      // The filter narrows by status.
      await page.getByLabel('Status').selectOption('failed')
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(/status=failed/)
      await page.getByText('No failed callbacks.').waitFor()
      await page.getByLabel('Status').selectOption('delivered')
      await page.getByRole('button', { name: 'Filter' }).click()
      await page.waitForURL(/status=delivered/)

      // Paging: a delivery per event, so a second page.
      await page.getByRole('link', { name: 'Older' }).click()
      await page.waitForURL(new RegExp(`status=delivered&skip=${CALLBACKS_PAGE_SIZE}$`))
      const lastOnPage = Math.min(eventIds.length, 2 * CALLBACKS_PAGE_SIZE)
      await page.getByText(`Callbacks ${CALLBACKS_PAGE_SIZE + 1}–${lastOnPage}`).waitFor()

      await page.getByRole('button', { name: `Redeliver ${original.id}` }).click()
      const notice = page.getByRole('status').filter({ hasText: `Callback ${original.id} is being sent again as` })
      await notice.waitFor()
      const redeliveryId = /as (cbd_\d+)\./.exec(await notice.innerText())?.[1]
      assert.ok(redeliveryId, 'the notice names the new delivery')
      assert.ok(
        page.url().endsWith(`/developers/callbacks?status=delivered&skip=${CALLBACKS_PAGE_SIZE}`),
        'back where it was',
      )

      await waitFor('the redelivery to arrive', () =>
        receiver.received.filter((callback) => callback.event.id === original.eventId).length === 2 ? true : undefined,
      )
      // The newest first: the redelivery heads the unfiltered log, delivered (after a refresh if it was pending).
      await page.goto(`${h.urls.sandbox}/dashboard/developers/callbacks`)
      const row = page.getByRole('row').filter({ hasText: redeliveryId })
      await row.getByText(`again for ${original.id}`).waitFor()
      await row.getByText('Delivered', { exact: true }).waitFor({ timeout: 10_000 })
    })

    test('the events feed reads forward by cursor, shows the newest page, each event with its JSON', async () => {
      const ids = eventIds
      const ofOrder = json(await h.t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${orderIds[1]}` })).events

      const page = await h.sandboxPage('desktop', `/dashboard/developers`)
      await page.getByRole('navigation', { name: 'Developers' }).getByRole('link', { name: 'Events' }).click()
      await page.waitForURL(/\/dashboard\/developers\/events$/)
      const entries = page.locator('.event-feed > li')
      assert.equal(await entries.count(), EVENTS_PAGE_SIZE)
      assert.deepEqual(
        await page.locator('.event-feed > li .event-head code').allInnerTexts(),
        ids.slice(0, EVENTS_PAGE_SIZE),
      )
      const first = entries.first()
      const firstText = await first.innerText()
      const firstType = events[0]?.type ?? ''
      assert.ok(firstText.includes(eventWords(firstType)) && firstText.includes(firstType), firstText)
      await first.getByText('Event JSON').click()
      assert.equal(JSON.parse(await first.locator('pre').innerText()).id, ids[0])
      await assertAccessible(page, 'developers-events')
      await screenshotForDocs(page, 'developers-events')

      await page.getByRole('link', { name: 'Newer events' }).click()
      await page.waitForURL(new RegExp(`after=${ids[EVENTS_PAGE_SIZE - 1]}$`))
      assert.deepEqual(
        await page.locator('.event-feed > li .event-head code').allInnerTexts(),
        ids.slice(EVENTS_PAGE_SIZE, 2 * EVENTS_PAGE_SIZE),
      )

      await page.getByRole('link', { name: 'Newest', exact: true }).click()
      await page.waitForURL(/\/developers\/events\/newest$/)
      await page.getByRole('heading', { name: 'Newest events' }).waitFor()
      assert.deepEqual(
        await page.locator('.event-feed > li .event-head code').allInnerTexts(),
        ids.slice(-EVENTS_PAGE_SIZE),
      )
      await page.getByText('These are the newest events.').waitFor()

      // One order's events, its link leading to the order.
      await page.getByLabel('Order ID').fill(orderIds[1] as string)
      await page.getByRole('button', { name: 'Show' }).click()
      await page.getByRole('heading', { name: `Oldest events of order ${orderIds[1]}` }).waitFor()
      assert.equal(await entries.count(), ofOrder.length)
      await entries.first().getByRole('link', { name: orderIds[1] }).click()
      await page.waitForURL(new RegExp(`/dashboard/orders/${orderIds[1]}$`))

      // A malformed cursor is the API's refusal, with the field.
      await page.goto(`${h.urls.sandbox}/dashboard/developers/events?after=yesterday`)
      assert.match(await page.getByRole('alert').innerText(), /after: InvalidFormat/)
    })

    test('a key created on the page is shown once, works, is listed by prefix, and once revoked is refused', async () => {
      const page = await h.sandboxPage('desktop', `/dashboard/developers/keys`)
      await assertAccessible(page, 'developers-keys')

      await page.getByRole('button', { name: 'Create a Sandbox key' }).click()
      await page.getByText('Copy it now, it is not shown again.').waitFor()
      const key = await page.locator('#new-key').innerText()
      assert.match(key, /^pr_sandbox_/)
      assert.match(page.url(), /\/dashboard\/developers\/keys$/, 'the key is not in the URL')
      assert.ok(
        !(await page.context().cookies()).some((cookie) => cookie.value.includes(key.slice(11))),
        'nor in a cookie',
      )
      await assertAccessible(page, 'developers-keys (a new key)')
      await screenshotForDocs(page, 'developers-keys')

      const works = await fetch(`${h.urls.sandbox}/v4.0/orders?top=1`, { headers: { 'x-api-key': key } })
      assert.equal(works.status, 200)
      const listed = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/keys' })).keys as { prefix: string }[]
      const prefix = listed.find((candidate) => key.startsWith(candidate.prefix))?.prefix
      assert.ok(prefix, 'the new key is listed by its prefix')

      await page.goto(`${h.urls.sandbox}/dashboard/developers/keys`)
      assert.ok(!(await page.content()).includes(key), 'shown once: not on the next visit')
      const row = page.getByRole('row').filter({ hasText: prefix })
      await row.getByText('Active').waitFor()
      // A Sandbox session cannot revoke Live keys: it says where to.
      const liveRow = page.getByRole('row').filter({ hasText: 'pr_live_' }).first()
      await liveRow.getByRole('link', { name: 'Live dashboard' }).waitFor()

      await row.getByRole('link', { name: `Revoke ${prefix}` }).click()
      await page.getByRole('heading', { name: `Revoke key ${prefix}…?` }).waitFor()
      assert.equal(await page.getByText('This is the key you signed in with').count(), 0, 'not the session key')
      await page.getByRole('button', { name: 'Revoke key' }).click()
      await page.getByRole('status').getByText(`Key ${prefix}… is revoked`).waitFor()
      await page.getByRole('row').filter({ hasText: prefix }).getByText('Revoked').waitFor()
      const refused = await fetch(`${h.urls.sandbox}/v4.0/orders?top=1`, { headers: { 'x-api-key': key } })
      assert.equal(refused.status, 401)
    })

    test('revoking the key a session was made from says so first, then ends the session', async () => {
      const issued = json(await h.t.sandbox({ method: 'POST', url: '/v4.0/account/keys' })).key
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await signIn(page, h.urls.sandbox, issued.key)
      await page.goto(`${h.urls.sandbox}/dashboard/developers/keys`)
      await page
        .getByRole('row')
        .filter({ hasText: issued.prefix })
        .getByRole('link', { name: `Revoke ${issued.prefix}` })
        .click()
      await page.getByText('This is the key you signed in with.').waitFor()
      await assertAccessible(page, 'developers-keys (revoke confirmation)')
      await page.getByRole('button', { name: 'Revoke key' }).click()
      await page.waitForURL(/\/dashboard\/sign-in/)
      await page.getByRole('status').getByText('the session has ended').waitFor()
      await page.goto(`${h.urls.sandbox}/dashboard/orders`)
      assert.match(page.url(), /\/dashboard\/sign-in/, 'the session is over')
      await context.close()
    })

    test('Live settings: callback URL and pause window saved, an invalid URL refused with the field, the secret rotated', async () => {
      const context = await newContext(h.browser)
      const page = await context.newPage()
      await page.goto(`${h.urls.live}/dashboard/`)
      await page.getByLabel('API key').fill(h.t.account.liveKey)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(/\/dashboard\/orders/)
      await page.goto(`${h.urls.live}/dashboard/developers/settings`)
      await assertAccessible(page, 'developers-settings')

      const url = receiver.url('/account')
      await page.getByLabel('Callback URL').fill(url)
      await page.getByLabel('Pause window', { exact: true }).fill('30m')
      await page.getByRole('button', { name: 'Save settings' }).click()
      await page.getByRole('status').getByText('Settings saved').waitFor()
      assert.equal(await page.getByLabel('Callback URL').inputValue(), url)
      assert.equal(await page.getByLabel('Pause window', { exact: true }).inputValue(), '30m')
      const saved = json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings
      assert.equal(saved.callbackUrl, url)
      assert.equal(saved.pauseWindowSeconds, 1800)
      await screenshotForDocs(page, 'developers-settings')

      await page.getByLabel('Callback URL').fill('ftp://files.example.com/hook')
      await page.getByRole('button', { name: 'Save settings' }).click()
      const alert = page.getByRole('alert')
      await alert.waitFor()
      assert.match(await alert.innerText(), /callbackUrl: InvalidFormat/)
      assert.equal(await page.getByLabel('Callback URL').inputValue(), 'ftp://files.example.com/hook', 'kept to fix')
      await page.getByLabel('Callback URL').fill(url)
      await page.getByLabel('Pause window', { exact: true }).fill('2 weeks')
      await page.getByRole('button', { name: 'Save settings' }).click()
      assert.match(await page.getByRole('alert').innerText(), /pauseWindowSeconds: "2 weeks" is not a duration/)
      await page.getByLabel('Pause window', { exact: true }).fill('31d')
      await page.getByRole('button', { name: 'Save settings' }).click()
      assert.match(await page.getByRole('alert').innerText(), /pauseWindowSeconds: MustBeLessThanOrEqualTo 2592000/)
      const unchanged = json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings
      assert.equal(unchanged.pauseWindowSeconds, 1800, 'refusals change nothing')

      const before = unchanged.signingSecret as string
      assert.ok(!(await page.getByText(before).isVisible()), 'the secret is hidden until asked for')
      await page.getByText('Show the signing secret').click()
      assert.ok(await page.getByText(before).isVisible())
      await page.getByLabel('Overlap').fill('2h')
      await page.getByRole('button', { name: 'Rotate signing secret' }).click()
      await page.getByRole('status').getByText('the previous one too for 2h').waitFor()
      const rotated = json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings
      assert.notEqual(rotated.signingSecret, before)
      assert.ok(rotated.previousSigningSecretExpiresAt)
      await page.getByText('also signs until').waitFor()
      await context.close()
    })

    test("Sandbox settings: its own callback URL and secret, Live's untouched; the pause window read-only; a test callback sent", async () => {
      const liveBefore = json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings
      const page = await h.sandboxPage('desktop', `/dashboard/developers/settings`)
      await page.getByText('only a Live key changes it').waitFor()
      assert.equal(await page.getByLabel('Pause window', { exact: true }).count(), 0, 'no pause window field')
      assert.equal(
        await page.getByRole('link', { name: "Live dashboard's settings" }).getAttribute('href'),
        `${h.urls.live}/dashboard/developers/settings`,
      )
      await assertAccessible(page, 'developers-settings (Sandbox)')

      // No Sandbox callback URL yet and none typed: the test callback is refused, saying which field.
      await page.getByRole('button', { name: 'Send test callback' }).click()
      assert.match(await page.getByRole('alert').innerText(), /url: Required/)

      const hook = receiver.url('/sandbox-settings')
      await page.getByLabel('Sandbox callback URL').fill(hook)
      await page.getByRole('button', { name: 'Save settings' }).click()
      await page.getByRole('status').getByText('Settings saved').waitFor()
      await page.getByRole('button', { name: 'Send test callback' }).click()
      const sent = page.getByRole('status')
      await sent.getByText(/Test callback cbd_\d+ to .* delivered: HTTP 200/).waitFor()
      assert.match(await sent.innerText(), /the receiver said: thanks/)
      const received = receiver.received.filter((callback) => callback.url === '/sandbox-settings')
      assert.equal(received.length, 1)
      assert.match(String(received[0]?.event.type), /^com\.[a-z0-9-]+\.test$/)

      const closed = await startCallbackReceiver()
      const closedUrl = closed.url('/gone')
      await closed.close()
      await page.getByLabel('Send to').fill(closedUrl)
      await page.getByRole('button', { name: 'Send test callback' }).click()
      assert.match(await page.getByRole('alert').innerText(), /failed: no answer/)
      await page.goto(`${h.urls.sandbox}/dashboard/developers/callbacks?status=failed`)
      await page.getByRole('row').filter({ hasText: 'Test callback' }).first().waitFor()

      await page.goto(`${h.urls.sandbox}/dashboard/developers/settings`)
      const sandboxBefore = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings
      await page.getByLabel('Overlap').fill('0')
      await page.getByRole('button', { name: 'Rotate signing secret' }).click()
      await page.getByRole('status').getByText('the new one alone signs').waitFor()
      const sandboxAfter = json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings
      assert.notEqual(sandboxAfter.signingSecret, sandboxBefore.signingSecret)
      assert.equal(sandboxAfter.callbackUrl, hook)
      const liveAfter = json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings
      assert.deepEqual(liveAfter, liveBefore, "Live's settings are untouched by Sandbox")
    })

    test("address checks and callback events: Sandbox's saved from the settings page, Live's untouched", async () => {
      const page = await h.sandboxPage('desktop', `/dashboard/developers/settings`)
      const group = page.getByRole('group', { name: 'When an address cannot be delivered to' })
      assert.equal(await group.getByRole('radio', { name: /Create the order with a warning/ }).isChecked(), true)
      await group.getByRole('radio', { name: /Refuse the order/ }).check()
      await page.getByRole('button', { name: 'Save address checks' }).click()
      await page.getByRole('status').getByText('orders with an undeliverable address are refused').waitFor()
      assert.equal(await group.getByRole('radio', { name: /Refuse the order/ }).isChecked(), true)
      await assertAccessible(page, 'developers-settings address checks')
      assert.equal(
        json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings.addressValidation,
        'refuse',
      )
      assert.equal(
        json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings.addressValidation,
        'warn',
      )

      await group.getByRole('radio', { name: /Create the order with a warning/ }).check()
      await page.getByRole('button', { name: 'Save address checks' }).click()
      await page.getByRole('status').getByText('created with a warning').waitFor()
      assert.equal(
        json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings.addressValidation,
        'warn',
      )

      await group.getByRole('radio', { name: /Check no addresses/ }).check()
      await page.getByRole('button', { name: 'Save address checks' }).click()
      await page.getByRole('status').getByText('addresses are not checked').waitFor()
      assert.equal(
        json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings.addressValidation,
        'off',
      )
      await group.getByRole('radio', { name: /Create the order with a warning/ }).check()
      await page.getByRole('button', { name: 'Save address checks' }).click()
      await page.getByRole('status').getByText('created with a warning').waitFor()

      const events = page.getByRole('group', { name: 'Send to callback URLs' })
      assert.equal(await events.getByRole('radio', { name: /Every event type/ }).isChecked(), true)
      await events.getByRole('radio', { name: /Only the Prodigi Print API/ }).check()
      await page.getByRole('button', { name: 'Save callback events' }).click()
      await page.getByRole('status').getByText("only the Prodigi Print API's event types").waitFor()
      assert.equal(await events.getByRole('radio', { name: /Only the Prodigi Print API/ }).isChecked(), true)
      await assertAccessible(page, 'developers-settings callback events')
      assert.equal(
        json(await h.t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings.callbackEvents,
        'prodigi',
      )
      assert.equal(
        json(await h.t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings.callbackEvents,
        'all',
      )
      await events.getByRole('radio', { name: /Every event type/ }).check()
      await page.getByRole('button', { name: 'Save callback events' }).click()
      await page.getByRole('status').getByText('every event type').waitFor()
    })

    test('at phone width each view fits the screen and stays accessible', async () => {
      const page = await h.sandboxPage('phone')
      for (const view of ['callbacks', 'events', 'settings', 'keys', 'activity']) {
        await page.goto(`${h.urls.sandbox}/dashboard/developers/${view}`)
        await screenshotForDocs(page, `developers-${view}-phone`)
        await noHorizontalScroll(page)
        await assertAccessible(page, `developers-${view} (phone)`)
      }
    })
  })
}
