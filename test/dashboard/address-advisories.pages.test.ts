// Address advisories on the dashboard (docs/dashboard.md): an order's page lists them beside its recipient, and the
// New order form places an order whose address has advisories only (a GB Express order without a phone number)
// instead of holding it back, while a problem that stops delivery still stops it. Rendered pages over HTTP, every
// database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

interface Session {
  cookie: string
  csrfToken: string
}

for (const kind of databaseKinds) {
  describe(`dashboard address advisories (${kind})`, () => {
    let t: TestApp
    let session: Session

    before(async () => {
      t = await startTestApp({ kind })
      const { key } = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, { scopes: null })
      const signedIn = await t.app.services.sessions.signIn(key, 'sandbox')
      assert.ok(signedIn.signedIn)
      session = { cookie: `${sessionCookieName('sandbox')}=${signedIn.token}`, csrfToken: signedIn.csrfToken }
    })
    after(async () => {
      await t.close()
    })

    const get = (url: string) => t.sandbox({ method: 'GET', url, headers: { cookie: session.cookie } }, null)
    const post = (url: string, form: [string, string][]) =>
      t.sandbox(
        {
          method: 'POST',
          url,
          payload: new URLSearchParams([['_csrf', session.csrfToken], ...form]).toString(),
          headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        },
        null,
      )

    test("an order's page lists its address advisories beside the recipient; an order without any shows none", async () => {
      const created = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            shippingMethod: 'Express',
            recipient: { ...(sampleOrder().recipient as object), phoneNumber: null },
          }),
        }),
      )
      assert.equal(created.outcome, 'Created')
      const page = await get(`/dashboard/orders/${created.order.id}`)
      assert.equal(page.statusCode, 200, page.body)
      assert.match(page.body, /<h3 id="advisories-heading">Address advisories<\/h3>/)
      assert.match(page.body, /<code>recipient\.phoneNumber<\/code> \(PhoneNumberRequired\)/)
      const plain = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }))
      const plainPage = await get(`/dashboard/orders/${plain.order.id}`)
      assert.equal(plainPage.statusCode, 200)
      assert.doesNotMatch(plainPage.body, /Address advisories/)
    })

    test('New order places an order whose address has advisories only; an undeliverable one is held back', async () => {
      const form = (reference: string, postcode: string): [string, string][] => [
        ['sku', PHONE_CASE],
        ['copies', '1'],
        ['sizing', 'fillPrintArea'],
        ['image.default', 'sample:square.jpg'],
        ['name', 'Mary Jackson'],
        ['line1', '14 Test Street'],
        ['postalOrZipCode', postcode],
        ['townOrCity', 'London'],
        ['countryCode', 'GB'],
        ['shippingMethod', 'Express'],
        ['merchantReference', reference],
      ]
      const placed = await post('/dashboard/new-order', form('advisory-only', 'EC1A 1BB'))
      assert.equal(placed.statusCode, 303, placed.body)
      assert.match(String(placed.headers.location), /\/orders\/ord_\d+$/)
      const orders = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?merchantReferences=advisory-only' }))
      assert.equal(orders.orders.length, 1)
      assert.deepEqual(
        orders.orders[0].addressAdvisories.map((advisory: { code: string }) => advisory.code),
        ['PhoneNumberRequired'],
      )

      const held = await post('/dashboard/new-order', form('undeliverable', 'NOT-A-POSTCODE'))
      assert.equal(held.statusCode, 400)
      assert.match(held.body, /is not a postcode of GB/)
      const none = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?merchantReferences=undeliverable' }))
      assert.deepEqual(none.orders, [])
    })
  })
}
