// The operator's actions on invoices: the seller, and an account's monthly statement as a file.
import { ENVIRONMENTS, type Environment } from '../../domain/environment.ts'
import { type InvoiceSeller, statementCsv } from '../../domain/invoices.ts'
import { accountNumberOf, type OperatorContext, refused, translated } from './context.ts'
import { statementFileName } from './operator-rules.ts'

/** A statement as a file: CSV text, or a PDF in base64 (operation results are JSON). */
export interface StatementFile {
  fileName: string
  contentType: 'text/csv' | 'application/pdf'
  encoding: 'utf8' | 'base64'
  content: string
  documentCount: number
}

export async function setInvoiceSeller(context: OperatorContext, input: InvoiceSeller) {
  const text = (value: unknown) => (typeof value === 'string' ? value : null)
  const address = Array.isArray(input.address) ? input.address.filter((line) => typeof line === 'string') : []
  return context.invoices.setSeller(
    { name: text(input.name) ?? '', address, taxNumber: text(input.taxNumber), email: text(input.email) },
    context.actor,
  )
}

export async function showInvoiceSeller(context: OperatorContext) {
  return context.invoices.seller()
}

export async function accountStatement(
  context: OperatorContext,
  input: { account: string; month: string; format: 'csv' | 'pdf'; environment?: Environment },
): Promise<StatementFile> {
  const accountNumber = accountNumberOf(input.account)
  if (input.format !== 'csv' && input.format !== 'pdf') {
    throw refused(`--format must be csv or pdf, got "${String(input.format)}"`)
  }
  const environment = input.environment ?? 'live'
  if (!ENVIRONMENTS.includes(environment)) throw refused(`--env must be sandbox or live, got "${environment}"`)
  const statement = await translated(() => context.invoices.statement(accountNumber, environment, input.month), 2)
  const fileName = statementFileName(input.account, environment, input.month, input.format)
  if (input.format === 'csv') {
    return {
      fileName,
      contentType: 'text/csv',
      encoding: 'utf8',
      content: statementCsv(statement),
      documentCount: statement.documents.length,
    }
  }
  const pdf = await context.invoices.statementPdf(statement)
  return {
    fileName,
    contentType: 'application/pdf',
    encoding: 'base64',
    content: Buffer.from(pdf).toString('base64'),
    documentCount: statement.documents.length,
  }
}
