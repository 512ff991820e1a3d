// The operator console's sections (web/operator/*.pages.ts, declared in domain/console-sections.ts) over the
// operator's actions: each section's action calls the same function the command line does (accounts.ts, keys.ts,
// labs.ts, invoices.ts, catalogue.ts, audit.ts, revenue.ts beside this file), with the signed-in operator as the actor. Only
// how a refusal comes back is the console's own: a ServiceError, a refusal the page lists, or null for a lab the
// catalogue does not have; a top-up's OperatorRefusal goes to the page, which words it.
import type { Account } from '../../domain/accounts.ts'
import type { AdminLabRow, ConsoleCatalogueRefusal, LabRefusal } from '../../domain/admin-views.ts'
import type { AuditActor } from '../../domain/audit.ts'
import type {
  ConsoleAccounts,
  ConsoleAudit,
  ConsoleCardPayments,
  ConsoleCatalogue,
  ConsoleClaims,
  ConsoleInvoices,
  ConsoleLabs,
  ConsoleOperators,
  ConsoleOrderActions,
  ConsoleRevenue,
  ConsoleShipmentMoves,
} from '../../domain/console-sections.ts'
import { parseId } from '../../domain/ids.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { ShipmentMoveRefused } from '../../domain/shipment-move.ts'
import { AccountError, type AccountsService } from '../accounts.service.ts'
import type { AuditService } from '../audit.service.ts'
import type { CardPaymentsView } from '../card-payments-view.service.ts'
import { CatalogueVersionError, type CatalogueVersionsService } from '../catalogue-versions.service.ts'
import type { ClaimResolutionService } from '../claim-resolution.service.ts'
import type { InvoicesService } from '../invoices.service.ts'
import type { LabStatementsService } from '../lab-statements.service.ts'
import { LabError, type LabsService } from '../labs/labs.service.ts'
import { OperatorError, type OperatorsService } from '../operators.service.ts'
import type { OrderOperationsService } from '../order-operations.service.ts'
import type { PaymentsService } from '../payments.service.ts'
import type { ShipmentMovesService } from '../shipment-moves.service.ts'
import * as accounts from './accounts.ts'
import * as audit from './audit.ts'
import * as catalogue from './catalogue.ts'
import * as claims from './claims.ts'
import type { RevenueSource } from './context.ts'
import * as invoices from './invoices.ts'
import * as keys from './keys.ts'
import * as labs from './labs.ts'
import { OperationError } from './operation-error.ts'
import * as operators from './operators.ts'
import * as orders from './orders.ts'
import * as revenue from './revenue.ts'

/** A refusal of the catalogue versions service as the console shows it; anything else is thrown on. */
async function orRefusal<T>(work: () => Promise<T>): Promise<T | ConsoleCatalogueRefusal> {
  try {
    return await work()
  } catch (error) {
    if (!(error instanceof CatalogueVersionError)) throw error
    return { refused: error.message.split('\n')[0] ?? error.message, problems: error.problems }
  }
}

/** The console's catalogue section (web/operator/catalogue.pages.ts) from the versions service. */
export function consoleCatalogueOf(versions: CatalogueVersionsService): ConsoleCatalogue {
  const deps = (actor: AuditActor) => ({ catalogueVersions: versions, actor })
  return {
    list: () => catalogue.listCatalogues({ catalogueVersions: versions }),
    servedVersion: () => versions.live().version,
    diff: (from, to) => orRefusal(() => catalogue.diffCatalogues({ catalogueVersions: versions }, { from, to })),
    activate: (version, actor) => orRefusal(() => catalogue.activateCatalogue(deps(actor), { version })),
    activationWarnings: (version) =>
      orRefusal(() => catalogue.catalogueActivationWarnings({ catalogueVersions: versions }, { version })),
    import: (content, sourceName, actor, options) =>
      orRefusal(() => catalogue.importCatalogue(deps(actor), { content, sourceName, activate: options.activate })),
  }
}

