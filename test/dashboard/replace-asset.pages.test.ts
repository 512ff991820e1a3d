// The order page's form to replace a held file (docs/dashboard.md): an item held by PreflightFailed shows a form
// for its asset; posting a good file's URL replaces it through POST /v4.0/orders/{id}/actions/replaceAsset, the
// pipeline downloads and checks it, and the form is gone. Rendered pages over HTTP, real files on 127.0.0.1, the
// pipeline stepped by the driver.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sessionCookieName } from '../../src/domain/session-cookie.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf, encryptedPdf } from '../support/preflight-files.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'

for (const kind of databaseKinds) {
  describe(`the order page's replace-a-held-file form (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    let session: { cookie: string; csrfToken: string }

    before(async () => {
      t = await startTestApp({ kind })
      const { key } = await t.app.services.accounts.createApiKey(t.account.id, 'sandbox', TEST_ACTOR, { scopes: null })
      const signedIn = await t.app.services.sessions.signIn(key, 'sandbox')
      assert.ok(signedIn.signedIn)
      session = { cookie: `${sessionCookieName('sandbox')}=${signedIn.token}`, csrfToken: signedIn.csrfToken }
      files = await startImageServer(
        {
          '/locked.pdf': await encryptedPdf(24),
          '/good.pdf': await bookPdf(24, { width: 297, height: 297 }, 3, { boxes: true, cmyk: true }),
        },
        null,
      )
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    const get = (url: string) => t.sandbox({ method: 'GET', url, headers: { cookie: session.cookie } }, null)

    test('a held item shows the form; posting a good file replaces it and the order goes on', async () => {
      const created = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [
              {
                sku: BOOK,
                copies: 1,
                sizing: 'fillPrintArea',
                assets: [{ printArea: 'default', url: files.url('locked.pdf'), pageCount: 24 }],
              },
            ],
          }),
        }),
      )
      const orderId = created.order.id as string
      const itemId = created.order.items[0].id as string
      const assetId = created.order.items[0].assets[0].id as string
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)

      const held = await get(`/dashboard/orders/${orderId}`)
      assert.equal(held.statusCode, 200, held.body)
      assert.match(held.body, /id="replace-asset-heading"/)
      assert.match(held.body, new RegExp(`data-replace-asset="${assetId}"`))
      assert.match(held.body, new RegExp(`name="itemId" value="${itemId}"`))

      const posted = await t.sandbox(
        {
          method: 'POST',
          url: `/dashboard/orders/${orderId}/replace-asset`,
          payload: new URLSearchParams([
            ['_csrf', session.csrfToken],
            ['itemId', itemId],
            ['printArea', 'default'],
            ['url', files.url('good.pdf')],
          ]).toString(),
          headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        },
        null,
      )
      assert.equal(posted.statusCode, 303, posted.body)
      assert.match(String(posted.headers.location), new RegExp(`/dashboard/orders/${orderId}`))
      const replaced = await drive.document(orderId)
      assert.equal(replaced.items[0]?.assets[0]?.url, files.url('good.pdf'))

      const downloaded = await drive.download(orderId)
      assert.equal(downloaded.document.items[0]?.status, 'Ok')
      const after = await get(`/dashboard/orders/${orderId}`)
      assert.doesNotMatch(after.body, /id="replace-asset-heading"/, 'nothing is held any more')
    })

    test('an order with nothing held shows no form', async () => {
      const plain = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }))
      const page = await get(`/dashboard/orders/${plain.order.id}`)
      assert.equal(page.statusCode, 200)
      assert.doesNotMatch(page.body, /id="replace-asset-heading"/)
    })
  })
}
