// Reading the audit trail (docs/audit.md): a merchant's own account's entries (GET /v4.0/account/audit) and every
// entry for the operator's console. Recording is not here: each change appends its entry in its own transaction
// (appendAuditEvent), so the entry and the change are kept together or not at all.
import type { Database } from '../adapters/database.ts'
import type { AuditAction, AuditEntry, AuditPage, AuditQuery } from '../domain/audit.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { formatId, parseRequestId } from '../domain/ids.ts'
import { AUDIT_LIST_DEFAULT_TOP, AUDIT_LIST_MAX_TOP } from '../domain/limits.ts'
import { validationFailed } from '../domain/outcomes.ts'
import { type AuditEventRow, listAuditEvents } from '../repositories/audit.repository.ts'
import type { Caller } from './accounts.service.ts'

/** The audit trail's reader. */
export interface AuditService {
  /** Entries matching the query, newest first, one page (every account: the console's view). */
  list(query: AuditQuery): Promise<AuditPage>
  /** The caller's account's entries (both environments), newest first, one page (GET /v4.0/account/audit). */
  listForCaller(caller: Caller, query: Omit<AuditQuery, 'accountId'>): Promise<AuditPage>
}

export function createAuditService(deps: { db: Database }): AuditService {
  return {
    list: (query) => list(deps.db, query),
    listForCaller: (caller, query) => list(deps.db, { ...query, accountId: caller.accountId }),
  }
}

async function list(db: Database, query: AuditQuery): Promise<AuditPage> {
  const failures: Failures = {}
  const top = query.top ?? AUDIT_LIST_DEFAULT_TOP
  // The API's schema checks `top` first; the console and the command line reach here with theirs.
  if (!Number.isInteger(top) || top < 1) {
    addFailure(failures, 'top', { code: 'MustBeGreaterThanOrEqualTo', providedValue: top, comparisonValue: 1 })
  } else if (top > AUDIT_LIST_MAX_TOP) {
    addFailure(failures, 'top', {
      code: 'MustBeLessThanOrEqualTo',
      providedValue: top,
      comparisonValue: AUDIT_LIST_MAX_TOP,
    })
  }
  if (query.from && query.to && query.from > query.to) {
    addFailure(failures, 'to', {
      code: 'MustBeGreaterThanOrEqualTo',
      providedValue: query.to.toISOString(),
      comparisonValue: query.from.toISOString(),
    })
  }
  if (hasFailures(failures)) throw validationFailed(failures)
  const beforeId = query.before === undefined ? undefined : parseRequestId('aud', query.before, 'before')
  // One more than the page, to know whether another page follows without counting.
  const rows = await listAuditEvents(db, {
    ...(query.accountId !== undefined ? { accountId: query.accountId } : {}),
    ...(query.actions ? { actions: query.actions } : {}),
    ...(query.actorKind ? { actorKind: query.actorKind } : {}),
    ...(query.from ? { from: query.from } : {}),
    ...(query.to ? { to: query.to } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: top + 1,
  })
  const hasMore = rows.length > top
  const entries = rows.slice(0, top).map(toAuditEntry)
  return { entries, hasMore, nextBefore: hasMore ? (entries.at(-1)?.id ?? null) : null }
}

function toAuditEntry(row: AuditEventRow): AuditEntry {
  return {
    id: formatId('aud', row.id),
    at: row.at.toISOString(),
    actor: { kind: row.actorKind, description: row.actorDescription },
    // Only AUDIT_ACTIONS are ever appended (AuditRecord's type): the column holds nothing else.
    action: row.action as AuditAction,
    accountId: row.accountId === null ? null : formatId('acc', row.accountId),
    environment: row.environment,
    target: row.target,
    before: row.before === null ? null : JSON.parse(row.before),
    after: row.after === null ? null : JSON.parse(row.after),
  }
}
