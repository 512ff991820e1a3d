// Lab keys through the labs service and the command line's operations (the same functions `printroute labs keys
// list|rotate|revoke` runs, here or in the serving process): listing with states and last use, rotation with its
// overlap and bounds, revocation (its next lab API call is 401, its portal sessions are gone), the audit trail,
// and that no key is ever listed or recorded. On every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { commandLineActor, createAdminOperations } from '../../src/cli/admin-operations.ts'
import { OperationError } from '../../src/cli/operation-error.ts'
import { MAX_SIGNING_OVERLAP_SECONDS } from '../../src/domain/limits.ts'
import { LAB_KEY_LAST_USED_RESOLUTION_SECONDS } from '../../src/repositories/lab-keys.repository.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const LAB = 'uk6'
const OTHER_LAB = 'us1'

for (const kind of databaseKinds) {
  describe(`lab keys (${kind})`, () => {
    let t: TestApp
    let operations: ReturnType<typeof createAdminOperations>
    before(async () => {
      t = await startTestApp({ kind })
      operations = createAdminOperations({
        db: t.database.db,
        accounts: t.app.services.accounts,
        labs: t.app.services.labs,
        labPushes: t.app.services.labPushes,
        payments: async () => t.app.services.payments,
        shipmentMoves: async () => t.app.services.shipmentMoves,
        orderOperations: async () => t.app.services.orderOperations,
        claims: async () => t.app.services.claimResolution,
        invoices: t.app.services.invoices,
        labStatements: t.app.services.labStatements,
        catalogueVersions: t.app.services.catalogueVersions,
        operators: t.app.services.operators,
        audit: t.app.services.audit,
        revenue: t.app.services.revenue,
        actor: commandLineActor(),
      })
    })
    after(() => t.close())

    const labApi = (key: string) =>
      t.app.live.inject({ method: 'GET', url: '/labs/v1/capacity', headers: { 'x-api-key': key } })
    async function portalCookie(labKey: string): Promise<string> {
      const response = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ labKey }).toString(),
      })
      assert.equal(response.statusCode, 303, response.body)
      const cookie = response.cookies.find((candidate) => candidate.name === 'printroute_lab_session')
      assert.ok(cookie)
      return `${cookie.name}=${cookie.value}`
    }
    const portalPage = (cookie: string) =>
      t.app.live.inject({ method: 'GET', url: '/labs/portal/jobs', headers: { cookie } })
    const labSessionRows = async () =>
      Number(
        (
          await t.database.db.query<{ n: string }>(
            'SELECT count(*) AS n FROM dashboard_sessions WHERE lab_key_id IS NOT NULL',
          )
        )[0]?.n,
      )
    async function refusal(work: Promise<unknown>): Promise<OperationError> {
      const error = await work.then(
        () => undefined,
        (caught: unknown) => caught,
      )
      assert.ok(error instanceof OperationError, `refused: ${String(error)}`)
      return error
    }

    test('revoking a lab key: its next lab API call is 401, its portal session is gone; audited, no key kept', async () => {
      const { key } = await operations.createLabKey({ lab: LAB })
      const cookie = await portalCookie(key)
      assert.equal((await labApi(key)).statusCode, 200)
      assert.equal((await portalPage(cookie)).statusCode, 200)
      const sessionsBefore = await labSessionRows()

      const listed = await operations.listLabKeys({ lab: LAB })
      const created = listed.find((entry) => key.startsWith(entry.prefix))
      assert.ok(created)
      assert.match(created.id, /^lbk_\d+$/)
      assert.equal(created.state, 'active')
      assert.equal(created.lastUsed, t.clock.now().toISOString(), 'the lab API call is recorded')
      assert.equal(created.expiresAt, null)
      assert.ok(!JSON.stringify(listed).includes(key), 'the list never holds a key')

      const revoked = await operations.revokeLabKey({ lab: LAB, keyId: created.id })
      assert.equal(revoked.wasRevoked, false)
      assert.equal(revoked.sessionsEnded, 1)
      assert.equal(revoked.key.state, 'revoked')
      assert.equal((await labApi(key)).statusCode, 401, 'the next lab API call is refused')
      assert.equal(await labSessionRows(), sessionsBefore - 1, 'the session row is gone')
      const page = await portalPage(cookie)
      assert.equal(page.statusCode, 303)
      assert.match(page.headers.location as string, /^\/labs\/portal\/sign-in/)
      const signIn = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ labKey: key }).toString(),
      })
      assert.notEqual(signIn.statusCode, 303, 'a revoked key opens no session')

      // Again: nothing changes, nothing more is recorded; by its prefix it is the same key.
      const again = await operations.revokeLabKey({ lab: LAB, keyId: created.prefix })
      assert.equal(again.wasRevoked, true)
      const entries = await t.database.db.query<{ action: string; target: string; after: string; actor: string }>(
        `SELECT action, target, after::text AS after, actor FROM audit_events WHERE action = 'lab.keyRevoked'`,
      )
      assert.equal(entries.length, 1)
      assert.equal(entries[0]?.target, LAB)
      assert.match(entries[0]?.after ?? '', new RegExp(created.prefix))
      const trail = JSON.stringify(await t.database.db.query('SELECT * FROM audit_events'))
      assert.ok(!trail.includes(key.slice(created.prefix.length)), 'the trail never holds a key')
    })

    test("revocation names the lab's own keys only; a wrong ID or lab is refused with the reason", async () => {
      const { key } = await operations.createLabKey({ lab: LAB })
      const id = (await operations.listLabKeys({ lab: LAB })).find((entry) => key.startsWith(entry.prefix))?.id ?? ''
      assert.match((await refusal(operations.revokeLabKey({ lab: OTHER_LAB, keyId: id }))).message, /has no key/)
      assert.equal((await labApi(key)).statusCode, 200, 'another lab cannot revoke it')
      assert.match(
        (await refusal(operations.revokeLabKey({ lab: LAB, keyId: 'key-1' }))).message,
        /not a lab key ID \(expected lbk_<number>/,
      )
      assert.match((await refusal(operations.listLabKeys({ lab: 'nope' }))).message, /The catalogue has no lab nope/)
      assert.equal((await refusal(operations.listLabKeys({ lab: 'nope' }))).exitCode, 2)
    })

    test('rotation: a new key now, the old one works for the overlap, then its calls and sessions end', async () => {
      const { key: oldKey } = await operations.rotateLabKey({ lab: OTHER_LAB, overlapSeconds: 0 })
      const oldCookie = await portalCookie(oldKey)
      const rotated = await operations.rotateLabKey({ lab: OTHER_LAB, overlapSeconds: 3600 })
      assert.match(rotated.key, /^pr_lab_/)
      assert.equal(rotated.created.state, 'active')
      assert.deepEqual(
        rotated.replaced.map((entry) => [entry.state, entry.expiresAt]),
        [['expiring', new Date(t.clock.now().getTime() + 3600_000).toISOString()]],
      )
      assert.equal((await labApi(oldKey)).statusCode, 200, 'the old key works during the overlap')
      assert.equal((await labApi(rotated.key)).statusCode, 200)
      assert.equal((await portalPage(oldCookie)).statusCode, 200)

      t.clock.advanceSeconds(3600)
      assert.equal((await labApi(oldKey)).statusCode, 401, 'an expired overlap key is refused')
      assert.equal((await portalPage(oldCookie)).statusCode, 303, 'its session ends with it')
      assert.equal((await labApi(rotated.key)).statusCode, 200)
      const states = (await operations.listLabKeys({ lab: OTHER_LAB })).map((entry) => entry.state)
      assert.deepEqual(states, ['active', 'expired'], 'newest first')

      const entry = (
        await t.database.db.query<{ before: string; after: string }>(
          `SELECT before::text AS before, after::text AS after FROM audit_events
            WHERE action = 'lab.keyRotated' ORDER BY id DESC LIMIT 1`,
        )
      )[0]
      assert.ok(entry)
      assert.match(entry.before, new RegExp(rotated.replaced[0]?.prefix ?? 'missing'))
      assert.match(entry.after, /"overlapSeconds": ?3600/)
      assert.ok(!entry.after.includes(rotated.key.slice(12)), 'the trail never holds the new key')
    })

    test('an overlap of 0 ends the old keys now; beyond 30 days or a fraction of a second is refused', async () => {
      const { key: oldKey } = await operations.createLabKey({ lab: LAB })
      for (const overlapSeconds of [MAX_SIGNING_OVERLAP_SECONDS + 1, -1, 0.5]) {
        const error = await refusal(operations.rotateLabKey({ lab: LAB, overlapSeconds }))
        assert.match(error.message, /overlap: the overlap must be whole seconds from 0 to 2592000/)
        assert.equal(error.exitCode, 2)
      }
      assert.equal((await labApi(oldKey)).statusCode, 200, 'a refused rotation changes nothing')
      const rotated = await operations.rotateLabKey({ lab: LAB, overlapSeconds: 0 })
      assert.equal((await labApi(oldKey)).statusCode, 401)
      assert.equal((await labApi(rotated.key)).statusCode, 200)
    })

    test('a second rotation keeps the sooner end of a key already expiring; an expired key opens no portal session', async () => {
      const lab = 'nl1'
      const { key: first } = await operations.createLabKey({ lab })
      const soon = await operations.rotateLabKey({ lab, overlapSeconds: 600 })
      const later = await operations.rotateLabKey({ lab, overlapSeconds: 86_400 })
      const ends = Object.fromEntries(
        (await operations.listLabKeys({ lab })).map((entry) => [entry.prefix, entry.expiresAt]),
      )
      const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000).toISOString()
      assert.equal(ends[first.slice(0, 15)], at(600), 'the first key keeps its 10 minutes')
      assert.equal(ends[soon.created.prefix], at(86_400))
      assert.equal(ends[later.created.prefix], null)
      t.clock.advanceSeconds(600)
      assert.equal((await labApi(first)).statusCode, 401)
      assert.equal((await labApi(soon.key)).statusCode, 200)
      const signIn = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ labKey: first }).toString(),
      })
      assert.notEqual(signIn.statusCode, 303, 'an expired key opens no session')
    })

    test('a key’s last use is written at most once a minute', async () => {
      const { key } = await operations.createLabKey({ lab: LAB })
      const lastUsed = async () =>
        (await operations.listLabKeys({ lab: LAB })).find((entry) => key.startsWith(entry.prefix))?.lastUsed
      assert.equal(await lastUsed(), null)
      await labApi(key)
      const first = t.clock.now().toISOString()
      assert.equal(await lastUsed(), first)
      t.clock.advanceSeconds(LAB_KEY_LAST_USED_RESOLUTION_SECONDS - 1)
      await labApi(key)
      assert.equal(await lastUsed(), first)
      t.clock.advanceSeconds(1)
      await labApi(key)
      assert.equal(await lastUsed(), t.clock.now().toISOString())
    })
  })
}
