// Reading the audit trail (docs/audit.md): a merchant's own account's entries (GET /v4.0/account/audit) and every
// entry for the operator's console. Recording is not here: each change appends its entry in its own transaction
// (appendAuditEvent), so the entry and the change are kept together or not at all.
import type { Database } from '../adapters/database.ts'
import type { AuditAction, AuditActorKind } from '../domain/audit.ts'
import type { Environment } from '../domain/environment.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { formatId, parseRequestId } from '../domain/ids.ts'
import { AUDIT_LIST_DEFAULT_TOP, AUDIT_LIST_MAX_TOP } from '../domain/limits.ts'
import { validationFailed } from '../domain/outcomes.ts'
import { type AuditEventRow, listAuditEvents } from '../repositories/audit.repository.ts'
import type { Caller } from './accounts.service.ts'

/** One entry as the API and the console show it; before and after are the recorded JSON, parsed. */
export interface AuditEntry {
  /** `aud_<number>`: entries are numbered as they are appended, so a higher id is a later entry. */
  id: string
  at: string
  actor: { kind: AuditActorKind; description: string }
  action: AuditAction
  /** The account the change concerns (`acc_<number>`); null for the instance's own (labs, catalogue, operators). */
  accountId: string | null
  environment: Environment | null
  target: string | null
  before: unknown
  after: unknown
}

/** Which entries to read; every filter optional. `before`: an entry id, the page continues with older entries. */
export interface AuditQuery {
  accountId?: number
  actions?: readonly AuditAction[]
  actorKind?: AuditActorKind
  from?: Date
  to?: Date
  before?: string
  top?: number
}

export interface AuditPage {
  entries: AuditEntry[]
  hasMore: boolean
  /** The `before` of the next page (the id of this page's oldest entry); null on the last page. */
  nextBefore: string | null
}

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
