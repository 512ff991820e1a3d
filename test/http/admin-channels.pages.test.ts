// The console's channels (docs/admin.md#channels), read-only, on one app with channels of two accounts: every
// account's channels listed with the account, type, store, state (a failing one first, with why), its store orders
// waiting as not connected and when it last received one; `?account=` narrows the list to one account; an account's
// page has a line per channel linking to its row.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { consoleAccountsOf } from '../../src/services/operator/console-sections.ts'
import { registerAccountsPages } from '../../src/web/operator/accounts.pages.ts'
import { registerChannelsPages } from '../../src/web/operator/channels.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { shopifyWebhookHeaders } from '../support/shopify-stand-in.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const fixture = readFileSync(new URL('../fixtures/shopify/orders-create.json', import.meta.url), 'utf8')

const databases = tier('http')

for (const kind of databases) {
  describe(`console channels (${kind})`, () => {
    let t: TestApp
    let pages: AdminPagesHarness
    let first: string
    let second: string
    let otherAccount: string

    before(async () => {
      t = await startTestApp({ kind })
      const { services } = t.app
      pages = await startAdminPages(async (scope, shell) => {
        registerChannelsPages(scope, shell, services.adminViews.channels)
        registerAccountsPages(
          scope,
          shell,
          consoleAccountsOf(services.accounts, services.payments, services.catalogueVersions),
          services.adminViews.channels,
        )
      })
      const create = async (shopDomain: string, key?: string) => {
        const response = await t.live(
          {
            method: 'POST',
            url: '/v4.0/channels',
            headers: { 'content-type': 'application/json' },
            payload: {
              type: 'shopify',
              name: shopDomain.split('.')[0],
              shopDomain,
              adminAccessToken: 'shpat_x',
              webhookSecret: 'shpss_x',
            },
          },
          key,
        )
        assert.equal(response.statusCode, 201, response.body)
        return json(response).channel.id as string
      }
      first = await create('first-shop.myshopify.com')
      second = await create('second-shop.myshopify.com')
      const other = await t.createAccount()
      otherAccount = other.id
      await create('other-shop.myshopify.com', other.liveKey)
      // The first channel receives a store order with one item linked and one no link maps: it waits as not
      // connected.
      const linked = await t.live({
        method: 'POST',
        url: `/v4.0/channels/${first}/links`,
        headers: { 'content-type': 'application/json' },
        payload: {
          externalVariantId: '808950810',
          sku: 'GLOBAL-FAP-8x8',
          assets: [{ printArea: 'default', url: 'http://127.0.0.1:1/a.jpg' }],
        },
      })
      assert.equal(linked.statusCode, 201, linked.body)
      const received = await t.app.live.inject({
        method: 'POST',
        url: `/channels/v1/${first}/shopify`,
        headers: shopifyWebhookHeaders(fixture, 'shpss_x', 'orders/create', 'console-1', 'first-shop.myshopify.com'),
        payload: fixture,
      })
      assert.equal(received.statusCode, 200, received.body)
      const [kept] = await t.database.db.query<{ id: string | number }>('SELECT id FROM channel_webhooks')
      await services.channels.mapWebhook(Number(kept?.id))
      // The second one's store refused its last fulfilment.
      await t.database.db.query("UPDATE channels SET status = 'failing', status_reason = $2 WHERE id = $1", [
        Number(second.slice(4)),
        'fulfilment failed: Shopify answered HTTP 401',
      ])
    })
    after(async () => {
      await pages.close()
      await t.close()
    })

    test("every account's channels, failing first, with the account, store, state and waiting orders", async () => {
      const page = await pages.request('/admin/channels')
      assert.equal(page.status, 200, page.body)
      const order = [...page.body.matchAll(/data-channel="(chn_\d+)"/g)].map((match) => match[1])
      assert.equal(order.length, 3)
      assert.equal(order[0], second, 'the failing channel first')
      const rowOf = (id: string) => page.body.split(`data-channel="${id}"`)[1]?.split('</tr>')[0] ?? ''
      assert.match(rowOf(second), /Failing[\s\S]*Shopify answered HTTP 401/)
      assert.match(rowOf(first), new RegExp(t.account.id))
      assert.match(rowOf(first), /first-shop\.myshopify\.com/)
      assert.match(rowOf(first), /data-not-connected>1</)
      assert.doesNotMatch(rowOf(first), /none yet/, 'it received an order')
      assert.match(rowOf(second), /none yet/)
      assert.match(page.body, new RegExp(otherAccount))
    })

    test("one account's channels; its page links each channel to its row", async () => {
      const page = await pages.request(`/admin/channels?account=${otherAccount}`)
      assert.equal([...page.body.matchAll(/data-channel="chn_\d+"/g)].length, 1)
      assert.match(page.body, /other-shop\.myshopify\.com/)
      const account = await pages.request(`/admin/accounts/${t.account.id}`)
      assert.equal(account.status, 200, account.body)
      const lines = account.body.split('id="channels-heading"')[1]?.split('</section>')[0] ?? ''
      for (const id of [first, second]) {
        assert.ok(lines.includes(`href="/admin/channels?account=${t.account.id}#${id}"`), lines)
      }
      assert.match(lines, /Failing/)
      assert.match(lines, /1 not connected/)
    })
  })
}
