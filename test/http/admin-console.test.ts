// The operator console (/admin/) through the real servers: signing in with an operator token, the session's cookie,
// every way the session ends (sign out, expiry, the operator revoked while signed in), CSRF and cross-site refusals
// before any page runs, the rate limit of failed sign-ins, the console on its own port with --admin-port, and the
// accounts section's actions and an order's note, each recorded in the audit trail with the operator as its actor.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseRateLimit } from '../../src/domain/rate-limit.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { SESSION_LIFETIME_SECONDS } from '../../src/services/sessions.service.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const CLI = { kind: 'cli', host: 'test-host', user: 'tester' } as const

const form = (values: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(values).toString(),
})

type Server = TestApp['app']['live']

function consoleClient(server: () => Server) {
  const signIn = (operatorToken: string, headers: Record<string, string> = {}) => {
    const body = form({ operatorToken })
    return server().inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: { ...body.headers, ...headers },
      payload: body.payload,
    })
  }
  async function session(operatorToken: string): Promise<{ cookie: string; csrf: string }> {
    const response = await signIn(operatorToken)
    assert.equal(response.statusCode, 303, response.body)
    const cookie = response.cookies.find((candidate) => candidate.name === 'printroute_admin_session')
    assert.ok(cookie, 'a session cookie was set')
    const header = `${cookie.name}=${cookie.value}`
    const page = await server().inject({ method: 'GET', url: '/admin/accounts', headers: { cookie: header } })
    assert.equal(page.statusCode, 200, page.body)
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
    assert.ok(csrf, 'the page carries the CSRF token')
    return { cookie: header, csrf }
  }
  const get = (url: string, cookie: string) => server().inject({ method: 'GET', url, headers: { cookie } })
  const post = (url: string, cookie: string, values: Record<string, string>, headers: Record<string, string> = {}) => {
    const body = form(values)
    return server().inject({
      method: 'POST',
      url,
      headers: { ...body.headers, cookie, ...headers },
      payload: body.payload,
    })
  }
  /** The notice a redirect left, as the page it lands on shows it. */
  async function landing(
    response: { statusCode: number; headers: Record<string, unknown>; cookies: { name: string; value: string }[] },
    cookie: string,
  ) {
    assert.equal(response.statusCode, 303)
    const notice = response.cookies.find((candidate) => candidate.name === 'printroute_admin_notice')
    const cookies = notice ? `${cookie}; ${notice.name}=${notice.value}` : cookie
    return get(response.headers.location as string, cookies)
  }
  return { signIn, session, get, post, landing }
}

