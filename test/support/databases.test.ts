// A test database is always as a new one, though `close` keeps it for the next test of the process
// (test/support/database-reset.ts): what one test wrote, advanced or changed is never seen by the next.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { openTestDatabase, testDatabasesMade } from './databases.ts'
import { tier } from './tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`test databases are new to every test (${kind})`, () => {
    /** What a new database holds, in the parts a test could change. */
    async function state(db: Awaited<ReturnType<typeof openTestDatabase>>['db']) {
      const [settings] = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM settings')
      const migrations = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY 1')
      const [sequence] = await db.query<{ last: string | null }>(
        `SELECT last_value::text AS last FROM pg_sequences WHERE sequencename = 'order_id_seq' AND schemaname = current_schema()`,
      )
      const columns = await db.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'settings' ORDER BY 1`,
      )
      return { settings: settings?.count, migrations, sequence: sequence?.last, columns }
    }

    test('rows written, sequences advanced and session settings made are gone from the next one', async () => {
      const first = await openTestDatabase(kind)
      const fresh = await state(first.db)
      await first.db.query(`INSERT INTO settings (name, value) VALUES ('left-behind', 'yes')`)
      await first.db.query(`SELECT nextval('order_id_seq') FROM generate_series(1, 5)`)
      await first.db.query(`SET statement_timeout = '1234ms'`)
      assert.notDeepEqual(await state(first.db), fresh)
      await first.close()

      const madeBefore = testDatabasesMade()[kind]
      const second = await openTestDatabase(kind)
      try {
        assert.equal(testDatabasesMade()[kind], madeBefore, 'the first database was emptied and handed out again')
        assert.deepEqual(await state(second.db), fresh)
        const [timeout] = await second.db.query<{ value: string }>(
          `SELECT current_setting('statement_timeout') AS value`,
        )
        assert.notEqual(timeout?.value, '1234ms')
      } finally {
        await second.close()
      }
    })

    test('functions made since it was new are dropped, and the database is handed out again', async () => {
      const first = await openTestDatabase(kind)
      // As the application's job queue makes its insert wrappers as it goes (src/adapters/job-queue.ts).
      await first.db.exec(`CREATE FUNCTION made_by_a_test(value int) RETURNS int LANGUAGE sql AS 'SELECT value + 1'`)
      await first.close()

      const madeBefore = testDatabasesMade()[kind]
      const second = await openTestDatabase(kind)
      try {
        assert.equal(testDatabasesMade()[kind], madeBefore, 'the first database was emptied and handed out again')
        const functions = await second.db.query(`SELECT 1 FROM pg_proc WHERE proname = 'made_by_a_test'`)
        assert.deepEqual(functions, [])
      } finally {
        await second.close()
      }
    })

    test('a database whose structure a test changed is not handed out again', async () => {
      const first = await openTestDatabase(kind)
      const fresh = await state(first.db)
      await first.db.exec(`ALTER TABLE settings ADD COLUMN left_behind text`)
      await first.close()

      const second = await openTestDatabase(kind)
      try {
        assert.deepEqual(await state(second.db), fresh)
      } finally {
        await second.close()
      }
    })

    test('a closed database refuses whoever still holds it', async () => {
      const database = await openTestDatabase(kind)
      await database.close()
      await assert.rejects(database.db.query('SELECT 1'))
      // Closing again changes nothing (a test may close a database an application's close already closed).
      await database.close()
      const next = await openTestDatabase(kind)
      const other = await openTestDatabase(kind)
      try {
        await next.db.query(`INSERT INTO settings (name, value) VALUES ('mine', 'next')`)
        const rows = await other.db.query<{ name: string }>(`SELECT name FROM settings WHERE name = 'mine'`)
        assert.deepEqual(rows, [], 'two databases open at once are two databases')
      } finally {
        await next.close()
        await other.close()
      }
    })
  })
}
