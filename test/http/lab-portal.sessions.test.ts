// Lab portal sessions through the real server (inject): signing in with a lab key, what the session may reach
// (the portal, not the merchant API or dashboard), every way it ends (sign out, expiry, the lab key revoked),
// CSRF (a form's field, or a photo upload's X-CSRF-Token), and the portal being on the Live port only.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SESSION_LIFETIME_SECONDS } from '../../src/services/sessions.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { photoJpeg } from '../support/claims-h4.fixture.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const LAB = 'uk6'

for (const kind of databaseKinds) {
  describe(`lab portal sessions (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    const form = (values: Record<string, string>) => ({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(values).toString(),
    })
    async function signIn(labKey: string) {
      return t.app.live.inject({ method: 'POST', url: '/labs/portal/sign-in', ...form({ labKey }) })
    }
    async function sessionCookie(labKey: string): Promise<string> {
      const response = await signIn(labKey)
      assert.equal(response.statusCode, 303, response.body)
      const cookie = response.cookies.find((candidate) => candidate.name === 'printroute_lab_session')
      assert.ok(cookie, 'a session cookie was set')
      assert.equal(cookie.path, '/labs/portal')
      assert.equal(cookie.httpOnly, true)
      assert.equal(cookie.sameSite, 'Strict')
      assert.ok(!cookie.value.includes(labKey.slice(7)), 'the cookie is not the key')
      return `${cookie.name}=${cookie.value}`
    }
    const jobsPage = (cookie: string) =>
      t.app.live.inject({ method: 'GET', url: '/labs/portal/jobs', headers: { cookie } })

    test('a lab key opens a session for 12 hours; the page names the lab', async () => {
      const { key } = await t.app.services.labs.createLabKey(LAB, TEST_ACTOR)
      const cookie = await sessionCookie(key)
      const page = await jobsPage(cookie)
      assert.equal(page.statusCode, 200)
      assert.match(page.body, new RegExp(`Lab ${LAB}`))
      assert.match(page.headers['content-security-policy'] as string, /script-src 'self'/)
      t.clock.advanceSeconds(SESSION_LIFETIME_SECONDS)
      const expired = await jobsPage(cookie)
      assert.equal(expired.statusCode, 303)
      assert.match(expired.headers.location as string, /^\/labs\/portal\/sign-in\?next=/)
    })

    test('wrong keys and merchant keys are refused without a session', async () => {
      for (const labKey of ['pr_lab_unknown', t.account.liveKey, '']) {
        const response = await signIn(labKey)
        assert.ok([400, 401].includes(response.statusCode), `${labKey}: ${response.statusCode}`)
        assert.equal(
          response.cookies.find((candidate) => candidate.name === 'printroute_lab_session'),
          undefined,
        )
      }
    })

    test('revoking the lab key ends its sessions; a lab session is no merchant session', async () => {
      const { key, prefix } = await t.app.services.labs.createLabKey(LAB, TEST_ACTOR)
      const cookie = await sessionCookie(key)
      const token = cookie.split('=')[1] ?? ''
      // Under the merchant cookie's name the lab session's token stands for no API key.
      const asMerchant = await t.app.live.inject({
        method: 'GET',
        url: '/v4.0/orders',
        headers: { cookie: `printroute_live_session=${token}` },
      })
      assert.equal(asMerchant.statusCode, 401)
      const dashboard = await t.app.live.inject({
        method: 'GET',
        url: '/dashboard/orders',
        headers: { cookie: `printroute_live_session=${token}` },
      })
      assert.equal(dashboard.statusCode, 303)
      assert.equal((await jobsPage(cookie)).statusCode, 200)
      await t.database.db.query('UPDATE lab_keys SET revoked_at = now() WHERE prefix = $1', [prefix])
      assert.equal((await jobsPage(cookie)).statusCode, 303, 'the revoked key ends the session at once')
    })

    test('changes need the CSRF token and our origin; sign out ends the session', async () => {
      const { key } = await t.app.services.labs.createLabKey(LAB, TEST_ACTOR)
      const cookie = await sessionCookie(key)
      const page = await jobsPage(cookie)
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
      assert.ok(csrf)
      const capacity = (values: Record<string, string>, origin?: string) => {
        const body = form(values)
        return t.app.live.inject({
          method: 'POST',
          url: '/labs/portal/capacity',
          headers: { ...body.headers, cookie, ...(origin ? { origin } : {}) },
          payload: body.payload,
        })
      }
      assert.equal((await capacity({ jobsToday: '5' })).statusCode, 403, 'no token')
      assert.equal((await capacity({ jobsToday: '5', _csrf: csrf }, 'https://evil.example')).statusCode, 403)
      const refused = await capacity({ jobsToday: '10001', _csrf: csrf })
      assert.equal(refused.statusCode, 400, 'a refusal is the page with the reason beside the field')
      assert.match(refused.body, /must be at most 10000/)
      const saved = await capacity({ jobsToday: '5', _csrf: csrf })
      assert.equal(saved.statusCode, 303)
      assert.equal((await t.app.services.labs.capacity(LAB)).jobsToday, 5)

      const signOut = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/sign-out',
        headers: { ...form({}).headers, cookie },
        payload: new URLSearchParams({ _csrf: csrf }).toString(),
      })
      assert.equal(signOut.statusCode, 303)
      assert.equal((await jobsPage(cookie)).statusCode, 303)
    })

    test("a photo for a claim's answer: the raw body with the session and its CSRF token in X-CSRF-Token", async () => {
      const { key } = await t.app.services.labs.createLabKey(LAB, TEST_ACTOR)
      const cookie = await sessionCookie(key)
      const csrf = /name="_csrf" value="([^"]+)"/.exec((await jobsPage(cookie)).body)?.[1] ?? ''
      const upload = (payload: Buffer, headers: Record<string, string>) =>
        t.app.live.inject({
          method: 'POST',
          url: '/labs/portal/claims/evidence',
          headers: { cookie, ...headers },
          payload,
        })
      const jpeg = await photoJpeg()
      assert.equal((await upload(jpeg, { 'content-type': 'image/jpeg' })).statusCode, 403, 'no token')
      assert.equal(
        (await upload(jpeg, { 'content-type': 'image/jpeg', 'x-csrf-token': csrf, origin: 'https://evil.example' }))
          .statusCode,
        403,
      )
      const notImage = await upload(Buffer.from('not a photo'), { 'content-type': 'image/png', 'x-csrf-token': csrf })
      assert.equal(notImage.statusCode, 400, notImage.body)
      assert.match(JSON.parse(notImage.body).statusText, /body/)
      const stored = await upload(jpeg, { 'content-type': 'image/jpeg', 'x-csrf-token': csrf })
      assert.equal(stored.statusCode, 201, stored.body)
      const id: string = JSON.parse(stored.body).evidence.id
      assert.match(id, /^evd_\d+$/)
      // The lab's own photo, as the lab API sees it.
      const viaApi = await t.app.live.inject({
        method: 'GET',
        url: `/labs/v1/claims/evidence/${id}`,
        headers: { 'x-api-key': key },
      })
      assert.equal(viaApi.statusCode, 200)
      assert.equal(viaApi.headers['content-type'], 'image/jpeg')
    })

    test('a job of another lab, or none, is not shown', async () => {
      const { key } = await t.app.services.labs.createLabKey(LAB, TEST_ACTOR)
      const cookie = await sessionCookie(key)
      const page = await t.app.live.inject({ method: 'GET', url: '/labs/portal/jobs/shp_999999', headers: { cookie } })
      assert.equal(page.statusCode, 404)
      assert.match(page.body, /is not found/)
    })

    test('the history takes any paging and search text: a page far past the end, a search longer than kept', async () => {
      const { key } = await t.app.services.labs.createLabKey(LAB, TEST_ACTOR)
      const cookie = await sessionCookie(key)
      const query = `?skip=99999999999999999999999&q=${encodeURIComponent(`%_'\\${'x'.repeat(500)}`)}`
      const page = await t.app.live.inject({ method: 'GET', url: `/labs/portal/history${query}`, headers: { cookie } })
      assert.equal(page.statusCode, 200, page.body)
      assert.match(page.body, /No closed job matches/)
    })

    test('the portal is on the Live port only', async () => {
      const sandbox = await t.app.sandbox.inject({ method: 'GET', url: '/labs/portal/sign-in' })
      assert.equal(sandbox.statusCode, 404)
      const live = await t.app.live.inject({ method: 'GET', url: '/labs/portal/sign-in' })
      assert.equal(live.statusCode, 200)
    })
  })
}
