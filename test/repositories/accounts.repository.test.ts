// Accounts and keys on every configured backend, through the accounts service (hashing, prefixes, revocation).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ManualClock } from '../../src/adapters/clock.ts'
import { type AccountsService, createAccountsService } from '../../src/services/accounts.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`accounts and API keys (${kind})`, () => {
    let database: TestDatabase
    let accounts: AccountsService

    before(async () => {
      database = await openTestDatabase(kind)
      accounts = createAccountsService({ db: database.db, clock: new ManualClock(), isKnownCurrency: () => true })
    })
    after(() => database.close())

    test('an account comes with one random key per environment, stored only as a hash', async () => {
      const created = await accounts.createAccount(
        {
          name: 'Shop',
          billingCurrency: 'GBP',
          pauseWindowSeconds: 60,
          callbackUrl: null,
        },
        TEST_ACTOR,
      )
      assert.match(created.account.id, /^acc_\d+$/)
      assert.match(created.keys.sandbox.key, /^pr_sandbox_[A-Za-z0-9_-]{43}$/)
      assert.match(created.keys.live.key, /^pr_live_[A-Za-z0-9_-]{43}$/)
      assert.ok(created.keys.live.key.startsWith(created.keys.live.prefix))
      const stored = await database.db.query<{ key_hash: string; prefix: string }>(
        'SELECT key_hash, prefix FROM api_keys',
      )
      const keys = [created.keys.sandbox.key, created.keys.live.key]
      for (const row of stored) {
        assert.ok(!keys.includes(row.key_hash), 'the key itself is never stored')
        assert.match(row.key_hash, /^[0-9a-f]{64}$/)
      }
    })

    test('a key authenticates only in its own environment', async () => {
      const created = await accounts.createAccount(
        {
          name: 'Shop',
          billingCurrency: 'USD',
          pauseWindowSeconds: 0,
          callbackUrl: 'https://shop.test/cb',
        },
        TEST_ACTOR,
      )
      const sandbox = await accounts.authenticate(created.keys.sandbox.key, 'sandbox')
      assert.equal(sandbox?.environment, 'sandbox')
      assert.equal(sandbox?.billingCurrency, 'USD')
      assert.equal(await accounts.authenticate(created.keys.sandbox.key, 'live'), undefined)
      assert.equal(await accounts.authenticate(`${created.keys.live.key}x`, 'live'), undefined)
    })

    test('each environment has its own callback URL and signing secret', async () => {
      const created = await accounts.createAccount(
        {
          name: 'Shop',
          billingCurrency: 'GBP',
          pauseWindowSeconds: 0,
          callbackUrl: 'https://shop.test/live',
          callbackUrls: { sandbox: 'https://staging.shop.test/cb' },
        },
        TEST_ACTOR,
      )
      assert.deepEqual(created.account.callbackUrls, {
        sandbox: 'https://staging.shop.test/cb',
        live: 'https://shop.test/live',
      })
      const accountNumber = Number(created.account.id.slice('acc_'.length))
      const sandbox = await accounts.getSettings(accountNumber, 'sandbox')
      const live = await accounts.getSettings(accountNumber, 'live')
      assert.equal(sandbox.callbackUrl, 'https://staging.shop.test/cb')
      assert.equal(live.callbackUrl, 'https://shop.test/live')
      assert.match(sandbox.signingSecret, /^whsec_/)
      assert.notEqual(sandbox.signingSecret, live.signingSecret)
      const changed = await accounts.updateSettings(
        accountNumber,
        'sandbox',
        {
          callbackUrl: null,
          rotateSigningSecret: true,
        },
        TEST_ACTOR,
      )
      assert.ok('settings' in changed)
      assert.equal(changed.settings.callbackUrl, null)
      assert.notEqual(changed.settings.signingSecret, sandbox.signingSecret)
      assert.deepEqual(await accounts.getSettings(accountNumber, 'live'), live, "Live's settings stay as they were")
      const listed = (await accounts.listAccounts()).find((account) => account.id === created.account.id)
      assert.deepEqual(listed?.callbackUrls, { sandbox: null, live: 'https://shop.test/live' })
    })

    test('a revoked key stops working; an unknown prefix is refused', async () => {
      const created = await accounts.createAccount(
        {
          name: 'Shop',
          billingCurrency: 'GBP',
          pauseWindowSeconds: 0,
          callbackUrl: null,
        },
        TEST_ACTOR,
      )
      const extra = await accounts.createApiKey(created.account.id, 'live', TEST_ACTOR)
      assert.ok(await accounts.authenticate(extra.key, 'live'))
      await accounts.revokeApiKey(extra.prefix, TEST_ACTOR)
      assert.equal(await accounts.authenticate(extra.key, 'live'), undefined)
      assert.ok(await accounts.authenticate(created.keys.live.key, 'live'), 'other keys keep working')
      await assert.rejects(accounts.revokeApiKey(extra.prefix, TEST_ACTOR), /No active key/)
      const listed = await accounts.listApiKeys(created.account.id)
      assert.equal(listed.length, 3)
      assert.ok(listed.find((key) => key.prefix === extra.prefix)?.revokedAt)
    })

    test('bad account input is refused with a message', async () => {
      await assert.rejects(
        accounts.createAccount(
          { name: ' ', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null },
          TEST_ACTOR,
        ),
        /name/,
      )
      await assert.rejects(
        accounts.createAccount(
          { name: 'x', billingCurrency: 'pounds', pauseWindowSeconds: 0, callbackUrl: null },
          TEST_ACTOR,
        ),
        /currency/,
      )
      await assert.rejects(
        accounts.createAccount(
          { name: 'x', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: 'ftp://x' },
          TEST_ACTOR,
        ),
        /URL/,
      )
      await assert.rejects(accounts.createApiKey('acc_999999', 'live', TEST_ACTOR), /No account/)
      await assert.rejects(accounts.createApiKey('nope', 'live', TEST_ACTOR), /not an account ID/)
    })
  })
}
