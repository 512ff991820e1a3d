// The Developers page warns about each webhook endpoint printroute disabled for failing, on every view, in a real
// browser; a session whose key may not manage webhooks is not shown it (it could not act on it). How an endpoint
// comes to be disabled is test/callbacks/webhooks.failures.test.ts's: here one is put in that state directly.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import {
  insertWebhookEndpoint,
  recordWebhookAttempt,
  updateWebhookEndpoint,
} from '../../src/repositories/webhook-endpoints.repository.ts'
import { assertAccessible, newContext, screenshotForDocs, signIn } from '../support/browser.ts'
import { type DashboardHarness, startDashboardHarness } from '../support/dashboard.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('browser')

for (const kind of databaseKinds) {
  describe(`dashboard: webhook endpoints disabled for failing (${kind})`, () => {
    let h: DashboardHarness
    let failingId = ''

    before(async () => {
      h = await startDashboardHarness(kind)
      const { db } = h.t.database
      const base = {
        accountId: parseId('acc', h.t.account.id) as number,
        environment: 'sandbox' as const,
        description: null,
        eventTypes: [],
        metadataFilter: {},
        enabled: true,
        signingSecret: 'whsec_c2VjcmV0IG9mIHRoZSBzaG9w',
        at: new Date(),
      }
      const failing = await insertWebhookEndpoint(db, { ...base, url: 'https://shop.example.com/hooks/printroute' })
      // Failing since 3 days and an hour ago, then disabled by printroute.
      await recordWebhookAttempt(db, failing.id, {
        succeeded: false,
        at: new Date(Date.now() - (3 * 86_400 + 3600) * 1000),
      })
      await updateWebhookEndpoint(db, failing.id, { enabled: { enabled: false, reason: 'failing' }, at: new Date() })
      failingId = `whk_${failing.id}`
      // Switched off by hand, and a healthy one: no banner for either.
      const manual = await insertWebhookEndpoint(db, { ...base, url: 'https://erp.example.com/hook' })
      await updateWebhookEndpoint(db, manual.id, { enabled: { enabled: false, reason: 'manual' }, at: new Date() })
      await insertWebhookEndpoint(db, { ...base, url: 'https://support.example.com/hook' })
    })
    after(async () => {
      await h.close()
    })

    test('each endpoint disabled for failing gets a banner on every Developers view', async () => {
      const page = await h.sandboxPage('desktop', '/dashboard/developers/callbacks')
      const banner = page.getByRole('region', { name: 'Webhook endpoints disabled' })
      await banner.waitFor()
      const items = await banner.getByRole('listitem').allTextContents()
      assert.equal(items.length, 1)
      assert.match(
        items[0] ?? '',
        new RegExp(
          `^Webhook endpoint ${failingId} \\(https://shop\\.example\\.com/hooks/printroute\\) was disabled on .+ after failing since .+: fix it, re-enable it and redeliver what it missed\\.$`,
        ),
      )
      await assertAccessible(page, 'developers (a webhook endpoint disabled)')
      await screenshotForDocs(page, 'developers-webhook-disabled')
      for (const view of ['events', 'settings', 'keys', 'activity']) {
        await page.goto(`${h.urls.sandbox}/dashboard/developers/${view}`)
        await page.getByRole('region', { name: 'Webhook endpoints disabled' }).getByText(failingId).waitFor()
      }
    })

    test('a session whose key may not manage webhooks is not shown it', async () => {
      const scoped = json(
        await h.t.sandbox({
          method: 'POST',
          url: '/v4.0/account/keys',
          payload: { scopes: ['orders:read', 'account:read'] },
          headers: { 'content-type': 'application/json' },
        }),
      ).key
      const context = await newContext(h.browser)
      const page = await context.newPage()
      try {
        await signIn(page, h.urls.sandbox, scoped.key)
        await page.goto(`${h.urls.sandbox}/dashboard/developers/events`)
        await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor()
        assert.equal(await page.getByRole('region', { name: 'Webhook endpoints disabled' }).count(), 0)
      } finally {
        await context.close()
      }
    })
  })
}
