// Lab payables statements (docs/billing.md#lab-payables-statements): once a lab's month is over, the operator
// issues the lab a self-billing statement of the Live work settled that month (shipped: owed, at the costs agreed
// when each shipment was handed over (shipment_costs); cancelled or rejected: listed, not owed). One statement per
// lab and month, numbered gaplessly per lab (SB-<LAB>-000001), its content fixed at issue so its PDF and CSV never
// change, its issue in the audit trail (`lab.statementIssued`). A month in which nothing of the lab's was settled
// gets no statement (no number is used up); one with only cancelled or rejected work gets one totalling nothing,
// so that every hand-off ends on a statement.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { AuditActor } from '../domain/audit.ts'
import type { InvoiceSeller } from '../domain/invoices.ts'
import { parseStatementMonth } from '../domain/invoices.ts'
import {
  buildLabStatementContent,
  formatLabStatementNumber,
  isLabStatementNumber,
  type LabStatementContent,
  type LabStatementSummary,
  labStatementCsv,
  previousMonthOf,
} from '../domain/lab-statements.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  drawLabStatementSequence,
  findLabStatementOfMonth,
  insertLabStatement,
  labsWithSettledWork,
  listLabStatements,
  listSettledCosts,
  lockLabStatementCounter,
  readLabStatement,
} from '../repositories/shipment-costs.repository.ts'

export interface LabStatementsService {
  /**
   * The lab's statement of `month` (YYYY-MM, UTC, ended): issued now, or the one already issued (`issued` false).
   * Refuses an unknown lab, a bad or unfinished month, and a month with no settled Live work. An issue is
   * audited (`lab.statementIssued`) as `actor`'s; finding the one already issued records nothing.
   */
  issue(labCode: string, month: string, actor: AuditActor): Promise<{ statement: LabStatementContent; issued: boolean }>
  /**
   * Issues the previous month's statement of every lab with Live work settled that month (shipped, cancelled or
   * rejected) that has none yet, audited as printroute's (`system`); how many.
   */
  issueForPreviousMonth(): Promise<number>
  /** A lab's statements, newest month first. */
  list(labCode: string): Promise<LabStatementSummary[]>
  /** A statement by number; with `labCode`, only that lab's (another's is undefined). */
  read(number: string, labCode?: string): Promise<LabStatementContent | undefined>
  pdf(statement: LabStatementContent): Promise<Uint8Array>
  csv(statement: LabStatementContent): string
}

export interface LabStatementsDeps {
  db: Database
  clock: Clock
  /** The catalogue's lab (the statement's seller); undefined for a code the catalogue does not have. */
  labOf: (labCode: string) => { name: string; countryCode: string } | undefined
  /** The operator's seller details (docs/billing.md#invoices): the buyer on a lab statement. */
  buyer: () => Promise<InvoiceSeller>
  renderPdf: (statement: LabStatementContent) => Promise<Uint8Array>
}

export function createLabStatementsService(deps: LabStatementsDeps): LabStatementsService {
  async function issue(
    labCode: string,
    month: string,
    actor: AuditActor,
  ): Promise<{ statement: LabStatementContent; issued: boolean }> {
    const lab = deps.labOf(labCode)
    if (!lab) throw new ServiceError('EntityNotFound', `No lab ${labCode} in the catalogue`)
    const range = parseStatementMonth(month)
    if (!range) throw new ServiceError('ValidationFailed', `month must be YYYY-MM, got "${month}"`)
    const now = deps.clock.now()
    if (range.to.getTime() > now.getTime()) {
      throw new ServiceError(
        'ValidationFailed',
        `month: ${month} has not ended yet (UTC); a statement covers a whole month`,
      )
    }
    const existing = await findLabStatementOfMonth(deps.db, labCode, month)
    if (existing) return { statement: existing, issued: false }
    const buyer = await deps.buyer()
    return deps.db.transaction(async (tx) => {
      // The counter's lock makes issues for this lab wait for each other: the check below then sees the other's.
      await lockLabStatementCounter(tx, labCode)
      const already = await findLabStatementOfMonth(tx, labCode, month)
      if (already) return { statement: already, issued: false }
      const rows = await listSettledCosts(tx, labCode, range)
      if (rows.length === 0) {
        throw new ServiceError(
          'ValidationFailed',
          `month: lab ${labCode} shipped no Live work in ${month} and had none cancelled or rejected; ` +
            'nothing is settled and no statement is issued',
        )
      }
      const sequence = await drawLabStatementSequence(tx, labCode)
      const statement = buildLabStatementContent({
        number: formatLabStatementNumber(labCode, sequence),
        labCode,
        month,
        issuedAt: deps.clock.now(),
        seller: { name: lab.name, labCode, countryCode: lab.countryCode },
        buyer,
        rows,
      })
      await insertLabStatement(tx, {
        sequence,
        shipmentNumbers: rows.map((row) => row.shipmentNumber),
        content: statement,
      })
      await appendAuditEvent(
        tx,
        {
          actor,
          action: 'lab.statementIssued',
          accountId: null,
          environment: 'live',
          target: statement.number,
          after: {
            labCode,
            month,
            owed: statement.owed.length,
            notOwed: statement.notOwed.length,
            totals: statement.totals.map(({ currency, total }) => ({ currency, total })),
          },
        },
        new Date(statement.issuedAt),
      )
      return { statement, issued: true }
    })
  }

  return {
    issue,
    async issueForPreviousMonth() {
      const month = previousMonthOf(deps.clock.now())
      const range = parseStatementMonth(month)
      if (!range) return 0
      let issued = 0
      for (const labCode of await labsWithSettledWork(deps.db, range)) {
        // A lab no longer in the catalogue keeps its rows for when it is back (or a statement on demand).
        if (!deps.labOf(labCode)) continue
        if ((await issue(labCode, month, { kind: 'system' })).issued) issued += 1
      }
      return issued
    },
    list: (labCode) => listLabStatements(deps.db, labCode),
    read: async (number, labCode) =>
      isLabStatementNumber(number) ? readLabStatement(deps.db, number, labCode) : undefined,
    pdf: (statement) => deps.renderPdf(statement),
    csv: (statement) => labStatementCsv(statement),
  }
}
