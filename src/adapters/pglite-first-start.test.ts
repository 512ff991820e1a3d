// The embedded database's first start: initdb runs in a child process under a temporary name beside the data
// directory, which is renamed into place, so a start killed during initdb leaves no half-made data directory.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { PgliteDatabase } from './database.ts'

const root = mkdtempSync(join(tmpdir(), 'printroute-first-start-'))
after(() => rmSync(root, { recursive: true, force: true }))

test('a new data directory is made whole by the initdb child, and what a killed one left is removed', async () => {
  const directory = join(root, 'pgdata')
  // What a start killed during initdb leaves: the child's directory under its temporary name, half made.
  const leftOver = join(root, 'pgdata.initdb-4242')
  mkdirSync(join(leftOver, 'base'), { recursive: true })
  writeFileSync(join(leftOver, 'postgresql.conf'), '')

  const db = await PgliteDatabase.open(directory)
  try {
    assert.deepEqual(await db.query('select 1 + 1 as two'), [{ two: 2 }])
    await db.exec('create table kept (value text)')
    await db.query("insert into kept values ('still here')")
  } finally {
    await db.close()
  }
  assert.ok(existsSync(join(directory, 'PG_VERSION')), 'the database is in place')
  assert.deepEqual(readdirSync(root).sort(), ['pgdata'], 'no temporary directory is left beside it')

  // Opened again, it is the same database (no second initdb over it).
  const reopened = await PgliteDatabase.open(directory)
  try {
    assert.deepEqual(await reopened.query('select value from kept'), [{ value: 'still here' }])
  } finally {
    await reopened.close()
  }
})
