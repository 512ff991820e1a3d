// The operator's actions on invoices: the seller, the documents across accounts, and an account's monthly
// statement as a file. One function per action, called by the command line (operator.service.ts) and the console's
// invoices section (console-sections.ts) alike.
import type { DownloadFile, InvoiceListFilter } from '../../domain/console-sections.ts'
import type { Environment } from '../../domain/environment.ts'
import { type InvoiceSeller, type InvoiceSummary, parseStatementMonth, statementCsv } from '../../domain/invoices.ts'
import type { OperatorContext } from './context.ts'
import { statementFileName } from './operator-rules.ts'

/** What the invoices actions run on: the command line's context, or the console's with its operator as actor. */
export type InvoicesDeps = Pick<OperatorContext, 'invoices' | 'actor'>

/** Sets the seller printed on invoices issued from now on; `problems` names each field refused. */
export async function setInvoiceSeller(deps: InvoicesDeps, input: InvoiceSeller) {
  const text = (value: unknown) => (typeof value === 'string' ? value : null)
  const address = Array.isArray(input.address) ? input.address.filter((line) => typeof line === 'string') : []
  return deps.invoices.setSeller(
    { name: text(input.name) ?? '', address, taxNumber: text(input.taxNumber), email: text(input.email) },
    deps.actor,
  )
}

/** The seller invoices are issued with, and whether one was set. */
export async function showInvoiceSeller(deps: Pick<InvoicesDeps, 'invoices'>) {
  return deps.invoices.seller()
}

/** Documents matching the filter (`month`: YYYY-MM, UTC), newest first, at most `limit`. */
export async function listInvoices(
  deps: Pick<InvoicesDeps, 'invoices'>,
  input: { filter: InvoiceListFilter; limit: number },
): Promise<InvoiceSummary[]> {
  const { filter } = input
  const range = filter.month ? parseStatementMonth(filter.month) : undefined
  return deps.invoices.list({
    ...(filter.accountId !== undefined ? { accountId: filter.accountId } : {}),
    ...(filter.environment ? { environment: filter.environment } : {}),
    ...(range ? { from: range.from, to: range.to } : {}),
    limit: input.limit,
  })
}

/**
 * An account's statement of one month (UTC) and environment as a file (CSV text or PDF bytes), and its size;
 * `account` is the ID as the operator gave it, which the file is named by.
 */
export async function statementFile(
  deps: Pick<InvoicesDeps, 'invoices'>,
  input: { account: string; accountNumber: number; environment: Environment; month: string; format: 'csv' | 'pdf' },
): Promise<DownloadFile & { documentCount: number }> {
  const statement = await deps.invoices.statement(input.accountNumber, input.environment, input.month)
  const fileName = statementFileName(input.account, input.environment, input.month, input.format)
  const documentCount = statement.documents.length
  return input.format === 'csv'
    ? { fileName, contentType: 'text/csv', body: statementCsv(statement), documentCount }
    : { fileName, contentType: 'application/pdf', body: await deps.invoices.statementPdf(statement), documentCount }
}
