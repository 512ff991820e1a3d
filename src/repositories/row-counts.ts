// Statements whose answer is a number of rows, written once for every repository: a `count(*)` (a bigint, which
// the PostgreSQL driver hands back as text and PGlite as a number), the rows a DELETE ... RETURNING removed, and
// retention's batch delete.
import type { Queryable } from '../adapters/database.ts'

/** The `count` column of a statement ending in `SELECT count(*) AS count ...`, as a number (0 without a row). */
export async function countRows(db: Queryable, sql: string, params: readonly unknown[] = []): Promise<number> {
  const rows = await db.query<{ count: number | string }>(sql, params)
  return Number(rows[0]?.count ?? 0)
}

/** How many rows a `DELETE ... RETURNING` statement removed. */
export async function deletedRows(db: Queryable, sql: string, params: readonly unknown[]): Promise<number> {
  return (await db.query(sql, params)).length
}

/**
 * Retention's batch delete, in one statement: the rows of `table` whose ids `doomed` selects (a SELECT of `id`
 * with its own LIMIT), after the rows of `dependents` that refer to them (each a table and its column). One
 * statement, so the rows that refer to a deleted row go with it or not at all. Returns how many rows of `table`
 * went.
 */
export async function deleteInBatch(
  db: Queryable,
  batch: {
    table: string
    doomed: string
    dependents?: readonly { table: string; column: string }[]
    params: readonly unknown[]
  },
): Promise<number> {
  const dependents = (batch.dependents ?? []).map(
    ({ table, column }, index) =>
      `dependent${index} AS (DELETE FROM ${table} WHERE ${column} IN (SELECT id FROM doomed)), `,
  )
  return countRows(
    db,
    `WITH doomed AS (${batch.doomed}), ${dependents.join('')}` +
      `deleted AS (DELETE FROM ${batch.table} WHERE id IN (SELECT id FROM doomed) RETURNING 1) ` +
      'SELECT count(*) AS count FROM deleted',
    batch.params,
  )
}
