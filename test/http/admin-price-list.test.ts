// The console's price-list form on an account's page (docs/admin.md, docs/billing.md#price-lists): the account's
// list shown and chosen among the active catalogue's lists, set through the operator's one action (audited); an
// unknown list is refused with the console's words and changes nothing.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const CLI = { kind: 'cli', host: 'test-host', user: 'tester' } as const

const form = (values: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(values).toString(),
})

for (const kind of databaseKinds) {
  describe(`console price lists (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    async function session(): Promise<{ cookie: string; csrf: string }> {
      const { token } = await t.app.services.operators.createOperator('Prices', CLI)
      const body = form({ operatorToken: token })
      const response = await t.app.live.inject({ method: 'POST', url: '/admin/sign-in', ...body })
      const cookie = response.cookies.find((candidate) => candidate.name === 'printroute_admin_session')
      assert.ok(cookie)
      const header = `${cookie.name}=${cookie.value}`
      const page = await t.app.live.inject({ method: 'GET', url: '/admin/accounts', headers: { cookie: header } })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
      assert.ok(csrf)
      return { cookie: header, csrf }
    }

    /** Posts the form and follows the redirect to the page, with the notice it left. */
    async function post(cookie: string, url: string, values: Record<string, string>) {
      const body = form(values)
      const response = await t.app.live.inject({
        method: 'POST',
        url,
        headers: { ...body.headers, cookie },
        payload: body.payload,
      })
      assert.equal(response.statusCode, 303, response.body)
      const notice = response.cookies.find((candidate) => candidate.name === 'printroute_admin_notice')
      const cookies = notice ? `${cookie}; ${notice.name}=${notice.value}` : cookie
      return t.app.live.inject({
        method: 'GET',
        url: response.headers.location as string,
        headers: { cookie: cookies },
      })
    }

    test("an account's page shows its price list and sets another; an unknown list is refused", async () => {
      const { cookie, csrf } = await session()
      const account = await t.createAccount()
      const page = await t.app.live.inject({ method: 'GET', url: `/admin/accounts/${account.id}`, headers: { cookie } })
      assert.equal(page.statusCode, 200)
      assert.match(page.body, /<dt>Price list<\/dt><dd><span class="muted">the catalogue's default<\/span><\/dd>/)
      assert.match(
        page.body,
        /<select id="price-list" name="list"><option value="default" selected>The catalogue&#39;s default \(the labs&#39; costs\)<\/option><option value="retail">retail<\/option><option value="wholesale">wholesale<\/option><\/select>/,
      )

      const set = await post(cookie, `/admin/accounts/${account.id}/price-list`, { _csrf: csrf, list: 'retail' })
      assert.match(set.body, new RegExp(`${account.id} is priced on the price list retail\\.`))
      assert.match(set.body, /<dt>Price list<\/dt><dd>retail<\/dd>/)
      assert.match(set.body, /<option value="retail" selected>retail<\/option>/)
      assert.equal((await t.app.services.accounts.getAccount(account.id)).priceList, 'retail')
      const [entry] = await listAuditEvents(t.database.db, {
        actions: ['account.settingsChanged'],
        accountId: Number(account.id.slice(4)),
        limit: 5,
      })
      assert.equal(entry?.actorKind, 'operator')
      assert.deepEqual([entry?.before, entry?.after], ['{"priceList":null}', '{"priceList":"retail"}'])

      const refused = await post(cookie, `/admin/accounts/${account.id}/price-list`, { _csrf: csrf, list: 'gold' })
      assert.match(
        refused.body,
        /Price list: The active catalogue has no price list &quot;gold&quot; \(its lists: retail, wholesale\), or give &quot;default&quot; for its default list/,
      )
      assert.equal((await t.app.services.accounts.getAccount(account.id)).priceList, 'retail', 'nothing changed')
    })
  })
}
