// The console's catalogue pages (src/web/operator/catalogue.pages.ts) on their own, over a real application's
// catalogue versions service (both databases): the versions table, the diff view, activating, and importing a
// pasted file, refused with every problem listed and kept in the form. The console's shell, sign-in and CSRF are
// the console plugin's, tested with it.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { setPriceList } from '../../src/services/operator/accounts.ts'
import { consoleCatalogueOf } from '../../src/services/operator/console-sections.ts'
import { registerCataloguePages } from '../../src/web/operator/catalogue.pages.ts'
import { startAdminPages, TEST_OPERATOR } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { startTestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

function dearerSample(): string {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
  for (const lab of file.labs) {
    for (const product of lab.products) product.unitCost = (Number(product.unitCost) * 2).toFixed(2)
  }
  return JSON.stringify(file)
}

for (const kind of databaseKinds) {
  describe(`console catalogue pages (${kind})`, () => {
    test('versions, import (refused with every problem, then stored), diff and activation by the operator', async () => {
      const t = await startTestApp({ kind })
      const pages = await startAdminPages((server, console) =>
        registerCataloguePages(server, console, consoleCatalogueOf(t.app.services.catalogueVersions)),
      )
      try {
        const listed = await pages.request('/admin/catalogue')
        assert.equal(listed.status, 200)
        assert.match(listed.body, /Active version: <strong>1<\/strong>/)
        assert.match(listed.body, /<label for="import-content">Catalogue JSON<\/label>/)
        assert.match(listed.body, /name="_csrf" value="csrf-test"/)

        const broken = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
        broken.products[0].sku = 7
        broken.taxRates.GB.ratePercent = 'a lot'
        const refused = await pages.request('/admin/catalogue/import', {
          _csrf: 'csrf-test',
          sourceName: 'broken.json',
          content: JSON.stringify(broken),
        })
        assert.equal(refused.status, 400)
        assert.match(refused.body, /catalogue broken\.json refused, nothing stored: \d+ problems/)
        assert.match(refused.body, /<li>products\[0\]\.sku: [^<]+<\/li>/)
        assert.match(refused.body, /<li>taxRates\.GB\.ratePercent: [^<]+<\/li>/)
        // The pasted text stays in the form, escaped.
        assert.match(refused.body, /<textarea[^>]*>\{&quot;formatVersion&quot;/)
        assert.equal((await t.app.services.catalogueVersions.list()).length, 1)

        const imported = await pages.request('/admin/catalogue/import', {
          _csrf: 'csrf-test',
          sourceName: 'dearer.json',
          content: dearerSample(),
        })
        assert.equal(imported.status, 303)
        assert.equal(imported.location, '/admin/catalogue')
        assert.equal((await t.app.services.catalogueVersions.active()).version, 1)
        const versions = await pages.request('/admin/catalogue')
        assert.match(versions.body, /<td>dearer\.json<\/td>/)
        assert.match(versions.body, /Activate version 2/)

        const diff = await pages.request('/admin/catalogue/diff?from=1&to=2')
        assert.equal(diff.status, 200)
        assert.match(diff.body, /Prices \(a variant from a lab\)/)
        assert.match(
          diff.body,
          /<td data-label="Version 1">12\.50 GBP<\/td><td data-label="Version 2">25\.00 GBP<\/td>/,
        )
        const missing = await pages.request('/admin/catalogue/diff?from=1&to=8')
        assert.equal(missing.status, 404)
        assert.match(missing.body, /no catalogue version 8/)
        assert.equal((await pages.request('/admin/catalogue/diff?from=x')).status, 400)

        const unknown = await pages.request('/admin/catalogue/activate', { _csrf: 'csrf-test', version: '5' })
        assert.equal(unknown.status, 303)
        assert.equal((await t.app.services.catalogueVersions.active()).version, 1)
        const activated = await pages.request('/admin/catalogue/activate', { _csrf: 'csrf-test', version: '2' })
        assert.equal(activated.status, 303)
        assert.equal((await t.app.services.catalogueVersions.active()).version, 2)
        assert.equal(t.app.services.catalogueVersions.live().version, 2)
        const [entry] = await listAuditEvents(t.database.db, { actions: ['catalogue.activated'], limit: 1 })
        assert.deepEqual(entry && [entry.actorKind, entry.actor, entry.actorDescription, entry.after], [
          'operator',
          TEST_OPERATOR.operator.id,
          `operator ${TEST_OPERATOR.operator.id} (${TEST_OPERATOR.operator.name})`,
          '{"version":2}',
        ])
      } finally {
        await pages.close()
        await t.close()
      }
    })

    test("activating a version without an account's price list: the diff and the confirmation name the accounts first", async () => {
      const t = await startTestApp({ kind })
      const pages = await startAdminPages((server, console) =>
        registerCataloguePages(server, console, consoleCatalogueOf(t.app.services.catalogueVersions)),
      )
      try {
        const trade = await t.createAccount()
        const retail = await t.createAccount()
        const operator = { accounts: t.app.services.accounts, catalogueVersions: t.app.services.catalogueVersions }
        await setPriceList({ ...operator, actor: TEST_ACTOR }, { account: trade.id, list: 'wholesale' })
        await setPriceList({ ...operator, actor: TEST_ACTOR }, { account: retail.id, list: 'retail' })
        // Version 2 drops wholesale; the sample has no default list, so its accounts pay the labs' costs there.
        const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
        delete file.priceLists.wholesale
        await t.app.services.catalogueVersions.import(JSON.stringify(file), 'no-wholesale.json', TEST_ACTOR)

        const diff = await pages.request('/admin/catalogue/diff?from=1&to=2')
        assert.equal(diff.status, 200)
        assert.match(diff.body, /Price lists \(a list, and its product, category and shipping rules\)/)
        assert.match(diff.body, /<td data-label="Entry">wholesale<\/td>/)
        assert.match(diff.body, /Accounts whose price list version 2 does not have/)
        assert.match(
          diff.body,
          new RegExp(
            `>${trade.id}</a></td><td data-label="Price list">wholesale</td><td data-label="On version 2">the labs&#39; costs \\(no default list\\)</td>`,
          ),
        )
        assert.ok(!diff.body.includes(`>${retail.id}<`), 'an account whose list stays is not named')

        const versions = await pages.request('/admin/catalogue')
        assert.match(
          versions.body,
          /<form method="get" action="\/admin\/catalogue\/activate"><input type="hidden" name="version" value="2">/,
        )
        const confirm = await pages.request('/admin/catalogue/activate?version=2')
        assert.equal(confirm.status, 200)
        assert.match(confirm.body, /Activate catalogue version 2\?/)
        const warning = `account ${trade.id} buys on price list &quot;wholesale&quot;, which catalogue version 2 does not have: nor a default list, so it pays the labs&#39; costs`
        assert.ok(confirm.body.includes(`<li>${warning}</li>`), confirm.body)
        assert.match(confirm.body, /<form method="post" action="\/admin\/catalogue\/activate"/)
        assert.equal((await t.app.services.catalogueVersions.active()).version, 1, 'the confirmation changes nothing')
        assert.equal((await pages.request('/admin/catalogue/activate?version=9')).status, 303)

        const activated = await pages.request('/admin/catalogue/activate', { _csrf: 'csrf-test', version: '2' })
        assert.equal(activated.status, 303)
        assert.equal((await t.app.services.catalogueVersions.active()).version, 2)
        const notice = JSON.parse(activated.notice ?? '{}')
        assert.equal(notice.kind, 'info')
        assert.match(notice.text, /Version 2 is active \(was 1\)/)
        assert.match(notice.text, new RegExp(`Warning: account ${trade.id} buys on price list "wholesale"`))
        // Back to version 1: every list is there, so nothing to warn about.
        const back = await pages.request('/admin/catalogue/activate?version=1')
        assert.match(back.body, /No account buys on a price list this version lacks\./)
      } finally {
        await pages.close()
        await t.close()
      }
    })
  })
}
