// What the operator's actions run on, and how a refusal becomes an OperationError with its exit code.
import type { AuditActor } from '../../domain/audit.ts'
import { parseId } from '../../domain/ids.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import type { RevenueCharge, RevenueCost, ShipmentAttribution } from '../../domain/revenue.ts'
import { ShipmentMoveRefused } from '../../domain/shipment-move.ts'
import type { InstantRange } from '../../repositories/revenue.repository.ts'
import { AccountError, type AccountsService } from '../accounts.service.ts'
import type { AuditService } from '../audit.service.ts'
import { CatalogueVersionError, type CatalogueVersionsService } from '../catalogue-versions.service.ts'
import type { ClaimResolutionService } from '../claim-resolution.service.ts'
import type { InvoicesService } from '../invoices.service.ts'
import type { LabStatementsService } from '../lab-statements.service.ts'
import type { LabPushSettings } from '../labs/lab-pushes.service.ts'
import { LabError, type LabsService } from '../labs/labs.service.ts'
import { OperatorError, type OperatorsService } from '../operators.service.ts'
import type { OrderOperationsService } from '../order-operations.service.ts'
import type { PaymentsService } from '../payments.service.ts'
import type { ShipmentMovesService } from '../shipment-moves.service.ts'
import { OperationError } from './operation-error.ts'

/** What the operator's actions run on; the payments and order services are built only when an action needs them. */
export interface OperatorContext {
  accounts: AccountsService
  operators: OperatorsService
  labs: Pick<LabsService, 'createLabKey' | 'listLabKeys' | 'rotateLabKey' | 'revokeLabKey' | 'setPaused'>
  labPushes: LabPushSettings
  payments(): Promise<Pick<PaymentsService, 'topUp'>>
  /** Moving shipments between labs needs the pipeline's parts: built, like payments, only when a move is asked. */
  shipmentMoves(): Promise<Pick<ShipmentMovesService, 'move'>>
  /** The operator's actions on an order (built, like payments, only when an order action needs them). */
  orderOperations(): Promise<OrderOperationsService>
  /** Claims and their resolution (docs/claims.md#resolutions): a reprint needs the pipeline's parts, built when asked. */
  claims(): Promise<Pick<ClaimResolutionService, 'resolve' | 'list' | 'show'>>
  invoices: Pick<InvoicesService, 'statement' | 'statementPdf' | 'seller' | 'setSeller' | 'list' | 'pdfOf'>
  /** The labs' payables statements (docs/billing.md#lab-payables-statements). */
  labStatements: Pick<LabStatementsService, 'issue' | 'list' | 'read' | 'pdf' | 'csv'>
  catalogueVersions: Pick<
    CatalogueVersionsService,
    'import' | 'list' | 'diff' | 'activate' | 'activationWarnings' | 'export' | 'activeCatalogue'
  >
  audit: Pick<AuditService, 'list'>
  /** What the revenue views read (services/operator/revenue.ts: revenueSourceOf). */
  revenue: RevenueSource
  /** Who the audit trail names for the changes these operations make: the command line, on this host. */
  actor: AuditActor
}

/** What the revenue views read: the revenue repository's listings, each at most `limit` rows. */
export interface RevenueSource {
  documents(range: InstantRange, limit: number): Promise<RevenueCharge[]>
  handoffs(range: InstantRange, limit: number): Promise<RevenueCost[]>
  attribution(range: InstantRange, limit: number): Promise<{ attribution: ShipmentAttribution; complete: boolean }>
  orderHandoffs(orderNumber: number): Promise<RevenueCost[]>
}

/** Refusals the user can fix by changing the request (the command line exits 2); others are failures (exit 1). */
export function refused(message: string): OperationError {
  return new OperationError(message, 2)
}

export function accountNumberOf(accountId: string): number {
  const number = parseId('acc', accountId)
  if (number === undefined) throw refused(`"${accountId}" is not an account ID (expected acc_<number>)`)
  return number
}

/** Service refusals keep their message; only the exit code is decided here. */
export async function translated<T>(work: () => Promise<T>, exitCode = 1): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (
      error instanceof AccountError ||
      error instanceof LabError ||
      error instanceof OperatorError ||
      error instanceof ServiceError ||
      error instanceof CatalogueVersionError ||
      error instanceof ShipmentMoveRefused
    ) {
      throw new OperationError(error.message, exitCode)
    }
    throw error
  }
}
