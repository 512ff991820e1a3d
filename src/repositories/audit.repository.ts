// SQL of the audit trail (migrations/0018_audit_trail.sql). Append and read only: the table refuses UPDATE,
// DELETE and TRUNCATE, and this file offers neither.
import type { Queryable } from '../adapters/database.ts'
import { type AuditActorKind, type AuditRecord, actorIdentity, describeActor } from '../domain/audit.ts'
import type { Environment } from '../domain/environment.ts'

export interface AuditEventRow {
  id: number
  at: Date
  actorKind: AuditActorKind
  actor: string
  actorDescription: string
  accountId: number | null
  environment: Environment | null
  action: string
  target: string | null
  /** JSON text, or null. */
  before: string | null
  after: string | null
}

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value))

/** Appends one entry; run it in the transaction of the change it records, so both are kept or neither. */
export async function appendAuditEvent(db: Queryable, record: AuditRecord, at: Date): Promise<number> {
  const rows = await db.query<{ id: number }>(
    `INSERT INTO audit_events (at, actor_kind, actor, actor_description, account_id, environment, action, target,
                               before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id::int AS id`,
    [
      at,
      record.actor.kind,
      actorIdentity(record.actor),
      describeActor(record.actor),
      record.accountId,
      record.environment,
      record.action,
      record.target,
      json(record.before),
      json(record.after),
    ],
  )
  return (rows[0] as { id: number }).id
}

/** Which entries to read: all filters optional; newest first, `afterId` continues a page (entries older than it). */
export interface AuditFilter {
  accountId?: number
  actions?: readonly string[]
  actorKind?: AuditActorKind
  from?: Date
  to?: Date
  /** Only entries with an id below this one (the next page of a newest-first listing). */
  beforeId?: number
  limit: number
}

/** Entries matching `filter`, newest first, at most `filter.limit`. */
export async function listAuditEvents(db: Queryable, filter: AuditFilter): Promise<AuditEventRow[]> {
  return db.query<AuditEventRow>(
    `SELECT id::int AS id, at, actor_kind AS "actorKind", actor, actor_description AS "actorDescription",
            account_id::int AS "accountId", environment, action, target, before, after
       FROM audit_events
      WHERE ($1::bigint IS NULL OR account_id = $1)
        AND ($2::text[] IS NULL OR action = ANY($2))
        AND ($3::text IS NULL OR actor_kind = $3)
        AND ($4::timestamptz IS NULL OR at >= $4)
        AND ($5::timestamptz IS NULL OR at < $5)
        AND ($6::bigint IS NULL OR id < $6)
      ORDER BY id DESC
      LIMIT $7`,
    [
      filter.accountId ?? null,
      filter.actions && filter.actions.length > 0 ? filter.actions : null,
      filter.actorKind ?? null,
      filter.from ?? null,
      filter.to ?? null,
      filter.beforeId ?? null,
      filter.limit,
    ],
  )
}