/** A refusal of the accounts service (a name, a currency, an unknown account) as the console shows it. */
async function refusalsAsServiceErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    // The actions shared with the command line word a refusal as an OperationError (its exit code aside).
    if (error instanceof AccountError || error instanceof OperationError || error instanceof OperatorError) {
      throw new ServiceError('ValidationFailed', error.message)
    }
    throw error
  }
}

/** The console's invoices section (web/operator/invoices.pages.ts) from the invoices service. */
export function consoleInvoicesOf(service: InvoicesService): ConsoleInvoices {
  const deps = { invoices: service }
  return {
    seller: () => invoices.showInvoiceSeller(deps),
    setSeller: (seller, actor) => invoices.setInvoiceSeller({ invoices: service, actor }, seller),
    list: (filter, limit) => invoices.listInvoices(deps, { filter, limit }),
    invoicePdf: async (number) => (await service.pdfOf(number))?.pdf,
    async statement(accountId, environment, month, format) {
      const file = await invoices
        .statementFile(deps, { account: `acc_${accountId}`, accountNumber: accountId, environment, month, format })
        .catch((error: unknown) => {
          if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return undefined
          throw error
        })
      if (!file) return undefined
      return { fileName: file.fileName, contentType: file.contentType, body: file.body }
    },
  }
}

/** An order's card payments, refunds to the card and disputes for its console page (an unknown id: none). */
export function consoleOrderCardPaymentsOf(view: CardPaymentsView): (orderId: string) => Promise<ConsoleCardPayments> {
  return async (orderId) => {
    const orderNumber = parseId('ord', orderId)
    if (orderNumber === undefined) return { cardOnFile: null, payments: [], refunds: [], disputes: [] }
    return view.ofOrder(orderNumber)
  }
}

/** The console's accounts section (web/operator/accounts.pages.ts), from the accounts and payments services. */
export function consoleAccountsOf(
  service: AccountsService,
  payments: PaymentsService,
  catalogueVersions: Pick<CatalogueVersionsService, 'activeCatalogue'>,
  cardPayments?: CardPaymentsView,
): ConsoleAccounts {
  const deps = (actor: AuditActor) => ({ accounts: service, payments: async () => payments, catalogueVersions, actor })
  const find = async (accountId: string): Promise<Account | undefined> => {
    if (parseId('acc', accountId) === undefined) return undefined
    try {
      return await service.getAccount(accountId)
    } catch (error) {
      if (error instanceof AccountError) return undefined
      throw error
    }
  }
  return {
    listAccounts: () => accounts.listAccounts({ accounts: service }),
    getAccount: find,
    createAccount: (input, actor) =>
      refusalsAsServiceErrors(() =>
        accounts.createAccount(deps(actor), { ...input, pauseWindowSeconds: 0, callbackUrl: null }),
      ),
    listKeys: (accountId) =>
      refusalsAsServiceErrors(() => keys.listKeys({ accounts: service }, { account: accountId })),
    createKey: (accountId, environment, actor) =>
      refusalsAsServiceErrors(() => keys.createKey(deps(actor), { account: accountId, environment })),
    revokeKey: (accountId, prefix, actor) =>
      refusalsAsServiceErrors(() => keys.revokeKey(deps(actor), { prefix, account: accountId })),
    topUp: (accountId, amount, reference, actor) =>
      refusalsAsServiceErrors(async () => {
        const { balance, currency, releasedOrderIds } = await accounts.topUp(deps(actor), {
          account: accountId,
          amount,
          reference,
        })
        return { balance, currency, releasedOrderIds }
      }),
    suspend: (accountId, reason, actor) =>
      refusalsAsServiceErrors(() => accounts.suspendAccount(deps(actor), { account: accountId, reason })),
    reactivate: (accountId, actor) =>
      refusalsAsServiceErrors(() => accounts.reactivateAccount(deps(actor), { account: accountId })),
    priceLists: async () => {
      const lists = (await catalogueVersions.activeCatalogue()).priceLists
      return { names: lists.names, defaultList: lists.defaultList?.name ?? null }
    },
    setPriceList: (accountId, list, actor) =>
      refusalsAsServiceErrors(() => accounts.setPriceList(deps(actor), { account: accountId, list })),
    // Refusals stay OperatorRefusals, worded by the page.
    editAccount: (accountId, edit, actor) => accounts.editAccount(deps(actor), { account: accountId, ...edit }),
    openAmount: (accountId) => refusalsAsServiceErrors(() => service.openAmount(accountId)),
    ...(cardPayments
      ? {
          cardPayments: async (accountId: string) => {
            const accountNumber = parseId('acc', accountId)
            if (accountNumber === undefined) throw new ServiceError('EntityNotFound', `No account ${accountId}`)
            return cardPayments.ofAccount(accountNumber)
          },
        }
      : {}),
    recentLedger: (accountId, limit) =>
      refusalsAsServiceErrors(() => accounts.recentLedger({ accounts: service }, { account: accountId, limit })),
    settings: (accountId) =>
      refusalsAsServiceErrors(() => accounts.accountSettings({ accounts: service }, { account: accountId })),
    updateSettings: (accountId, change, environments, actor) =>
      refusalsAsServiceErrors(async () => {
        const result = await accounts.updateAccount(deps(actor), {
          account: accountId,
          change,
          ...(environments ? { environments } : {}),
        })
        return 'problems' in result ? result : { changed: true as const }
      }),
  }
}