for (const kind of databaseKinds) {
  describe(`operator console (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())
    const admin = consoleClient(() => t.app.live)
    const operator = (name: string) => t.app.services.operators.createOperator(name, CLI)

    test('an operator token opens a session on /admin with a strict, httpOnly cookie; the shell names the operator', async () => {
      const { operator: made, token } = await operator('Dana')
      assert.match(token, /^pr_operator_/)
      const response = await admin.signIn(token)
      assert.equal(response.statusCode, 303)
      assert.equal(response.headers.location, '/admin/accounts')
      const cookie = response.cookies.find((candidate) => candidate.name === 'printroute_admin_session')
      assert.ok(cookie)
      assert.equal(cookie.path, '/admin')
      assert.equal(cookie.httpOnly, true)
      assert.equal(cookie.sameSite, 'Strict')
      assert.ok(!cookie.value.includes(token.slice(12)), 'the cookie is not the token')
      const page = await admin.get('/admin/accounts', `${cookie.name}=${cookie.value}`)
      assert.equal(page.statusCode, 200)
      assert.match(page.body, new RegExp(`Signed in as Dana \\(<code>${made.id}</code>\\)`))
      assert.match(
        page.body,
        /<nav aria-label="Console sections"><ul><li><a href="\/admin\/accounts" aria-current="page">Accounts/,
      )
      const csp = page.headers['content-security-policy'] as string
      assert.match(csp, /script-src 'self'/)
      assert.match(csp, /frame-ancestors 'none'/)
      assert.equal(page.headers['cache-control'], 'no-store')
      const css = await t.app.live.inject({ method: 'GET', url: '/admin/assets/admin.css' })
      assert.equal(css.statusCode, 200)
      assert.match(css.headers['content-type'] as string, /^text\/css/)

      t.clock.advanceSeconds(SESSION_LIFETIME_SECONDS)
      const expired = await admin.get('/admin/accounts', `${cookie.name}=${cookie.value}`)
      assert.equal(expired.statusCode, 303)
      assert.match(expired.headers.location as string, /^\/admin\/sign-in\?next=/)
    })

    test('without a session every page sends to the sign-in page; wrong and foreign tokens open none', async () => {
      const page = await t.app.live.inject({ method: 'GET', url: '/admin/accounts/acc_1' })
      assert.equal(page.statusCode, 303)
      assert.equal(page.headers.location, `/admin/sign-in?next=${encodeURIComponent('/admin/accounts/acc_1')}`)
      for (const [token, status, words] of [
        ['pr_operator_unknown', 401, /unknown or has been revoked/],
        [t.account.liveKey, 401, /not an operator token/],
        ['', 400, /Enter an operator token/],
      ] as const) {
        const response = await admin.signIn(token)
        assert.equal(response.statusCode, status, token)
        assert.match(response.body, words)
        assert.equal(
          response.cookies.find((candidate) => candidate.name === 'printroute_admin_session'),
          undefined,
        )
      }
      // An API key cannot reach the console either: it answers to sessions only.
      const withKey = await t.app.live.inject({
        method: 'GET',
        url: '/admin/accounts',
        headers: { 'x-api-key': t.account.liveKey },
      })
      assert.equal(withKey.statusCode, 303)
    })

    test('a sign-in sends on to a console page only, never to another site', async () => {
      const { token } = await operator('Next')
      const cases: [string, string][] = [
        ['/admin/accounts/acc_1', '/admin/accounts/acc_1'],
        ['https://evil.example/admin/x', '/admin/accounts'],
        ['//evil.example/admin/', '/admin/accounts'],
        ['/dashboard/orders', '/admin/accounts'],
      ]
      for (const [next, expected] of cases) {
        const body = form({ operatorToken: token, next })
        const response = await t.app.live.inject({ method: 'POST', url: '/admin/sign-in', ...body })
        assert.equal(response.headers.location, expected, next)
      }
    })

    test('a POST without the CSRF token, or from another site, is refused before the page runs', async () => {
      const { token } = await operator('Csrf')
      const { cookie, csrf } = await admin.session(token)
      const victim = await t.createAccount()
      const suspend = (values: Record<string, string>, headers: Record<string, string> = {}) =>
        admin.post(`/admin/accounts/${victim.id}/suspend`, cookie, values, headers)
      const missing = await suspend({ reason: 'x' })
      assert.equal(missing.statusCode, 403)
      assert.match(missing.body, /not sent from this console page/)
      assert.equal((await suspend({ reason: 'x', _csrf: 'forged' })).statusCode, 403)
      const crossSite = await suspend({ reason: 'x', _csrf: csrf }, { origin: 'https://evil.example' })
      assert.equal(crossSite.statusCode, 403, 'another origin is refused even with the token')
      assert.equal((await t.app.services.accounts.getAccount(victim.id)).suspended, null, 'nothing changed')
      // Another session's token is not this one's.
      const other = await admin.session((await operator('Other')).token)
      assert.equal((await suspend({ reason: 'x', _csrf: other.csrf })).statusCode, 403)
      // Signing in from another site is refused too, and signing out needs the token.
      assert.equal((await admin.signIn(token, { origin: 'https://evil.example' })).statusCode, 403)
      assert.equal((await admin.post('/admin/sign-out', cookie, {})).statusCode, 403)
      assert.equal((await admin.get('/admin/accounts', cookie)).statusCode, 200, 'still signed in')
    })

    test("an order's action through the real console: refused without the CSRF token, done with it as the operator", async () => {
      const { token } = await operator('Noter')
      const { cookie, csrf } = await admin.session(token)
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder(),
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id as string
      const page = await admin.get(`/admin/orders/${orderId}`, cookie)
      assert.equal(page.statusCode, 200)
      assert.ok(page.body.includes(`action="/admin/orders/${orderId}/notes"`), 'the page has the notes form')
      const note = (values: Record<string, string>) => admin.post(`/admin/orders/${orderId}/notes`, cookie, values)
      const refused = await note({ text: 'forged' })
      assert.equal(refused.statusCode, 403)
      assert.deepEqual(await t.app.services.orderOperations.notes(orderId), [], 'nothing stored')
      const added = await note({ text: 'Checked with the lab', _csrf: csrf })
      assert.equal(added.statusCode, 303, added.body)
      const [stored] = await t.app.services.orderOperations.notes(orderId)
      assert.match(stored?.author ?? '', /^operator opr_\d+ \(Noter\)$/)
      const shown = await admin.get(`/admin/orders/${orderId}`, cookie)
      assert.ok(shown.body.includes('Checked with the lab'))
    })

    test('sign out ends the session', async () => {
      const { token } = await operator('Leaving')
      const { cookie, csrf } = await admin.session(token)
      const out = await admin.post('/admin/sign-out', cookie, { _csrf: csrf })
      assert.equal(out.statusCode, 303)
      assert.equal(out.headers.location, '/admin/sign-in')
      assert.equal((await admin.get('/admin/accounts', cookie)).statusCode, 303)
    })

    test('revoking the operator while signed in ends its session at the next request', async () => {
      const { operator: made, token } = await operator('Revoked')
      const { cookie, csrf } = await admin.session(token)
      const victim = await t.createAccount()
      await t.app.services.operators.revokeOperator(made.id, CLI)
      const page = await admin.get('/admin/accounts', cookie)
      assert.equal(page.statusCode, 303)
      assert.match(page.headers.location as string, /^\/admin\/sign-in/)
      const landed = await admin.landing(page, '')
      assert.match(landed.body, /the operator was revoked/)
      // A change the revoked operator still had a page for is not made.
      const suspend = await admin.post(`/admin/accounts/${victim.id}/suspend`, cookie, { _csrf: csrf })
      assert.equal(suspend.statusCode, 303)
      assert.match(suspend.headers.location as string, /^\/admin\/sign-in/)
      assert.equal((await t.app.services.accounts.getAccount(victim.id)).suspended, null)
      assert.equal((await admin.signIn(token)).statusCode, 401, 'the token no longer signs in')
      const listed = await t.app.services.operators.listOperators()
      assert.ok(listed.find((entry) => entry.id === made.id)?.revoked)
    })

    test('the accounts list searches by id and name; creating an account shows its two keys once', async () => {
      const { token } = await operator('Creator')
      const { cookie, csrf } = await admin.session(token)
      const created = await admin.post('/admin/accounts', cookie, {
        _csrf: csrf,
        name: 'Paper & Ink <Ltd>',
        billingCurrency: 'gbp',
        billingMode: 'prepaid',
      })
      assert.equal(created.statusCode, 200, created.body)
      assert.match(created.body, /Paper &amp; Ink &lt;Ltd&gt;/, 'the name is escaped')
      const keys = [...created.body.matchAll(/<code class="new-key" data-environment="(\w+)">([^<]+)<\/code>/g)]
      assert.deepEqual(
        keys.map((match) => match[1]),
        ['sandbox', 'live'],
      )
      const liveKey = keys[1]?.[2] ?? ''
      const accountId = /Created (acc_\d+)/.exec(created.body)?.[1] ?? ''
      assert.ok(accountId)
      const orders = await t.app.live.inject({ method: 'GET', url: '/v4.0/orders', headers: { 'x-api-key': liveKey } })
      assert.equal(orders.statusCode, 200, 'the key shown works')
      const again = await admin.get(`/admin/accounts/${accountId}`, cookie)
      assert.ok(!again.body.includes(liveKey), 'the key is shown only once')

      const byName = await admin.get('/admin/accounts?q=paper%20%26', cookie)
      assert.match(byName.body, new RegExp(`href="/admin/accounts/${accountId}"`))
      assert.doesNotMatch(byName.body, new RegExp(`href="/admin/accounts/${t.account.id}"`))
      const byId = await admin.get(`/admin/accounts?q=${accountId.toUpperCase()}`, cookie)
      assert.match(byId.body, /1 of \d+ accounts/)
      const none = await admin.get('/admin/accounts?q=nobody-by-this-name', cookie)
      assert.match(none.body, /No account matches/)

      const refused = await admin.post('/admin/accounts', cookie, {
        _csrf: csrf,
        name: 'Shop',
        billingCurrency: 'XYZ',
        billingMode: 'invoice',
      })
      assert.equal(refused.statusCode, 400)
      assert.match(refused.body, /no exchange rate for XYZ/)
      assert.match(refused.body, /value="Shop"/, 'the form keeps what was typed')
      const badMode = await admin.post('/admin/accounts', cookie, {
        _csrf: csrf,
        name: 'Shop',
        billingCurrency: 'GBP',
        billingMode: 'barter',
      })
      assert.equal(badMode.statusCode, 400)
      assert.match(badMode.body, /Billing mode: choose invoice or prepaid/)
    })

    test("an account's page: keys created and revoked, a prepaid top-up, suspension and reactivation, all audited", async () => {
      const { operator: made, token } = await operator('Keeper')
      const { cookie, csrf } = await admin.session(token)
      const merchant = await t.createAccount({ billingMode: 'prepaid' })
      const page = await admin.get(`/admin/accounts/${merchant.id}`, cookie)
      assert.equal(page.statusCode, 200)
      assert.match(page.body, /prepaid in GBP/)
      assert.match(page.body, /0\.00 GBP/)
      assert.match(page.body, /No charges or payments yet/)

      const issued = await admin.post(`/admin/accounts/${merchant.id}/keys`, cookie, {
        _csrf: csrf,
        environment: 'sandbox',
      })
      assert.equal(issued.statusCode, 200)
      const sandboxKey = /<code class="new-key" data-environment="sandbox">([^<]+)<\/code>/.exec(issued.body)?.[1] ?? ''
      assert.match(sandboxKey, /^pr_sandbox_/)
      const prefix = /Created the Sandbox key (pr_sandbox_[\w-]+)/.exec(issued.body)?.[1] ?? ''
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, sandboxKey)).statusCode, 200)
      const revoked = await admin.landing(
        await admin.post(`/admin/accounts/${merchant.id}/keys/revoke`, cookie, { _csrf: csrf, prefix }),
        cookie,
      )
      assert.match(revoked.body, new RegExp(`Revoked the key ${prefix}`))
      assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, sandboxKey)).statusCode, 401)
      // Another account's key is not revoked from this account's page.
      const foreign = t.account.liveKey.slice(0, 'pr_live_'.length + 8)
      const notHere = await admin.landing(
        await admin.post(`/admin/accounts/${merchant.id}/keys/revoke`, cookie, { _csrf: csrf, prefix: foreign }),
        cookie,
      )
      assert.match(notHere.body, /has no active key with prefix/)
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' })).statusCode, 200)

      const toppedUp = await admin.landing(
        await admin.post(`/admin/accounts/${merchant.id}/top-up`, cookie, {
          _csrf: csrf,
          amount: '25.50',
          reference: 'BACS 991',
        }),
        cookie,
      )
      assert.match(toppedUp.body, /the balance is 25\.50 GBP/)
      assert.match(toppedUp.body, /Top-up<\/td>/)
      assert.match(toppedUp.body, /BACS 991/)
      for (const amount of ['-5', 'ten', '0', '1.234']) {
        const refused = await admin.landing(
          await admin.post(`/admin/accounts/${merchant.id}/top-up`, cookie, { _csrf: csrf, amount }),
          cookie,
        )
        assert.match(refused.body, /Amount: a positive amount such as 50\.00/, amount)
      }

      const suspended = await admin.landing(
        await admin.post(`/admin/accounts/${merchant.id}/suspend`, cookie, { _csrf: csrf, reason: 'Unpaid invoices' }),
        cookie,
      )
      assert.match(suspended.body, /Suspended acc_\d+: its keys answer 403/)
      assert.match(suspended.body, /Unpaid invoices/)
      assert.match(suspended.body, /Reactivate the account/)
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, merchant.liveKey)).statusCode, 403)
      const listed = await admin.get('/admin/accounts', cookie)
      assert.match(
        listed.body,
        new RegExp(`${merchant.id}</a></th>\\s*<td>[^<]*</td>\\s*<td><span class="badge badge-failed">Suspended`),
      )
      const reactivated = await admin.landing(
        await admin.post(`/admin/accounts/${merchant.id}/reactivate`, cookie, { _csrf: csrf }),
        cookie,
      )
      assert.match(reactivated.body, /Reactivated/)
      assert.equal((await t.live({ method: 'GET', url: '/v4.0/orders' }, merchant.liveKey)).statusCode, 200)

      const trail = await listAuditEvents(t.database.db, {
        accountId: Number(merchant.id.slice(4)),
        actions: ['account.suspended', 'account.reactivated'],
        limit: 10,
      })
      assert.deepEqual(
        trail.map((entry) => [entry.action, entry.actorKind, entry.actor]),
        [
          ['account.reactivated', 'operator', made.id],
          ['account.suspended', 'operator', made.id],
        ],
      )
      assert.equal(JSON.parse(trail[1]?.after ?? '{}').reason, 'Unpaid invoices')
      assert.match(trail[1]?.actorDescription ?? '', /operator opr_\d+ \(Keeper\)/)

      const missing = await admin.get('/admin/accounts/acc_999999', cookie)
      assert.equal(missing.statusCode, 404)
      assert.equal((await admin.get('/admin/accounts/not-an-id', cookie)).statusCode, 404)
      const unknownKeyEnvironment = await admin.landing(
        await admin.post(`/admin/accounts/${merchant.id}/keys`, cookie, { _csrf: csrf, environment: 'staging' }),
        cookie,
      )
      assert.match(unknownKeyEnvironment.body, /Environment: choose Sandbox or Live/)
    })

    test("a lab's keys through the console: CSRF needed, created, rotated and revoked with the operator as actor", async () => {
      const { operator: made, token } = await operator('Lab keeper')
      const { cookie, csrf } = await admin.session(token)
      const lab = 'de1'
      assert.equal((await admin.post(`/admin/labs/${lab}/keys`, cookie, {})).statusCode, 403, 'no CSRF token')
      assert.equal((await t.app.services.labs.listLabKeys(lab)).length, 0, 'nothing made')

      const created = await admin.post(`/admin/labs/${lab}/keys`, cookie, { _csrf: csrf })
      assert.equal(created.statusCode, 200)
      const labKey = /<code class="new-key">(pr_lab_[^<]+)<\/code>/.exec(created.body)?.[1] ?? ''
      assert.ok(labKey)
      const rotated = await admin.post(`/admin/labs/${lab}/keys/rotate`, cookie, { _csrf: csrf, overlapSeconds: '0' })
      assert.equal(rotated.statusCode, 200)
      assert.match(rotated.body, /stopped working now/)
      const newKeyId = (await t.app.services.labs.listLabKeys(lab))[0]?.id ?? ''
      assert.equal(
        (await admin.post(`/admin/labs/${lab}/keys/${newKeyId}/revoke`, cookie, { _csrf: 'forged' })).statusCode,
        403,
      )
      const revoked = await admin.landing(
        await admin.post(`/admin/labs/${lab}/keys/${newKeyId}/revoke`, cookie, { _csrf: csrf }),
        cookie,
      )
      assert.match(revoked.body, /is revoked: its lab API calls are refused/)
      const lapi = await t.app.live.inject({
        method: 'GET',
        url: '/labs/v1/capacity',
        headers: { 'x-api-key': labKey },
      })
      assert.equal(lapi.statusCode, 401)

      const entries = (
        await listAuditEvents(t.database.db, {
          actions: ['lab.keyCreated', 'lab.keyRotated', 'lab.keyRevoked'],
          limit: 10,
        })
      )
        .filter((entry) => entry.target === lab)
        .map((entry) => [entry.action, entry.actorKind, entry.actor])
      assert.deepEqual(entries.reverse(), [
        ['lab.keyCreated', 'operator', made.id],
        ['lab.keyRotated', 'operator', made.id],
        ['lab.keyRevoked', 'operator', made.id],
      ])
    })

    test('the console is on the Live port only', async () => {
      assert.equal((await t.app.sandbox.inject({ method: 'GET', url: '/admin/sign-in' })).statusCode, 404)
      assert.equal((await t.app.live.inject({ method: 'GET', url: '/admin/sign-in' })).statusCode, 200)
      const root = await t.app.live.inject({ method: 'GET', url: '/admin/' })
      assert.equal(root.statusCode, 302)
      assert.equal(root.headers.location, '/admin/accounts')
    })
  })
}

describe('operator console: failed sign-ins use up the address budget', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ rateLimit: parseRateLimit('3/1m') })
  })
  after(() => t.close())

  test('wrong tokens count against the address, then 429 on the sign-in page; a right token still needs none', async () => {
    const admin = consoleClient(() => t.app.live)
    const statuses: number[] = []
    for (let attempt = 0; attempt < 4; attempt++)
      statuses.push((await admin.signIn(`pr_operator_wrong${attempt}`)).statusCode)
    assert.deepEqual(statuses, [401, 401, 401, 429])
    const refused = await admin.signIn('pr_operator_wrong-again')
    assert.equal(refused.statusCode, 429)
    assert.match(refused.body, /<label for="operator-token">Operator token<\/label>/, 'the sign-in form again')
    assert.ok(refused.headers['retry-after'])
    // The budget counts failures only: a valid token still signs in.
    const { token } = await t.app.services.operators.createOperator('Patient', CLI)
    assert.equal((await admin.signIn(token)).statusCode, 303)
  })
})

describe('operator console on its own port (--admin-port)', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ adminOwnServer: true })
  })
  after(() => t.close())

  test('the console answers on its own server and not on the Live port', async () => {
    const adminServer = t.app.adminServer
    assert.ok(adminServer, 'the console has a server of its own')
    assert.equal((await t.app.live.inject({ method: 'GET', url: '/admin/sign-in' })).statusCode, 404)
    const admin = consoleClient(() => adminServer)
    const { token } = await t.app.services.operators.createOperator('Remote', CLI)
    const { cookie } = await admin.session(token)
    const page = await admin.get(`/admin/accounts/${t.account.id}`, cookie)
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /Test merchant/)
    const css = await adminServer.inject({ method: 'GET', url: '/admin/assets/dashboard.css' })
    assert.equal(css.statusCode, 200)
    const root = await adminServer.inject({ method: 'GET', url: '/' })
    assert.equal(root.headers.location, '/admin/')
    assert.equal((await adminServer.inject({ method: 'GET', url: '/v4.0/orders' })).statusCode, 404)
  })
})
