// Upgrading the CloudEvents `sequence` attribute to the sequence extension's string form (migrations/0014): the
// events kept from before, written with a number, are rewritten in place, so the feed and redeliveries carry one
// form; a test callback's event (no sequence) and a body already in the new form stay as they are.
import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PgliteDatabase } from '../../src/adapters/database.ts'
import { listMigrationFiles, migrate } from '../../src/adapters/migrator.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

const MIGRATIONS = join(import.meta.dirname, '..', '..', 'migrations')

test("0014 rewrites the kept events' numeric sequence as 19 zero-padded digits, and nothing else", async () => {
  const before = mkdtempSync(join(tmpdir(), 'printroute-migrations-'))
  for (const file of listMigrationFiles(MIGRATIONS).filter((name) => name < '0014')) {
    cpSync(join(MIGRATIONS, file), join(before, file))
  }
  const db = await PgliteDatabase.open()
  try {
    await migrate(db, before)
    const orderEvent = (sequence: number) =>
      JSON.stringify({
        specversion: '1.0',
        type: 'com.printroute.order.status.stage.changed#Cancelled',
        id: `evt_${sequence}`,
        data: { order: { id: 'ord_1', note: 'a "sequence":1} inside the order stays' }, traceParent: '00-1-2-01' },
        subject: 'ord_1',
        sequence,
      })
    const testEvent = JSON.stringify({ specversion: '1.0', type: 'com.printroute.test', id: 'evt_9', data: {} })
    const already = orderEvent(3).replace('"sequence":3}', '"sequence":"0000000000000000003"}')
    // The events alone are what the migration reads: their order and account rows are left out (no triggers, so
    // no foreign key checks, in this session only).
    await db.transaction(async (tx) => {
      await tx.exec("SET LOCAL session_replication_role = 'replica'")
      const insert = (id: number, orderId: number | null, sequence: number, body: string) =>
        tx.query(
          `INSERT INTO order_events (id, order_id, account_id, environment, sequence, type, created_at, body)
           VALUES ($1, $2, 1, 'sandbox', $3, 'x', now(), $4)`,
          [id, orderId, sequence, body],
        )
      await insert(1, 1, 1, orderEvent(1))
      await insert(2, 1, 12, orderEvent(12))
      await insert(3, 2, 3, already)
      await insert(9, null, 0, testEvent)
    })

    const result = await migrate(db, MIGRATIONS)
    assert.ok(result.applied.includes('0014_event_sequence_strings'), JSON.stringify(result.applied))
    const bodies = new Map(
      (await db.query<{ id: string; body: string }>('SELECT id, body FROM order_events')).map((row) => [
        Number(row.id),
        row.body,
      ]),
    )
    assert.equal(bodies.get(1), orderEvent(1).replace('"sequence":1}', '"sequence":"0000000000000000001"}'))
    assert.equal(JSON.parse(bodies.get(2) ?? '{}').sequence, '0000000000000000012')
    assert.equal(
      JSON.parse(bodies.get(1) ?? '{}').data.order.note,
      'a "sequence":1} inside the order stays',
      'only the attribute at the end is rewritten',
    )
    assert.equal(bodies.get(3), already)
    assert.equal(bodies.get(9), testEvent)
  } finally {
    await db.close()
    rmSync(before, { recursive: true, force: true })
  }
})
