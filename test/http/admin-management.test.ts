// The console's management forms through the real servers (docs/admin.md): the seller printed on invoices (and the
// banner every signed-in page shows until it is set), an account's settings as `printroute accounts update` changes
// them, and the operators (list, add with the token shown once, revoke), each change recorded in the audit trail
// with the signed-in operator as its actor.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const CLI = { kind: 'cli', host: 'test-host', user: 'tester' } as const

interface Answer {
  statusCode: number
  body: string
  headers: Record<string, unknown>
  cookies: { name: string; value: string }[]
}

for (const kind of databaseKinds) {
  describe(`console management (${kind})`, () => {
    let t: TestApp
    let cookie: string
    let csrf: string
    let operatorId: string
    before(async () => {
      t = await startTestApp({ kind })
      const made = await t.app.services.operators.createOperator('Keeper', CLI)
      operatorId = made.operator.id
      ;({ cookie, csrf } = await signIn(made.token))
    })
    after(() => t.close())

    async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
      const response = await t.app.live.inject({
        method: 'POST',
        url: '/admin/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ operatorToken: token }).toString(),
      })
      assert.equal(response.statusCode, 303, response.body)
      const session = response.cookies.find((candidate) => candidate.name === 'printroute_admin_session')
      assert.ok(session)
      const header = `${session.name}=${session.value}`
      const page = await get('/admin/accounts', header)
      const token_ = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
      assert.ok(token_)
      return { cookie: header, csrf: token_ }
    }
    const get = (url: string, as = cookie): Promise<Answer> =>
      t.app.live.inject({ method: 'GET', url, headers: { cookie: as } })
    const post = (url: string, values: Record<string, string>, as = cookie, token = csrf): Promise<Answer> =>
      t.app.live.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: as },
        payload: new URLSearchParams({ _csrf: token, ...values }).toString(),
      })
    /** The page a redirect lands on, with the notice it left. */
    async function landing(response: Answer, as = cookie): Promise<Answer> {
      assert.equal(response.statusCode, 303, response.body)
      const notice = response.cookies.find((candidate) => candidate.name === 'printroute_admin_notice')
      return get(response.headers.location as string, notice ? `${as}; ${notice.name}=${notice.value}` : as)
    }
    const trail = async (action: string) =>
      (await listAuditEvents(t.database.db, { actions: [action], limit: 10 })).map((entry) => ({
        actorKind: entry.actorKind,
        actor: entry.actor,
        before: typeof entry.before === 'string' ? JSON.parse(entry.before) : entry.before,
        after: typeof entry.after === 'string' ? JSON.parse(entry.after) : entry.after,
      }))

    test('until the seller is set every page says how to set it; set in the console, audited, the banner goes', async () => {
      for (const url of ['/admin/accounts', '/admin/invoices', '/admin/operators', '/admin/audit']) {
        const page = await get(url)
        assert.equal(page.statusCode, 200, url)
        assert.match(page.body, /data-seller-banner/, url)
        assert.match(page.body, /href="\/admin\/invoices\/seller"/, url)
        assert.match(page.body, /printroute invoices seller --name NAME/, url)
      }
      const signInPage = await t.app.live.inject({ method: 'GET', url: '/admin/sign-in' })
      assert.doesNotMatch(signInPage.body, /data-seller-banner/, 'only signed-in pages')

      const form = await get('/admin/invoices/seller')
      assert.match(form.body, /data-seller-unset/)
      assert.match(form.body, /<input id="seller-name" name="name" required maxlength="200" value="">/)

      const refused = await post('/admin/invoices/seller', { name: 'Print Co', address: '1 Press Lane', email: 'nope' })
      assert.equal(refused.statusCode, 400)
      assert.match(refused.body, /Email: must be an email address/)
      assert.match(refused.body, /value="Print Co"/, 'what was typed stays in the form')
      assert.equal((await t.app.services.invoices.seller()).configured, false, 'nothing changed')

      const saved = await landing(
        await post('/admin/invoices/seller', {
          name: 'Print Co Ltd',
          address: '1 Press Lane\r\n\r\nLeeds LS1 1AA\r\n',
          taxNumber: 'GB123456789',
          email: 'billing@print.example',
        }),
      )
      assert.match(saved.body, /Saved: documents issued from now on name Print Co Ltd\./)
      assert.doesNotMatch(saved.body, /data-seller-banner|data-seller-unset/)
      assert.match(
        saved.body,
        /<textarea id="seller-address" name="address" rows="6">1 Press Lane\nLeeds LS1 1AA<\/textarea>/,
      )
      const seller = {
        name: 'Print Co Ltd',
        address: ['1 Press Lane', 'Leeds LS1 1AA'],
        taxNumber: 'GB123456789',
        email: 'billing@print.example',
      }
      assert.deepEqual(await t.app.services.invoices.seller(), { seller, configured: true })
      assert.doesNotMatch((await get('/admin/accounts')).body, /data-seller-banner/)
      assert.deepEqual(await trail('invoice.sellerChanged'), [
        { actorKind: 'operator', actor: operatorId, before: null, after: seller },
      ])
    })

    test("an account's settings: the pause window and each environment's, only what changed, refusals as notices", async () => {
      const account = await t.createAccount()
      const accountNumber = parseId('acc', account.id) as number
      const page = await get(`/admin/accounts/${account.id}`)
      assert.match(page.body, /<h2 id="settings-heading">Settings<\/h2>/)
      assert.match(page.body, /<input id="pause-window" name="pauseWindowSeconds"[^>]* value="0">/)

      const paused = await landing(await post(`/admin/accounts/${account.id}/settings`, { pauseWindowSeconds: '600' }))
      assert.match(paused.body, /Saved the pause window: Pause window\./)
      assert.equal((await t.app.services.accounts.getSettings(accountNumber, 'sandbox')).pauseWindowSeconds, 600)

      const live = await landing(
        await post(`/admin/accounts/${account.id}/settings`, {
          environment: 'live',
          callbackUrl: 'http://127.0.0.1:9/hook',
          addressValidation: 'warn',
          callbackEvents: 'prodigi',
        }),
      )
      assert.match(live.body, /Saved the Live settings: Callback URL, Callback events\./)
      const liveSettings = await t.app.services.accounts.getSettings(accountNumber, 'live')
      assert.equal(liveSettings.callbackUrl, 'http://127.0.0.1:9/hook')
      assert.equal(liveSettings.callbackEvents, 'prodigi')
      const sandboxSettings = await t.app.services.accounts.getSettings(accountNumber, 'sandbox')
      assert.equal(sandboxSettings.callbackUrl, null, "Sandbox's stays")
      assert.equal(sandboxSettings.callbackEvents, 'all')

      const scenario = await landing(
        await post(`/admin/accounts/${account.id}/settings`, {
          environment: 'sandbox',
          callbackUrl: '',
          addressValidation: 'off',
          callbackEvents: 'all',
          sandboxScenario: 'paymentRequired',
        }),
      )
      assert.match(scenario.body, /Saved the Sandbox settings: Address checks, Default scenario\./)
      assert.match(scenario.body, /<option value="paymentRequired" selected>paymentRequired<\/option>/)

      const same = await landing(
        await post(`/admin/accounts/${account.id}/settings`, {
          environment: 'live',
          callbackUrl: 'http://127.0.0.1:9/hook',
          addressValidation: 'warn',
          callbackEvents: 'prodigi',
        }),
      )
      assert.match(same.body, /Nothing changed in the Live settings\./)

      const badUrl = await landing(
        await post(`/admin/accounts/${account.id}/settings`, { environment: 'live', callbackUrl: 'ftp://example' }),
      )
      assert.match(badUrl.body, /notice-error[^>]*>Callback URL: /)
      assert.equal(
        (await t.app.services.accounts.getSettings(accountNumber, 'live')).callbackUrl,
        'http://127.0.0.1:9/hook',
      )
      const badPause = await landing(
        await post(`/admin/accounts/${account.id}/settings`, { pauseWindowSeconds: 'soon' }),
      )
      assert.match(badPause.body, /Pause window: a whole number of seconds from 0 to 2592000, not &quot;soon&quot;\./)

      const changes = await listAuditEvents(t.database.db, {
        accountId: accountNumber,
        actions: ['account.settingsChanged'],
        limit: 20,
      })
      // The pause window, Live's change, Sandbox's change; nothing for the save that changed nothing or the refusals.
      assert.equal(changes.length, 3)
      assert.ok(changes.every((entry) => entry.actorKind === 'operator' && entry.actor === operatorId))
    })

    test('operators: listed, added with the token shown once, revoked with their sessions ended', async () => {
      const list = await get('/admin/operators')
      assert.match(list.body, /<a href="\/admin\/operators" aria-current="page">Operators<\/a>/)
      assert.match(list.body, new RegExp(`<tr data-operator="${operatorId}">`))
      assert.match(list.body, /Keeper <span class="muted">\(you\)<\/span>/)

      const refused = await post('/admin/operators', { name: '   ' })
      assert.equal(refused.statusCode, 400)
      assert.match(refused.body, /The operator name must not be empty/)

      const added = await post('/admin/operators', { name: 'Robin' })
      assert.equal(added.statusCode, 200, added.body)
      const token = /<code class="new-key" data-operator-token>(pr_operator_[^<]+)<\/code>/.exec(added.body)?.[1] ?? ''
      assert.ok(token, 'the token is shown')
      const robinId = /Added (opr_\d+) \(Robin\)/.exec(added.body)?.[1] ?? ''
      assert.ok(robinId)
      const robin = await signIn(token)
      assert.ok(!(await get('/admin/operators')).body.includes(token), 'shown once')

      const revoked = await landing(await post('/admin/operators/revoke', { operator: robinId }))
      assert.match(revoked.body, new RegExp(`Revoked ${robinId} \\(Robin\\)`))
      assert.match(revoked.body, new RegExp(`<tr data-operator="${robinId}">[\\s\\S]*?Revoked`))
      const ended = await get('/admin/accounts', robin.cookie)
      assert.equal(ended.statusCode, 303, 'the revoked operator is signed out at its next request')
      const again = await landing(await post('/admin/operators/revoke', { operator: robinId }))
      assert.match(again.body, new RegExp(`No active operator ${robinId}`))

      assert.deepEqual((await trail('operator.created')).map((entry) => [entry.actorKind, entry.actor]).slice(0, 1), [
        ['operator', operatorId],
      ])
      assert.deepEqual(
        (await trail('operator.revoked')).map((entry) => [entry.actorKind, entry.actor]),
        [['operator', operatorId]],
      )
    })
  })
}
