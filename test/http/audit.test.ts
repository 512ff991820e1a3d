// The audit trail through the real application: each change records one entry with the actor that made it (an
// API key, a dashboard session, the command line, a lab), before and after where they apply and never a secret; a
// refused change records nothing; GET /v4.0/account/audit pages newest first, filters by action and time, refuses
// bad filters naming the field, and shows only the caller's own account.
import assert from 'node:assert/strict'
import { hostname, userInfo } from 'node:os'
import { after, before, describe, test } from 'node:test'
import { commandLineActor, createAdminOperations } from '../../src/cli/admin-operations.ts'
import { AUDIT_ACTIONS } from '../../src/domain/audit.ts'
import { parseId } from '../../src/domain/ids.ts'
import { catalogue, json, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const JSON_HEADERS = { 'content-type': 'application/json' }
type Server = 'sandbox' | 'live'

/** Every entry of the whole table as text: what a secret must never be found in. */
async function wholeTrailText(t: TestApp): Promise<string> {
  const rows = await t.database.db.query<Record<string, unknown>>('SELECT * FROM audit_events ORDER BY id')
  return JSON.stringify(rows)
}

for (const kind of databaseKinds) {
  describe(`the audit trail (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind })
    })
    after(() => t.close())

    const trail = async (server: Server, key: string, query = '') => {
      const response = await t[server]({ method: 'GET', url: `/v4.0/account/audit${query}` }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }
    /** The account's whole trail, newest first, following nextUrl. */
    async function allEntries(key: string, query = ''): Promise<any[]> {
      const entries: any[] = []
      let url: string | null = `/v4.0/account/audit${query}`
      while (url) {
        const response = await t.sandbox({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '') }, key)
        assert.equal(response.statusCode, 200, response.body)
        const body = json(response)
        entries.push(...body.entries)
        url = body.nextUrl
      }
      return entries
    }
    const issueKey = (server: Server, key: string) =>
      t[server]({ method: 'POST', url: '/v4.0/account/keys' }, key).then((response) => json(response).key)
    const patchSettings = (server: Server, key: string, body: unknown) =>
      t[server](
        { method: 'PATCH', url: '/v4.0/account/settings', payload: JSON.stringify(body), headers: JSON_HEADERS },
        key,
      )
    const prefixOf = (key: string) => key.slice(0, key.indexOf('_', 3) + 1 + 8)

    test('creating an account records it once, with its key prefixes and never its keys', async () => {
      const account = await t.createAccount()
      const entries = await allEntries(account.sandboxKey)
      assert.equal(entries.length, 1)
      const [created] = entries
      assert.deepEqual(Object.keys(created), [
        'id',
        'at',
        'actor',
        'action',
        'environment',
        'target',
        'before',
        'after',
      ])
      assert.match(created.id, /^aud_\d+$/)
      assert.equal(created.action, 'account.created')
      assert.equal(created.target, account.id)
      assert.equal(created.environment, null)
      assert.equal(created.before, null)
      assert.deepEqual(created.actor, { kind: 'cli', description: 'command line (test@test-host)' })
      assert.equal(created.after.name, 'Test merchant')
      assert.deepEqual(created.after.keyPrefixes, {
        sandbox: prefixOf(account.sandboxKey),
        live: prefixOf(account.liveKey),
      })
      const text = await wholeTrailText(t)
      assert.ok(!text.includes(account.sandboxKey) && !text.includes(account.liveKey), 'no key in the trail')
    })

    test('a key issued and revoked with an API key: one entry each, naming the key that acted', async () => {
      const account = await t.createAccount()
      const issued = await issueKey('live', account.liveKey)
      const revoked = await t.live(
        { method: 'POST', url: `/v4.0/account/keys/${issued.prefix}/revoke` },
        account.liveKey,
      )
      assert.equal(revoked.statusCode, 200, revoked.body)
      const entries = await allEntries(account.sandboxKey, '?action=key.created,key.revoked')
      assert.deepEqual(
        entries.map((entry) => [entry.action, entry.target, entry.environment]),
        [
          ['key.revoked', issued.prefix, 'live'],
          ['key.created', issued.prefix, 'live'],
        ],
      )
      const actor = { kind: 'key', description: `key ${prefixOf(account.liveKey)} of ${account.id}` }
      for (const entry of entries) assert.deepEqual(entry.actor, actor)
      assert.deepEqual(entries[1].after, { prefix: issued.prefix, environment: 'live', scopes: null, expiresAt: null })
      assert.deepEqual(entries[0].before, { revoked: null })
      assert.equal(entries[0].after.revoked, t.clock.now().toISOString())
      assert.ok(!(await wholeTrailText(t)).includes(issued.key), 'the issued key is not in the trail')
    })

    test('a settings change records only the fields it changed, before and after; a rotation never its secret', async () => {
      const account = await t.createAccount()
      const before = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey)).settings
      const changed = await patchSettings('live', account.liveKey, {
        callbackUrl: 'https://hooks.example.com/printroute',
        pauseWindowSeconds: 600,
      })
      assert.equal(changed.statusCode, 200, changed.body)
      // The same values again change nothing, so they record nothing.
      assert.equal((await patchSettings('live', account.liveKey, { pauseWindowSeconds: 600 })).statusCode, 200)
      const rotated = await patchSettings('live', account.liveKey, { rotateSigningSecret: true })
      assert.equal(rotated.statusCode, 200, rotated.body)
      const after = json(rotated).settings
      const scenario = await patchSettings('sandbox', account.sandboxKey, { sandboxScenario: 'LabRejects' })
      assert.equal(scenario.statusCode, 200, scenario.body)

      const entries = await allEntries(account.sandboxKey, '?action=account.settingsChanged')
      assert.deepEqual(
        entries.map((entry) => [entry.environment, entry.before, entry.after]),
        [
          ['sandbox', { sandboxScenario: null }, { sandboxScenario: 'labRejects' }],
          ['live', null, { signingSecretRotated: true }],
          [
            'live',
            { callbackUrl: null, pauseWindowSeconds: 0 },
            { callbackUrl: 'https://hooks.example.com/printroute', pauseWindowSeconds: 600 },
          ],
        ],
      )
      assert.equal(entries[0].actor.kind, 'key')
      assert.match(entries[0].actor.description, new RegExp(`^key ${prefixOf(account.sandboxKey)} of`))
      const text = await wholeTrailText(t)
      assert.notEqual(before.signingSecret, after.signingSecret)
      for (const secret of [before.signingSecret, after.signingSecret]) {
        assert.ok(!text.includes(secret), 'no signing secret in the trail')
        assert.ok(!text.includes(secret.slice('whsec_'.length)), 'not even its body')
      }
    })

    test('a change through the dashboard names the session and the key it was made from', async () => {
      const account = await t.createAccount()
      const signIn = await t.app.sandbox.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ apiKey: account.sandboxKey, next: '/dashboard/developers' }).toString(),
      })
      const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_sandbox_session')
      assert.ok(cookie)
      const headers = { cookie: `${cookie.name}=${cookie.value}` }
      const page = await t.app.sandbox.inject({ method: 'GET', url: '/dashboard/developers/settings', headers })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string
      assert.ok(csrf)
      const rotate = await t.app.sandbox.inject({
        method: 'POST',
        url: '/dashboard/developers/settings/rotate-signing-secret',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, overlap: '0' }).toString(),
      })
      assert.equal(rotate.statusCode, 303, rotate.body)
      const [entry, ...rest] = await allEntries(account.sandboxKey, '?action=account.settingsChanged')
      assert.equal(rest.length, 0)
      assert.deepEqual(entry.actor, {
        kind: 'session',
        description: `dashboard session of key ${prefixOf(account.sandboxKey)} of ${account.id}`,
      })
      assert.deepEqual(entry.after, { signingSecretRotated: true })
      assert.equal(entry.environment, 'sandbox')
      // The Developers page's Activity view shows the account's recent trail, this change first.
      const activity = await t.app.sandbox.inject({ method: 'GET', url: '/dashboard/developers/activity', headers })
      assert.equal(activity.statusCode, 200)
      const rows = [...activity.body.matchAll(/<tr>\n<td[ >][\s\S]*?<\/tr>/g)].map((row) => row[0])
      assert.deepEqual(
        rows.map((row) => /<code>([a-zA-Z.]+)<\/code>/.exec(row)?.[1]),
        ['account.settingsChanged', 'account.created'],
      )
      assert.match(rows[0] ?? '', /dashboard session of key pr_sandbox_/)
      assert.match(rows[0] ?? '', /signingSecretRotated/)
    })

    test('a refused change records nothing', async () => {
      const account = await t.createAccount()
      const count = async () => (await allEntries(account.sandboxKey)).length
      const before = await count()
      const badUrl = await patchSettings('live', account.liveKey, { callbackUrl: 'ftp://hooks.example.com/' })
      assert.equal(badUrl.statusCode, 400, badUrl.body)
      const sandboxPause = await patchSettings('sandbox', account.sandboxKey, { pauseWindowSeconds: 60 })
      assert.equal(sandboxPause.statusCode, 401, sandboxPause.body)
      const unknownKey = await t.live(
        { method: 'POST', url: '/v4.0/account/keys/pr_live_nothing1/revoke' },
        account.liveKey,
      )
      assert.equal(unknownKey.statusCode, 404, unknownKey.body)
      const liveBySandbox = await t.sandbox(
        { method: 'POST', url: `/v4.0/account/keys/${prefixOf(account.liveKey)}/revoke` },
        account.sandboxKey,
      )
      assert.equal(liveBySandbox.statusCode, 401, liveBySandbox.body)
      assert.equal(await count(), before)
    })

    test('the command line: each operation one entry naming the user and host; lab changes stay off accounts', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const operations = createAdminOperations({
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
      const labCode = catalogue.labs[0]?.code as string
      const { key } = await operations.createKey({ account: account.id, environment: 'sandbox' })
      await operations.revokeKey({ prefix: prefixOf(key) })
      await operations.updateAccount({ account: account.id, change: { pauseWindowSeconds: 120 } })
      await operations.topUp({ account: account.id, amount: '25.50', reference: 'bank transfer 7' })
      const { key: labKey } = await operations.createLabKey({ lab: labCode })
      assert.deepEqual(await operations.setLabPaused({ lab: labCode, paused: true }), {
        lab: labCode,
        wasPaused: false,
      })
      assert.deepEqual(await operations.setLabPaused({ lab: labCode, paused: true }), { lab: labCode, wasPaused: true })
      assert.deepEqual(await operations.setLabPaused({ lab: labCode, paused: false }), {
        lab: labCode,
        wasPaused: true,
      })
      const pushed = await operations.configureLabPush({ lab: labCode, pushUrl: 'https://lab.example.com/jobs' })
      await operations.configureLabPush({ lab: labCode, rotateSecret: true })

      const description = `command line (${userInfo().username}@${hostname()})`
      const accountEntries = (await allEntries(account.sandboxKey)).filter((entry) => entry.actor.kind === 'cli')
      assert.deepEqual(
        accountEntries.filter((entry) => entry.actor.description === description).map((entry) => entry.action),
        ['account.toppedUp', 'account.settingsChanged', 'key.revoked', 'key.created'],
        'the pause window, changed in both environments by one command, is recorded once',
      )
      const topUp = accountEntries[0]
      assert.equal(topUp.environment, 'live')
      assert.deepEqual(topUp.before, { balance: '0.00', currency: 'GBP' })
      assert.deepEqual(topUp.after, {
        amount: '25.50',
        currency: 'GBP',
        reference: 'bank transfer 7',
        balance: '25.50',
      })

      const labEntries = (await t.app.services.audit.list({ top: 100 })).entries.filter(
        (entry) => entry.target === labCode && entry.actor.description === description,
      )
      assert.deepEqual(
        labEntries.map((entry) => [entry.action, entry.accountId, entry.before, entry.after]),
        [
          [
            'lab.pushConfigured',
            null,
            { url: 'https://lab.example.com/jobs' },
            { url: 'https://lab.example.com/jobs', secretCreated: false, secretRotated: true, removed: false },
          ],
          [
            'lab.pushConfigured',
            null,
            { url: catalogue.findLab(labCode)?.pushUrl ?? null },
            { url: 'https://lab.example.com/jobs', secretCreated: true, secretRotated: false, removed: false },
          ],
          ['lab.resumed', null, { paused: true }, { paused: false }],
          ['lab.paused', null, { paused: false }, { paused: true }],
          ['lab.keyCreated', null, null, { prefix: prefixOf(labKey) }],
        ],
        'pausing a paused lab records nothing',
      )
      const text = await wholeTrailText(t)
      for (const secret of [key, labKey, pushed.secret as string]) assert.ok(!text.includes(secret), 'no secret')
      for (const entry of await allEntries(account.sandboxKey)) assert.notEqual(entry.target, labCode)
    })

    test('the command line takes dates in years 0001 to 9999 only, like the API, on every database', async () => {
      const account = await t.createAccount()
      const operations = createAdminOperations({
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
      for (const input of [{ from: '0000-01-01' }, { to: '0000-01-01T00:00:00Z' }, { to: '+010000-01-01T00:00:00Z' }]) {
        await assert.rejects(operations.listAudit(input), /from 0001-01-01 to 9999-12-31/, JSON.stringify(input))
      }
      const widest = await operations.listAudit({ from: '0001-01-01T00:00:00Z', to: '9999-12-31T23:59:59Z' })
      assert.ok(widest.entries.length > 0)
      await assert.rejects(
        operations.createKey({ account: account.id, environment: 'sandbox', expiresAt: '0000-06-01T00:00:00Z' }),
        /in years 0001 to 9999/,
      )
    })

    test('two pauses of one lab at once record one pause (the second sees the first under the row lock)', async () => {
      const labCode = catalogue.labs[1]?.code as string
      const results = await Promise.all(
        [1, 2, 3].map(() => t.app.services.labs.setPaused(labCode, true, { kind: 'system' })),
      )
      assert.deepEqual(results.map((result) => result.wasPaused).sort(), [false, true, true])
      const paused = (await t.app.services.audit.list({ actions: ['lab.paused'], top: 100 })).entries
      assert.equal(paused.filter((entry) => entry.target === labCode).length, 1)
      await t.app.services.labs.setPaused(labCode, false, { kind: 'system' })
    })

    test("a lab's capacity report names the lab, with the day's figure before and after", async () => {
      const labCode = catalogue.labs[0]?.code as string
      const { key } = await t.app.services.labs.createLabKey(labCode, { kind: 'system' })
      const report = (jobsToday: number) =>
        t.app.live.inject({
          method: 'PUT',
          url: '/labs/v1/capacity',
          headers: { 'x-api-key': key, ...JSON_HEADERS },
          payload: JSON.stringify({ jobsToday }),
        })
      assert.equal((await report(12)).statusCode, 200)
      assert.equal((await report(7)).statusCode, 200)
      assert.equal((await report(-1)).statusCode, 400, 'refused: recorded nothing')
      const entries = (await t.app.services.audit.list({ actions: ['lab.capacityReported'], top: 10 })).entries
      assert.equal(entries.length, 2)
      const date = entries[0]?.after && (entries[0].after as { date: string }).date
      assert.deepEqual(
        entries.map((entry) => [entry.actor, entry.target, entry.before, entry.after]),
        [
          [{ kind: 'lab', description: `lab ${labCode}` }, labCode, { date, jobsToday: 12 }, { date, jobsToday: 7 }],
          [{ kind: 'lab', description: `lab ${labCode}` }, labCode, { date, jobsToday: null }, { date, jobsToday: 12 }],
        ],
      )
    })

    test('a capacity saved in the lab portal names the lab too', async () => {
      const labCode = catalogue.labs[2]?.code as string
      const { key } = await t.app.services.labs.createLabKey(labCode, { kind: 'system' })
      const form = { 'content-type': 'application/x-www-form-urlencoded' }
      const signIn = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/sign-in',
        headers: form,
        payload: new URLSearchParams({ labKey: key }).toString(),
      })
      const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_lab_session')
      assert.ok(cookie)
      const headers = { cookie: `${cookie.name}=${cookie.value}` }
      const page = await t.app.live.inject({ method: 'GET', url: '/labs/portal/jobs', headers })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string
      assert.ok(csrf)
      const saved = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/capacity',
        headers: { ...headers, ...form },
        payload: new URLSearchParams({ _csrf: csrf, jobsToday: '4' }).toString(),
      })
      assert.equal(saved.statusCode, 303, saved.body)
      const [entry] = (await t.app.services.audit.list({ actions: ['lab.capacityReported'], actorKind: 'lab', top: 1 }))
        .entries
      assert.equal(entry?.target, labCode)
      assert.deepEqual(entry?.actor, { kind: 'lab', description: `lab ${labCode}` })
      assert.equal((entry?.after as { jobsToday: number } | undefined)?.jobsToday, 4)
    })

    test('pages newest first by a cursor that new entries do not shift; another account sees none of it', async () => {
      const account = await t.createAccount()
      const other = await t.createAccount()
      for (let index = 0; index < 4; index += 1) {
        await issueKey('sandbox', account.sandboxKey)
        t.clock.advanceSeconds(60)
      }
      const first = await trail('sandbox', account.sandboxKey, '?top=2')
      assert.deepEqual(Object.keys(first), ['outcome', 'entries', 'hasMore', 'nextUrl', 'traceParent'])
      assert.equal(first.entries.length, 2)
      assert.equal(first.hasMore, true)
      assert.match(first.nextUrl, new RegExp(`/v4.0/account/audit\\?top=2&before=${first.entries[1].id}$`))
      // An entry made between two pages goes to the top; the next page goes on where the first stopped.
      await issueKey('sandbox', account.sandboxKey)
      const rest = await allEntries(account.sandboxKey, `?top=2&before=${first.entries[1].id}`)
      assert.deepEqual(
        rest.map((entry) => entry.action),
        ['key.created', 'key.created', 'account.created'],
      )
      const ids = [...first.entries, ...rest].map((entry) => Number(parseId('aud', entry.id)))
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
        'newest first',
      )
      const all = await allEntries(account.sandboxKey)
      assert.equal(all.length, 6)
      const last = await trail('sandbox', account.sandboxKey, `?top=6`)
      assert.equal(last.hasMore, false)
      assert.equal(last.nextUrl, null)
      // The same trail from Live; none of it from the other account.
      assert.deepEqual((await trail('live', account.liveKey, '?top=6')).entries, last.entries)
      const theirs = await allEntries(other.sandboxKey)
      assert.deepEqual(
        theirs.map((entry) => entry.action),
        ['account.created'],
      )
      assert.equal(theirs[0].target, other.id)
      const foreignCursor = await trail('sandbox', other.sandboxKey, `?before=aud_999999999`)
      assert.ok(foreignCursor.entries.every((entry: any) => entry.target === other.id))
    })

    test('filters: actions (repeated, comma-separated, any case) and a time range', async () => {
      const account: TestAccount = await t.createAccount()
      const start = t.clock.now()
      t.clock.advanceSeconds(3600)
      const issued = await issueKey('sandbox', account.sandboxKey)
      t.clock.advanceSeconds(3600)
      await t.sandbox({ method: 'POST', url: `/v4.0/account/keys/${issued.prefix}/revoke` }, account.sandboxKey)
      const actions = async (query: string) =>
        (await allEntries(account.sandboxKey, query)).map((entry: any) => entry.action)
      assert.deepEqual(await actions('?action=key.created&action=KEY.REVOKED'), ['key.revoked', 'key.created'])
      assert.deepEqual(await actions('?action=account.created,key.revoked'), ['key.revoked', 'account.created'])
      const hour = (hours: number) => new Date(start.getTime() + hours * 3600_000).toISOString()
      assert.deepEqual(await actions(`?from=${hour(0.5)}`), ['key.revoked', 'key.created'])
      assert.deepEqual(await actions(`?from=${hour(0.5)}&to=${hour(1.5)}`), ['key.created'])
      assert.deepEqual(await actions(`?to=${hour(1)}`), ['account.created'], '`to` is exclusive')
      assert.deepEqual(await actions(`?from=${hour(1)}&to=${hour(1)}`), [])
    })

    test('bad filters are refused naming the field and why', async () => {
      const failuresOf = async (query: string) => {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/account/audit${query}` })
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        return body.failures
      }
      const unknown = await failuresOf('?action=key.created,key.stolen')
      assert.deepEqual(Object.keys(unknown), ['action[1]'])
      assert.equal(unknown['action[1]'][0].code, 'InvalidValue')
      assert.equal(unknown['action[1]'][0].providedValue, 'key.stolen')
      assert.deepEqual(unknown['action[1]'][0].validValues, [...AUDIT_ACTIONS])
      assert.deepEqual(await failuresOf('?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z'), {
        to: [
          {
            code: 'MustBeGreaterThanOrEqualTo',
            providedValue: '2026-03-01T00:00:00.000Z',
            comparisonValue: '2026-03-02T00:00:00.000Z',
          },
        ],
      })
      assert.equal((await failuresOf('?from=yesterday')).from[0].code, 'InvalidFormat')
      assert.deepEqual((await failuresOf('?before=ord_12')).before, [
        { code: 'InvalidFormat', providedValue: 'ord_12', comparisonValue: 'aud_<number>' },
      ])
      assert.equal((await failuresOf('?top=101')).top[0].code, 'MustBeLessThanOrEqualTo')
      assert.ok((await failuresOf('?actor=key')).actor, 'an unknown parameter is refused')
      const unauthenticated = await t.sandbox({ method: 'GET', url: '/v4.0/account/audit' }, null)
      assert.equal(unauthenticated.statusCode, 401)
    })
  })
}
