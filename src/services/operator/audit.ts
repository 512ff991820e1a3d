// The operator's reading of the audit trail: every account's and the instance's own, filtered as asked; one
// function called by the command line (operator.service.ts) and the console's audit page (console-sections.ts).

import type { AuditPage, AuditQuery } from '../../domain/audit.ts'
import { isAuditAction, isAuditActorKind } from '../../domain/audit.ts'
import { parseId } from '../../domain/ids.ts'
import { AUDIT_LIST_MAX_TOP, DATE_TIME_RANGE, dateTimeBeyondRange } from '../../domain/limits.ts'
import { accountNumberOf, type OperatorContext, refused } from './context.ts'

/** What `audit list` asks for: every filter optional, as typed on the command line. */
export interface AuditListInput {
  account?: string
  actions?: string[]
  actor?: string
  from?: string
  to?: string
  before?: string
  top?: number
}

/** One page of the trail, newest first, filtered: what `audit list` and the console's audit page both list. */
export async function listAudit(deps: Pick<OperatorContext, 'audit'>, query: AuditQuery): Promise<AuditPage> {
  return deps.audit.list(query)
}

/**
 * The audit service's query from the command's flags; a refusal (exit 2) naming the flag that is wrong. The
 * console's page reads its form its own way (whole days, web/operator/audit.pages.ts).
 */
export function auditQueryOf(input: AuditListInput): AuditQuery {
  const query: AuditQuery = {}
  if (input.account !== undefined) query.accountId = accountNumberOf(input.account)
  if (input.actions !== undefined) {
    const unknown = input.actions.filter((action) => !isAuditAction(action))
    if (unknown.length > 0)
      throw refused(`--action: "${unknown.join('", "')}" is not an action of the trail (docs/audit.md)`)
    query.actions = input.actions.filter(isAuditAction)
  }
  if (input.actor !== undefined) {
    if (!isAuditActorKind(input.actor)) {
      throw refused(`--actor must be operator, key, session, lab, cli or system, got "${input.actor}"`)
    }
    query.actorKind = input.actor
  }
  for (const flag of ['from', 'to'] as const) {
    const text = input[flag]
    if (text === undefined) continue
    const at = new Date(text)
    if (Number.isNaN(at.getTime()) || dateTimeBeyondRange(at.getTime()) !== undefined)
      throw refused(
        `--${flag} must be a date or date-time (2026-11-01, 2026-11-01T09:00Z) from ${DATE_TIME_RANGE.earliestDate} to ${DATE_TIME_RANGE.latestDate}, got "${text}"`,
      )
    query[flag] = at
  }
  if (query.from && query.to && query.from > query.to) throw refused('--from is after --to')
  if (input.top !== undefined) {
    if (!Number.isInteger(input.top) || input.top < 1 || input.top > AUDIT_LIST_MAX_TOP) {
      throw refused(`--top must be a whole number from 1 to ${AUDIT_LIST_MAX_TOP}`)
    }
    query.top = input.top
  }
  if (input.before !== undefined) {
    if (parseId('aud', input.before) === undefined)
      throw refused(`--before must be an entry ID (aud_<number>), got "${input.before}"`)
    query.before = input.before
  }
  return query
}
