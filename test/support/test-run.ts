// What the processes of one `npm test` share: a run id, so that the schemas its tests make on the PostgreSQL
// server can be told from another run's, and dropped at the end whatever happened to the process that made them.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** Set by `npm test` (test/run-suite.ts) for every test process it starts; absent when a file runs on its own. */
const RUN = process.env.PRINTROUTE_TEST_RUN

/** What the schemas of run `run` (or of no run) start with. */
function schemaPrefix(run: string | undefined): string {
  return `printroute_test_${run ? `${run}_` : ''}`
}

/** Every schema a test makes on the PostgreSQL server starts with this. */
export const POSTGRES_SCHEMA_PREFIX = schemaPrefix(RUN)

/** A new run id, for the runner to give its processes (PRINTROUTE_TEST_RUN). */
export function newTestRunId(): string {
  return randomBytes(4).toString('hex')
}

/** Drops the schemas of run `run` still on the server (each test process drops its own; a killed one cannot). */
export async function dropRunSchemas(url: string, run: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(nspname) AS name FROM pg_namespace WHERE starts_with(nspname, $1)`,
      [schemaPrefix(run)],
    )
    if (rows.length > 0) await client.query(`DROP SCHEMA ${rows.map((row) => row.name).join(', ')} CASCADE`)
    return rows.length
  } finally {
    await client.end()
  }
}
