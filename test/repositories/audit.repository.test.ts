// The audit trail's table on every configured backend: entries are appended and read back, and the database
// itself refuses to change or remove one, whatever the code tries.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { appendAuditEvent, listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { openTestDatabase, type TestDatabase } from '../support/databases.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`the audit trail's table (${kind})`, () => {
    let database: TestDatabase

    before(async () => {
      database = await openTestDatabase(kind)
    })
    after(() => database.close())

    test('an entry is read back with its actor, action, target and before/after', async () => {
      const id = await appendAuditEvent(
        database.db,
        {
          actor: { kind: 'cli', host: 'print-1', user: 'ops' },
          action: 'account.settingsChanged',
          accountId: 7,
          environment: 'live',
          target: 'acc_7',
          before: { pauseWindowSeconds: 60 },
          after: { pauseWindowSeconds: 120 },
        },
        new Date('2026-11-01T10:00:00Z'),
      )
      const [row] = await listAuditEvents(database.db, { accountId: 7, limit: 10 })
      assert.equal(row?.id, id)
      assert.equal(row?.actorKind, 'cli')
      assert.equal(row?.actor, 'ops@print-1')
      assert.equal(row?.actorDescription, 'command line (ops@print-1)')
      assert.equal(row?.action, 'account.settingsChanged')
      assert.deepEqual(JSON.parse(row?.before ?? 'null'), { pauseWindowSeconds: 60 })
      assert.deepEqual(JSON.parse(row?.after ?? 'null'), { pauseWindowSeconds: 120 })
      assert.deepEqual(await listAuditEvents(database.db, { accountId: 8, limit: 10 }), [])
      assert.equal((await listAuditEvents(database.db, { actions: ['key.created'], limit: 10 })).length, 0)
    })

    test('the database refuses to update, delete or truncate an entry', async () => {
      await appendAuditEvent(
        database.db,
        { actor: { kind: 'system' }, action: 'lab.paused', accountId: null, environment: null, target: 'LAB' },
        new Date(),
      )
      for (const statement of [
        `UPDATE audit_events SET action = 'lab.resumed'`,
        'DELETE FROM audit_events',
        'TRUNCATE audit_events',
      ]) {
        await assert.rejects(database.db.query(statement), /append-only/, statement)
      }
      const rows = await listAuditEvents(database.db, { actions: ['lab.paused'], limit: 10 })
      assert.equal(rows.length, 1)
    })

    test('an upsert cannot rewrite an entry either, and an entry made in a rolled-back change is not kept', async () => {
      const id = await appendAuditEvent(
        database.db,
        { actor: { kind: 'system' }, action: 'lab.resumed', accountId: null, environment: null, target: 'LAB-2' },
        new Date(),
      )
      // INSERT ... ON CONFLICT DO UPDATE updates the existing row: the UPDATE trigger refuses it too.
      await assert.rejects(
        database.db.query(
          `INSERT INTO audit_events (id, at, actor_kind, actor, actor_description, action)
           VALUES ($1, now(), 'system', 'printroute', 'printroute', 'lab.paused')
           ON CONFLICT (id) DO UPDATE SET action = EXCLUDED.action`,
          [id],
        ),
        /append-only/,
      )
      await assert.rejects(
        database.db.transaction(async (tx) => {
          await appendAuditEvent(
            tx,
            { actor: { kind: 'system' }, action: 'lab.paused', accountId: null, environment: null, target: 'LAB-3' },
            new Date(),
          )
          throw new Error('the change failed')
        }),
        /the change failed/,
      )
      const kept = await listAuditEvents(database.db, { actions: ['lab.paused', 'lab.resumed'], limit: 10 })
      assert.deepEqual(
        kept.filter((row) => row.target !== 'LAB').map((row) => [row.target, row.action]),
        [['LAB-2', 'lab.resumed']],
      )
    })
  })
}