/** The console's operators section (web/operator/operators.pages.ts) from the operators service. */
export function consoleOperatorsOf(service: OperatorsService): ConsoleOperators {
  return {
    list: () => operators.listOperators({ operators: service }),
    create: (name, actor) =>
      refusalsAsServiceErrors(() => operators.createOperator({ operators: service, actor }, { name })),
    revoke: (operatorId, actor) =>
      refusalsAsServiceErrors(() => operators.revokeOperator({ operators: service, actor }, { operator: operatorId })),
  }
}

/** The labs service's refusals as the console's page shows them; anything else is a failure. */
async function refusedAsText<T>(work: () => Promise<T>): Promise<T | LabRefusal> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof LabError) return { refused: error.message }
    throw error
  }
}

/**
 * The console's labs section (web/operator/labs.pages.ts): the labs' figures (a view, services/admin-views.service.ts)
 * and the lab actions. A lab the catalogue does not have is null for a pause and for the keys' list: the labs service
 * refuses it (EntityNotFound for a pause, a LabError for the keys), and it refuses nothing else there.
 */
export function consoleLabsOf(
  service: Pick<LabsService, 'setPaused' | 'createLabKey' | 'listLabKeys' | 'rotateLabKey' | 'revokeLabKey'>,
  views: { listLabs(): Promise<AdminLabRow[]> },
  statements: Pick<LabStatementsService, 'issue' | 'list' | 'read' | 'pdf' | 'csv'>,
): ConsoleLabs {
  const deps = (actor: AuditActor) => ({ labs: service, actor })
  return {
    listStatements: (labCode) => labs.listLabStatements({ labStatements: statements }, { lab: labCode }),
    issueStatement: async (labCode, month, actor) => {
      try {
        const made = await labs.labStatement({ labStatements: statements, actor }, { lab: labCode, month })
        return { number: made.statement.number, issued: made.issued }
      } catch (error) {
        if (error instanceof ServiceError) return { refused: error.message }
        throw error
      }
    },
    statementFile: (labCode, number, format) =>
      labs.labStatementFile({ labStatements: statements }, { lab: labCode, number, format }),
    listLabs: () => views.listLabs(),
    setPaused: (labCode, paused, actor) =>
      labs.setLabPaused(deps(actor), { lab: labCode, paused }).catch((error: unknown) => {
        if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return null
        throw error
      }),
    listKeys: (labCode) =>
      labs.listLabKeys({ labs: service }, { lab: labCode }).catch((error: unknown) => {
        if (error instanceof LabError) return null
        throw error
      }),
    createKey: (labCode, actor) => refusedAsText(() => labs.createLabKey(deps(actor), { lab: labCode })),
    rotateKeys: (labCode, overlapSeconds, actor) =>
      refusedAsText(() => labs.rotateLabKey(deps(actor), { lab: labCode, overlapSeconds })),
    revokeKey: (labCode, keyId, actor) => refusedAsText(() => labs.revokeLabKey(deps(actor), { lab: labCode, keyId })),
  }
}

