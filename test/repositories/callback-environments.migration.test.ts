// Upgrading to per-environment callback settings (migrations/0007): an existing account keeps its callback URL
// in both environments and its signing secret (with its overlap) for Live, while Sandbox stops signing with
// the Live secret and gets a new one of its own when first needed.
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ManualClock } from '../../src/adapters/clock.ts'
import { PgliteDatabase } from '../../src/adapters/database.ts'
import { listMigrationFiles, migrate } from '../../src/adapters/migrator.ts'
import { createAccountsService } from '../../src/services/accounts.service.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

const MIGRATIONS = join(import.meta.dirname, '..', '..', 'migrations')

test('0007 copies the callback URL to both environments, keeps the Live secret, gives Sandbox its own', async () => {
  const before = mkdtempSync(join(tmpdir(), 'printroute-migrations-'))
  for (const file of listMigrationFiles(MIGRATIONS).filter((name) => name < '0007')) {
    cpSync(join(MIGRATIONS, file), join(before, file))
  }
  const db = await PgliteDatabase.open()
  try {
    await migrate(db, before)
    const liveSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
    const oldSecret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`
    const overlapEnds = new Date('2026-03-02T00:00:00.000Z')
    await db.query(
      `INSERT INTO accounts (name, billing_currency, pause_window_seconds, callback_url, signing_secret,
                             previous_signing_secret, previous_signing_secret_expires_at, created_at)
       VALUES ('Old shop', 'GBP', 120, 'https://shop.example.com/hook', $1, $2, $3, now()),
              ('Quiet shop', 'GBP', 0, NULL, NULL, NULL, NULL, now())`,
      [liveSecret, oldSecret, overlapEnds],
    )
    const ids = (await db.query<{ id: string }>('SELECT id FROM accounts ORDER BY id')).map((row) => Number(row.id))
    const [shop, quiet] = ids as [number, number]

    const result = await migrate(db, MIGRATIONS)
    assert.ok(result.applied.includes('0007_callback_environments'), JSON.stringify(result.applied))

    const clock = new ManualClock(new Date('2026-03-01T00:00:00.000Z'))
    const accounts = createAccountsService({ db, clock, isKnownCurrency: () => true })
    const live = await accounts.getSettings(shop, 'live')
    assert.deepEqual(live, {
      environment: 'live',
      callbackUrl: 'https://shop.example.com/hook',
      pauseWindowSeconds: 120,
      signingSecret: liveSecret,
      previousSigningSecretExpiresAt: overlapEnds.toISOString(),
      addressValidation: 'warn',
      callbackEvents: 'all',
    })
    const sandbox = await accounts.getSettings(shop, 'sandbox')
    assert.equal(sandbox.callbackUrl, 'https://shop.example.com/hook')
    assert.equal(sandbox.pauseWindowSeconds, 120)
    assert.match(sandbox.signingSecret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.ok(![liveSecret, oldSecret].includes(sandbox.signingSecret), 'Sandbox never signs with a Live secret')
    assert.equal(sandbox.previousSigningSecretExpiresAt, null)
    assert.equal((await accounts.getSettings(shop, 'sandbox')).signingSecret, sandbox.signingSecret, 'kept once made')

    const quietSandbox = await accounts.getSettings(quiet, 'sandbox')
    const quietLive = await accounts.getSettings(quiet, 'live')
    assert.equal(quietLive.callbackUrl, null)
    assert.notEqual(quietSandbox.signingSecret, quietLive.signingSecret)
  } finally {
    await db.close()
    rmSync(before, { recursive: true, force: true })
  }
})
