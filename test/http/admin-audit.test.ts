// The console's audit trail page (src/web/operator/audit.pages.ts) on its own, over a real application's trail:
// every account's entries and the instance's own, newest first; filters by account, action, kind of actor and
// date; pages by a cursor; bad filters shown, never a 500.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { registerAuditPages } from '../../src/web/operator/audit.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { catalogue, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

/** The rows of the page's table, each as its cells' text. */
function rowsOf(page: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? ''
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<td(?: data-label="[^"]*")?>([\s\S]*?)<\/td>/g)].map((cell) =>
      (cell[1] ?? '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/&quot;/g, '"')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  )
}

for (const kind of databaseKinds) {
  describe(`the console's audit trail page (${kind})`, () => {
    let t: TestApp
    let pages: AdminPagesHarness
    let one: TestAccount
    let two: TestAccount
    const labCode = catalogue.labs[0]?.code as string
    before(async () => {
      t = await startTestApp({ kind })
      pages = await startAdminPages((scope, console) => registerAuditPages(scope, console, t.app.services.audit))
      one = await t.createAccount()
      t.clock.advanceSeconds(86_400)
      two = await t.createAccount()
      await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' }, two.sandboxKey)
      await t.app.services.labs.setPaused(labCode, true, { kind: 'operator', operatorId: 'opr_4', name: 'Dana' })
    })
    after(async () => {
      await pages.close()
      await t.close()
    })

    test('every entry, newest first, with who, what, where and the change', async () => {
      const page = await pages.request('/admin/audit')
      assert.equal(page.status, 200)
      assert.match(page.body, /<main data-section="audit">/)
      const rows = rowsOf(page.body)
      assert.ok(rows.length >= 4)
      const [paused, key, created] = rows
      assert.match(paused?.[1] ?? '', /^Operator operator opr_4 \(Dana\)$/)
      assert.equal(paused?.[2], 'lab.paused')
      assert.equal(paused?.[3], '—')
      assert.equal(paused?.[4], labCode)
      assert.equal(paused?.[5], 'before {"paused":false} after {"paused":true}')
      assert.match(key?.[1] ?? '', /^API key key pr_sandbox_[\w-]+ of /)
      assert.equal(key?.[3], `${two.id} sandbox`)
      assert.equal(created?.[2], 'account.created')
      assert.equal(created?.[3], two.id)
      // Every form control has a label (the console's accessibility rule).
      for (const id of ['audit-account', 'audit-action', 'audit-actor', 'audit-from', 'audit-to']) {
        assert.match(page.body, new RegExp(`<label for="${id}">`))
      }
    })

    test('filters: account, action, kind of actor and dates', async () => {
      const actionsOf = async (query: string) => rowsOf((await pages.request(`/admin/audit?${query}`)).body)
      assert.deepEqual(
        (await actionsOf(`account=${one.id}`)).map((row) => row[2]),
        ['account.created'],
      )
      assert.deepEqual(
        (await actionsOf(`account=${two.id.slice('acc_'.length)}`)).map((row) => row[2]),
        ['key.created', 'account.created'],
        'a bare number is an account id too',
      )
      assert.deepEqual(
        (await actionsOf('action=lab.paused')).map((row) => row[4]),
        [labCode],
      )
      assert.deepEqual(
        (await actionsOf('actor=operator')).map((row) => row[2]),
        ['lab.paused'],
      )
      const firstDay = t.clock.now().toISOString().slice(0, 10)
      const dayBefore = new Date(t.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10)
      assert.ok((await actionsOf(`from=${firstDay}&to=${firstDay}`)).every((row) => row[3] !== one.id))
      assert.ok((await actionsOf(`from=${dayBefore}&to=${dayBefore}`)).some((row) => row[3] === one.id))
      const none = await pages.request(`/admin/audit?account=${one.id}&action=lab.paused`)
      assert.match(none.body, /No entries match these filters/)
    })

    test('pages by a cursor: Older continues where the page stopped, Newest goes back', async () => {
      // printroute's own entries so far (the first start imports and activates the bundled catalogue).
      const [{ count: earlier } = { count: 0 }] = await t.database.db.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM audit_events WHERE actor_kind = 'system'",
      )
      for (let index = 0; index < 55; index += 1) {
        await t.app.services.labs.setPaused(labCode, index % 2 === 1, { kind: 'system' })
      }
      const first = await pages.request('/admin/audit?actor=system')
      assert.equal(rowsOf(first.body).length, 50)
      const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&')
      assert.ok(older, 'an Older link')
      assert.match(older, /^\/admin\/audit\?actor=system&before=aud_\d+$/)
      const second = await pages.request(older)
      assert.equal(rowsOf(second.body).length, 55 + earlier - 50)
      assert.doesNotMatch(second.body, /rel="next"/)
      assert.match(second.body, /<a href="\/admin\/audit\?actor=system">Newest<\/a>/)
    })

    test('the widest days are read on every database: 0001-01-01 to 9999-12-31', async () => {
      const page = await pages.request('/admin/audit?from=0001-01-01&to=9999-12-31')
      assert.equal(page.status, 200, page.body)
      assert.ok(rowsOf(page.body).length > 0)
    })

    test('bad filters are shown as a notice (400), never a 500', async () => {
      for (const [query, message] of [
        ['account=ord_3', /is not an account ID/],
        ['action=key.stolen', /is not an action of the trail/],
        ['actor=robot', /is not a kind of actor/],
        ['from=tomorrow', /is not a date/],
        // Year 0 is no date any database reads (the API's rule: years 0001 to 9999).
        ['from=0000-01-01', /is not a date from 0001-01-01 to 9999-12-31/],
        ['to=0000-01-01', /is not a date from 0001-01-01 to 9999-12-31/],
        ['from=2026-03-05&to=2026-03-01', /date is after the/],
        ['before=aud_x', /could not be validated|before/],
      ] as const) {
        const page = await pages.request(`/admin/audit?${query}`)
        assert.equal(page.status, 400, query)
        assert.match(page.body, message, query)
        assert.equal(rowsOf(page.body).length, 0)
      }
    })
  })
}
