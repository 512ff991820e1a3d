// Emptying a test database so the next test can have it, instead of making a new one: a new PGlite costs
// 0.5-0.8 s of CPU (its data directory unpacked, PostgreSQL started in WebAssembly) and a new PostgreSQL
// schema pair about 0.4 s (migrations, then pg-boss's schema and queues), a few hundred times a run; emptying
// one costs a few tens of milliseconds.
//
// A snapshot records what a database held when it was new: the rows of its few non-empty tables (the applied
// migrations, pg-boss's version and queues), every sequence's position, and a fingerprint of its structure.
// Resetting empties every table, puts those rows back and the sequences where they were, so
// the next test sees the database exactly as a new one. A database whose structure a test changed (a table,
// column, function, trigger or constraint added, dropped or altered) no longer matches the fingerprint and is
// not reused; functions made since the snapshot (the application makes some as it goes) are dropped instead.
import type { Queryable } from '../../src/adapters/database.ts'

export interface DatabaseSnapshot {
  schemas: string[]
  /** Every table that holds rows, as `schema.table` quoted, with those rows as JSON (restored through the parent of a partitioned table). */
  rows: { table: string; columns: string[]; json: string }[]
  sequences: { name: string; value: string; isCalled: boolean }[]
  /** The functions there were, each as `name(argument types)`. */
  functions: string[]
  fingerprint: string
}

/** Every function in `schemas`, as `regprocedure` spells it (schema-qualified when off the search path). */
async function functionsOf(db: Queryable, schemas: string[]): Promise<string[]> {
  const rows = await db.query<{ signature: string }>(
    `SELECT oid::regprocedure::text AS signature FROM pg_proc WHERE pronamespace = ANY($1::regnamespace[]) ORDER BY 1`,
    [schemas],
  )
  return rows.map((row) => row.signature)
}

/** The tables to empty: every ordinary and partitioned table, partitions through their parent. */
async function tablesOf(db: Queryable, schemas: string[]): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ANY($1::text[]) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY 1`,
    [schemas],
  )
  return rows.map((row) => row.name)
}

/** A hash of the schemas' structure: relations with their columns and types, functions, triggers, constraints, types. */
async function fingerprintOf(db: Queryable, schemas: string[]): Promise<string> {
  // Kept to plain catalog columns (format_type and the like made it three times as slow): it runs at every reset.
  const [row] = await db.query<{ fingerprint: string }>(
    `SELECT md5(coalesce(string_agg(item, E'\n' ORDER BY item), '')) AS fingerprint FROM (
       SELECT c.oid::regclass::text || ' ' || c.relkind::text || ' ' || coalesce((
                SELECT string_agg(a.attname || ' ' || a.atttypid || ' ' || a.atttypmod || ' ' || a.attnotnull, ', ' ORDER BY a.attnum)
                  FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS item
         FROM pg_class c WHERE c.relnamespace = ANY($1::regnamespace[])
       UNION ALL
       SELECT p.oid::regprocedure::text || ' ' || md5(coalesce(p.prosrc, ''))
         FROM pg_proc p WHERE p.pronamespace = ANY($1::regnamespace[])
       UNION ALL
       SELECT t.tgrelid::regclass::text || ' trigger ' || t.tgname || ' ' || t.tgenabled::text
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = ANY($1::regnamespace[]) AND NOT t.tgisinternal
       UNION ALL
       SELECT k.conrelid::regclass::text || ' constraint ' || k.conname || ' ' || k.contype::text
         FROM pg_constraint k WHERE k.connamespace = ANY($1::regnamespace[])
       UNION ALL
       SELECT ty.oid::regtype::text || ' type ' || coalesce((SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
                                                  FROM pg_enum e WHERE e.enumtypid = ty.oid), '')
         FROM pg_type ty WHERE ty.typnamespace = ANY($1::regnamespace[])
     ) AS structure`,
    [schemas],
  )
  return row?.fingerprint ?? ''
}

async function sequencesOf(db: Queryable, schemas: string[]): Promise<DatabaseSnapshot['sequences']> {
  const rows = await db.query<{ name: string; last: string | null; start: string }>(
    `SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS last, start_value::text AS start
       FROM pg_sequences WHERE schemaname = ANY($1::text[]) ORDER BY 1`,
    [schemas],
  )
  // A sequence never called has no last value: setval(start, false) makes its next value the start again.
  return rows.map((row) => ({ name: row.name, value: row.last ?? row.start, isCalled: row.last !== null }))
}

/** What `schemas` hold now, to reset them to later. */
export async function takeSnapshot(db: Queryable, schemas: string[]): Promise<DatabaseSnapshot> {
  const rows: DatabaseSnapshot['rows'] = []
  for (const table of await tablesOf(db, schemas)) {
    const [found] = await db.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM ${table} t`)
    if (!found?.json) continue
    // Generated columns are computed again on insert; identity columns are restored as they were.
    const columns = await db.query<{ name: string }>(
      `SELECT quote_ident(attname) AS name FROM pg_attribute
        WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
      [table],
    )
    rows.push({ table, columns: columns.map((column) => column.name), json: found.json })
  }
  return {
    schemas,
    rows,
    sequences: await sequencesOf(db, schemas),
    functions: await functionsOf(db, schemas),
    fingerprint: await fingerprintOf(db, schemas),
  }
}

/**
 * Puts `schemas` back as the snapshot found them: functions made since dropped, then the rows and sequences in
 * one transaction. Returns false, leaving the rows alone, when their structure is otherwise no longer the
 * snapshot's: that database must be dropped instead.
 */
export async function resetToSnapshot(db: Queryable, snapshot: DatabaseSnapshot): Promise<boolean> {
  // Functions made since are dropped first: the application makes some as it goes (a PL/pgSQL wrapper of each
  // queue's job insert, src/adapters/job-queue.ts), and a new database has none of them.
  const added = (await functionsOf(db, snapshot.schemas)).filter((name) => !snapshot.functions.includes(name))
  if (added.length > 0) await db.exec(`DROP FUNCTION ${added.join(', ')}`)
  if ((await fingerprintOf(db, snapshot.schemas)) !== snapshot.fingerprint) return false
  const tables = await tablesOf(db, snapshot.schemas)
  const statements = [
    'BEGIN',
    // The rows put back are a consistent whole already: no foreign key or trigger needs to see them.
    'SET LOCAL session_replication_role = replica',
    // DELETE rather than TRUNCATE: the tables hold a test's few rows, and TRUNCATE gives every table and index
    // a new file (about 40 ms on PostgreSQL against 2 ms).
    ...tables.map((table) => `DELETE FROM ${table}`),
    ...snapshot.rows.map(
      ({ table, columns, json }) =>
        `INSERT INTO ${table} (${columns.join(', ')}) OVERRIDING SYSTEM VALUE
           SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::${table}, ${quoteLiteral(json)})`,
    ),
    ...snapshot.sequences.map(
      ({ name, value, isCalled }) => `SELECT setval(${quoteLiteral(name)}, ${BigInt(value)}, ${isCalled})`,
    ),
    'COMMIT',
  ]
  await db.exec(statements.join(';\n'))
  return true
}

/** A string as an SQL literal (the JSON of a snapshot's rows goes into a script without parameters). */
function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`
}
