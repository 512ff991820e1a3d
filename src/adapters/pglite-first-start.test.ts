// The embedded database's first start: initdb runs in a child process under a temporary name beside the data
// directory, which is renamed into place, so a start killed during initdb leaves no half-made data directory.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { INITDB_SCRIPT, PGLITE_SHARED_BUFFERS, PgliteDatabase } from './database.ts'
import { PRINTROUTE_NODE_FLAGS } from './node-flags.ts'

tier('sql')

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

test("the embedded database keeps a small page cache, set on the command line, and the directory's own settings", async () => {
  const directory = join(root, 'settings')
  const db = await PgliteDatabase.open(directory)
  const conf = readFileSync(join(directory, 'postgresql.conf'), 'utf8')
  try {
    const settings = await db.query<{ name: string; setting: string; source: string }>(
      `select name, current_setting(name) as setting, source from pg_settings
        where name in ('shared_buffers', 'TimeZone', 'lc_messages') order by name`,
    )
    assert.deepEqual(settings, [
      { name: 'TimeZone', setting: 'UTC', source: 'configuration file' },
      { name: 'lc_messages', setting: 'C', source: 'configuration file' },
      { name: 'shared_buffers', setting: PGLITE_SHARED_BUFFERS, source: 'command line' },
    ])
  } finally {
    await db.close()
  }
  // PGlite's own option for settings rewrites this file; the command line leaves it as initdb wrote it.
  assert.equal(readFileSync(join(directory, 'postgresql.conf'), 'utf8'), conf)
  assert.match(conf, /^shared_buffers = 128MB/m)
})

test('the installed PGlite is the version whose initdb the lean first start uses (an upgrade must update it)', () => {
  const check = spawnSync(process.execPath, [...PRINTROUTE_NODE_FLAGS, INITDB_SCRIPT, '--check'], { encoding: 'utf8' })
  assert.equal(check.stdout, 'initdb: found\n', check.stderr)
  assert.equal(check.status, 0)
})