/** The console's audit page (web/operator/audit.pages.ts) from the audit service. */
export function consoleAuditOf(service: Pick<AuditService, 'list'>): ConsoleAudit {
  return { list: (query) => audit.listAudit({ audit: service }, query) }
}

/** The console's revenue section (web/operator/revenue.pages.ts) and the order page's margin. */
export function consoleRevenueOf(source: RevenueSource): ConsoleRevenue {
  const deps = { revenue: source }
  return {
    report: (query) =>
      revenue.revenueReport(deps, query).catch((error: unknown) => {
        if (error instanceof OperationError) return { refused: error.message }
        throw error
      }),
    orderMargin: (orderId) => revenue.orderMargin(deps, { order: orderId }),
  }
}

/** The console's move of a shipment (web/operator/orders.pages.ts): the same action the command line takes. */
export function consoleShipmentMovesOf(service: ShipmentMovesService): ConsoleShipmentMoves {
  return {
    choices: (orderId) => service.choices(orderId),
    move: (input, actor) =>
      orders
        .moveShipment(
          { shipmentMoves: async () => service, actor },
          { shipment: input.shipmentId, lab: input.labCode, reason: input.reason },
        )
        .catch((error: unknown) => {
          if (error instanceof ShipmentMoveRefused) return { refused: error.message, field: error.field }
          throw error
        }),
  }
}

/** The console's actions on an order (web/operator/orders.pages.ts), the command line's functions (orders.ts). */
export function consoleOrderActionsOf(service: OrderOperationsService): ConsoleOrderActions {
  const deps = (actor: AuditActor) => ({ orderOperations: async () => service, actor })
  return {
    version: (orderId) => service.version(orderId),
    notes: (orderId) => service.notes(orderId),
    cancel: (orderId, form, actor) => orders.cancelOrder(deps(actor), { order: orderId, ...form }),
    refund: (orderId, form, actor) => orders.refundOrder(deps(actor), { order: orderId, ...form }),
    retryDownload: (orderId, form, actor) => orders.retryDownload(deps(actor), { order: orderId, ...form }),
    release: (orderId, form, actor) => orders.releaseOrder(deps(actor), { order: orderId, ...form }),
    addNote: (orderId, text, actor) => orders.addOrderNote(deps(actor), { order: orderId, text }),
  }
}

/** The console's claims section (web/operator/claims.pages.ts), the command line's functions (claims.ts). */
export function consoleClaimsOf(service: ClaimResolutionService): ConsoleClaims {
  const deps = (actor: AuditActor) => ({ claims: async () => service, actor })
  return {
    async list(query, pageSize) {
      const claimNumber = query.after ? parseId('clm', query.after.claimId) : undefined
      if (query.after && claimNumber === undefined) return { claims: [], hasMore: false }
      const claims = await service.list(
        {
          ...(query.status ? { status: query.status } : {}),
          ...(query.category ? { category: query.category } : {}),
          ...(query.labCode ? { labCode: query.labCode } : {}),
          ...(query.after && claimNumber !== undefined ? { after: { claimNumber, pending: query.after.pending } } : {}),
        },
        pageSize + 1,
      )
      return { claims: claims.slice(0, pageSize), hasMore: claims.length > pageSize }
    },
    read: async (claimId) => (await service.show(claimId)) ?? null,
    photo: async (evidenceId) => (await service.evidence(evidenceId)) ?? null,
    decide: (claimId, form, actor) =>
      claims.resolveClaim(deps(actor), {
        claim: claimId,
        resolution: form.resolution,
        note: form.note,
        amount: form.amount,
        version: form.version,
      }),
  }
}
