// SQL for operators, the people who run the console (migration 0021): a name, a token's SHA-256 and visible prefix,
// and when the operator was revoked. Their sessions live in dashboard_sessions (sessions.repository.ts).
import type { Queryable } from '../adapters/database.ts'

export interface OperatorRow {
  id: number
  name: string
  prefix: string
  createdAt: Date
  revokedAt: Date | null
}

const OPERATOR_COLUMNS = 'id, name, prefix, created_at AS "createdAt", revoked_at AS "revokedAt"'

const toOperator = (row: OperatorRow): OperatorRow => ({ ...row, id: Number(row.id) })

export async function insertOperator(
  db: Queryable,
  operator: { name: string; tokenHash: string; prefix: string; createdAt: Date },
): Promise<OperatorRow> {
  const rows = await db.query<OperatorRow>(
    `INSERT INTO operators (name, token_hash, prefix, created_at) VALUES ($1, $2, $3, $4)
     RETURNING ${OPERATOR_COLUMNS}`,
    [operator.name, operator.tokenHash, operator.prefix, operator.createdAt],
  )
  return toOperator(rows[0] as OperatorRow)
}

/** Every operator, revoked ones too, oldest first. */
export async function listOperators(db: Queryable): Promise<OperatorRow[]> {
  const rows = await db.query<OperatorRow>(`SELECT ${OPERATOR_COLUMNS} FROM operators ORDER BY id`)
  return rows.map(toOperator)
}

/** Revokes an unrevoked operator; the row as revoked, or undefined when there is no such active operator. */
export async function revokeOperator(db: Queryable, id: number, at: Date): Promise<OperatorRow | undefined> {
  const rows = await db.query<OperatorRow>(
    `UPDATE operators SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING ${OPERATOR_COLUMNS}`,
    [id, at],
  )
  return rows[0] && toOperator(rows[0])
}
