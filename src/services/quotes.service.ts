// Quotes (docs/wire-contract.md#quotes): what an order of these items would cost by each shipping method,
// without creating it. The items are checked exactly as an order's (domain/catalogue-matching.ts), allocated by
// the allocation the pipeline runs (domain/allocation/) and priced by the pricing behind order charges
// (domain/pricing.ts), so a quote for an order's items shows that order's shipments and charges. `prepareQuotes`
// then `storeQuotes` store each quote (docs/api.md#price-locked-quotes) so an order can be charged exactly what it
// said; `createQuote` prices without storing anything.
//
// Quotes carry the delivery promise (docs/api.md#delivery-estimates): each is allocated as if the labs received the
// work at the time of the request, so every shipment has its estimate and the quote the latest of them. With
// `deliverBy`, each method's quote is the cheapest plan that arrives by then; a method no plan of which can is still
// quoted (its cheapest plan) with a DeliveryDateUnreachable issue naming the earliest date.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import { allocateShipments } from '../domain/allocation/allocation.ts'
import type { AllocationItem, LabUnavailability } from '../domain/allocation/model.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import {
  availableShippingMethods,
  catalogueValidationFailed,
  type MatchedItem,
  type MatchResult,
  matchOrderItems,
  pricedPageCount,
  QUOTE_PATHS,
} from '../domain/catalogue-matching.ts'
import { isIsoCountryCode } from '../domain/country-codes.ts'
import {
  type CollectedBy,
  DEFAULT_INCOTERM,
  declaredValue,
  type Incoterm,
  prepaidDuties,
  type ShipmentCustoms,
  shipmentCustoms,
} from '../domain/customs.ts'
import {
  combinedEstimate,
  type DeliveryEstimate,
  type DeliveryWindow,
  deliverByFailure,
} from '../domain/delivery-promise.ts'
import { addFailure, hasFailures } from '../domain/failures.ts'
import { parseId } from '../domain/ids.ts'
import { unavailableLabs } from '../domain/lab-availability.ts'
import { toWireMoney, type WireMoney } from '../domain/money.ts'
import { ServiceError } from '../domain/outcomes.ts'
import type { PricedProduct, PriceList } from '../domain/price-lists.ts'
import { type PricedItem, priceAllocation } from '../domain/pricing.ts'
import type { QuoteLock } from '../domain/quote-lock.ts'
import {
  merchantRouting,
  operatorRouting,
  type RoutingAmounts,
  type RoutingRound,
  routingRound,
} from '../domain/routing.ts'
import type { ShippingMethod, SizingMode } from '../domain/shipping-methods.ts'
import { listLabAvailability } from '../repositories/lab-availability.repository.ts'
import { deleteExpiredUnusedQuotes, findQuote, insertQuotes } from '../repositories/quotes.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { LabQualityGate } from './pipeline/lab-room.ts'

/** A quote request as the schema lets it through (the shipping method already in canonical spelling). */
export interface CreateQuoteInput {
  shippingMethod?: ShippingMethod | null
  destinationCountryCode: string
  currencyCode?: string | null
  items: {
    sku: string
    copies: number
    attributes?: Record<string, string> | null
    assets: { printArea?: string; pageCount?: number | null; url?: string }[]
    /** The declared value of one copy, as an order's; omitted: the quoted unit cost is declared. */
    recipientCost?: { amount: string; currency: string } | null
    /** Only for the resolution check of asset URLs (services/previews.service.ts, quoteWarnings). */
    sizing?: SizingMode
  }[]
  /** "YYYY-MM-DD": quote the cheapest plans that arrive by this date. */
  deliverBy?: string | null
  /** The incoterm to quote (docs/api.md#customs-and-duties); omitted: DAP. */
  customs?: { incoterm: Incoterm } | null
}

/** What a quote needs to know about the caller: the currency quotes default to. */
export interface QuoteCaller {
  billingCurrency: string
  /**
   * The account's price list (docs/billing.md#price-lists); null or absent: the catalogue's default list, the
   * labs' costs when it has none.
   */
  priceList?: string | null
  /**
   * Live: the labs that take no new work now (docs/allocation.md#lab-availability), from `unavailableLabs`; a
   * quote is allocated without them, as an order made now would be.
   */
  unavailableLabs?: Readonly<Record<string, LabUnavailability>>
}

export interface QuoteShipment {
  carrier: { name: string; service: string }
  fulfillmentLocation: { countryCode: string; labCode: string }
  cost: WireMoney
  tax: WireMoney
  /** Quote item ids, in request order. */
  items: string[]
  /** printroute's own: the shipment's delivery estimate, absent when the catalogue gives none. */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
  /** printroute's own: the duties and taxes at the destination's border, who pays them, and why. */
  customs: QuoteShipmentCustoms
}

/** A quoted shipment's customs (docs/api.md#customs-and-duties). */
export interface QuoteShipmentCustoms {
  incoterm: Incoterm
  dutiesAndTaxes: WireMoney | null
  collectedBy: CollectedBy
  basis: string
}

export interface QuoteItem {
  id: string
  sku: string
  copies: number
  unitCost: WireMoney
  taxUnitCost: WireMoney
  attributes: Record<string, string>
  assets: { printArea: string; pageCount: number | null }[]
}

/** Keys in the contract's order; `shipmentMethod` is the contract's (and the public API's) spelling. */
export interface PricedQuote {
  shipmentMethod: ShippingMethod
  /** `dutiesAndTaxes` only on a DDP quote, last: the duties printroute prepays, which its totalCost includes. */
  costSummary: {
    items: WireMoney
    shipping: WireMoney
    totalCost: WireMoney
    totalTax: WireMoney
    dutiesAndTaxes?: WireMoney
  }
  shipments: QuoteShipment[]
  items: QuoteItem[]
  /** printroute's own: the price list the figures come from; absent when they are the labs' costs. */
  priceList?: string
  /** printroute's own: the latest of the shipments' estimates; absent when any shipment has none. */
  estimatedDispatchDate?: string
  estimatedDelivery?: DeliveryWindow
}

/** A quote's estimate keys, which the wire puts after every other key of the quote. */
type QuoteEstimate = Pick<PricedQuote, 'estimatedDispatchDate' | 'estimatedDelivery'>

/**
 * A stored quote as answered: its id first, the contract's fields, then when its prices stop holding and whether
 * an order can use them at all (only a quote in the account's billing currency can: orders are charged in it),
 * then its delivery estimate.
 */
export type Quote = { id: string } & Omit<PricedQuote, keyof QuoteEstimate> & {
    expiresAt: string
    usableForOrders: boolean
  } & QuoteEstimate & {
    /**
     * printroute's own, last: the method is guaranteed (docs/catalogue.md#shipping-guarantees), this share of a
     * shipment's shipping is credited when it is delivered late; absent for a method without a guarantee.
     */
    guarantee?: { creditPercent: string }
  }

export interface QuoteIssue {
  errorCode: string
  description: string
  /** On DELIVERY_DATE_UNREACHABLE: the earliest date any plan of the method reaches, when one is known. */
  earliestDeliveryDate?: string
}

/** The issue of a quoted method no plan of which arrives by the request's `deliverBy`. */
export const DELIVERY_DATE_UNREACHABLE = 'DeliveryDateUnreachable'

export interface QuoteResult<Q = PricedQuote> {
  outcome: 'Created' | 'CreatedWithIssues'
  quotes: Q[]
  issues: QuoteIssue[]
}

/**
 * Quotes priced for storing and not stored yet (`storeQuotes`): a request can still be refused in between (its
 * asset URLs are checked there) and then leaves nothing behind.
 */
export interface PreparedQuotes {
  result: QuoteResult<{ quote: PricedQuote; lock: QuoteLock }>
  createdAt: Date
  expiresAt: Date
  /** The catalogue version the quotes were priced with (null: a catalogue not stored as a version). */
  catalogueVersion: number | null
}

/** Quotes are kept 7 days unless configured otherwise (`--quote-lifetime`). */
export const DEFAULT_QUOTE_LIFETIME_SECONDS = 7 * 86_400

/**
 * How long an unused quote is kept after its `expiresAt`: meanwhile an order naming it is told QuoteExpired and
 * its routing can still be read; then the expire-quotes job deletes it (QuoteNotFound, 404). A quote an order
 * used is kept with the order.
 */
export const EXPIRED_QUOTE_RETENTION_SECONDS = 30 * 86_400

/** GET /quotes/{id}/routing: the routing behind a stored quote, as worked out when it was made. */
export interface QuoteRouting {
  quoteId: string
  destinationCountryCode: string
  currency: string
  allocations: RoutingRound[]
  /** What the money figures are (docs/api.md#routing): the merchant's selling prices where a price list applied. */
  amounts: RoutingAmounts
  /** With `SellingPrices`: the list the figures come from. */
  priceList?: string
}

/**
 * docs/wire-contract.md#quotes: destinations where sales tax is not computed (the US) get this issue and
 * `CreatedWithIssues`.
 */
export const SALES_TAX_WARNING_CODE = 'destinationCountryCode.UsSalesTaxWarning'

/** `qit_` + 32 lowercase hex (docs/wire-contract.md#identifiers): random, as a quote is never stored or looked up. */
export function newQuoteItemId(): string {
  return `qit_${randomBytes(16).toString('hex')}`
}

export interface QuotesDeps {
  catalogue: Catalogue
  newItemId?: () => string
  /** Where `storeQuotes` stores quotes; only `createQuote` works without it. */
  db?: Database
  clock?: Clock
  /** How long a stored quote's prices hold; DEFAULT_QUOTE_LIFETIME_SECONDS when absent. */
  lifetimeSeconds?: number
  /** The labs' quality rates: Live quotes leave out the labs above their threshold; none when absent. */
  labQuality?: LabQualityGate
}

/** Quotes: what an order of these items would cost by each shipping method, stored or not. */
export interface QuotesService {
  /** One quote per requested (or possible) shipping method, priced only: nothing is stored. */
  createQuote(caller: QuoteCaller, input: CreateQuoteInput): QuoteResult
  /** Like createQuote, with what storing the quotes keeps and their times; nothing is stored yet. */
  prepareQuotes(caller: QuoteCaller, input: CreateQuoteInput): PreparedQuotes
  /** The labs a quote of this caller leaves out now: paused or at capacity on Live, none in Sandbox. */
  unavailableLabs(caller: Caller): Promise<Record<string, LabUnavailability>>
  /** Stores prepared quotes so an order can use their prices until they expire; the quotes with their ids. */
  storeQuotes(caller: Caller, prepared: PreparedQuotes): Promise<QuoteResult<Quote>>
  /** The routing of one of the caller's stored quotes; EntityNotFound when there is none. */
  quoteRouting(caller: Caller, quoteId: string, reader?: 'merchant' | 'operator'): Promise<QuoteRouting>
  /** Deletes the unused quotes that expired over EXPIRED_QUOTE_RETENTION_SECONDS ago; how many. */
  expireQuotes(): Promise<number>
}

export function createQuotesService(deps: QuotesDeps): QuotesService {
  const { catalogue } = deps
  // Estimates count from the time of the request; a service built without a clock (createQuote alone) reads the
  // system's.
  const requestTime = () => (deps.clock ? deps.clock.now() : new Date())
  const newItemId = deps.newItemId ?? newQuoteItemId
  const priceQuotes = (caller: QuoteCaller, input: CreateQuoteInput, now: Date) =>
    priceQuotesOf(catalogue, newItemId, caller, input, now)

  function storage(): { db: Database; clock: Clock } {
    if (!deps.db || !deps.clock) throw new Error('the quotes service was built without a database')
    return { db: deps.db, clock: deps.clock }
  }

  return {
    /**
     * One quote per requested method, or per method that can serve every item; ValidationFailed otherwise.
     * Prices only: nothing is stored (`prepareQuotes` and `storeQuotes` store them).
     */
    createQuote(caller: QuoteCaller, input: CreateQuoteInput): QuoteResult {
      // Nothing is stored, so what storing would keep is dropped.
      const result = priceQuotes(caller, input, requestTime())
      return { ...result, quotes: result.quotes.map(({ quote }) => quote) }
    },

    /**
     * Like createQuote, with what storing the quotes keeps and their times; nothing is stored yet: `storeQuotes`
     * stores them once nothing else can refuse the request.
     */
    prepareQuotes(caller: QuoteCaller, input: CreateQuoteInput): PreparedQuotes {
      const { clock } = storage()
      const createdAt = clock.now()
      const expiresAt = new Date(createdAt.getTime() + (deps.lifetimeSeconds ?? DEFAULT_QUOTE_LIFETIME_SECONDS) * 1000)
      // The version is read in the same turn as the pricing: the one the prices come from.
      return {
        result: priceQuotes(caller, input, createdAt),
        createdAt,
        expiresAt,
        catalogueVersion: catalogue.version,
      }
    },

    async unavailableLabs(caller: Caller): Promise<Record<string, LabUnavailability>> {
      // Sandbox quotes, like Sandbox orders, are made by the simulated labs, which never pause or fill up.
      if (caller.environment !== 'live') return {}
      const { db, clock } = storage()
      const belowQuality = (await deps.labQuality?.labsBelowThreshold()) ?? []
      return unavailableLabs(catalogue, await listLabAvailability(db), clock.now(), belowQuality)
    },

    /** Stores every prepared quote so an order can use its prices until it expires; the quotes with their ids. */
    async storeQuotes(caller: Caller, prepared: PreparedQuotes): Promise<QuoteResult<Quote>> {
      const { db } = storage()
      const { result, createdAt, expiresAt } = prepared
      const scope = { accountId: caller.accountId, environment: caller.environment }
      const ids = await insertQuotes(
        db,
        scope,
        result.quotes.map(({ lock }) => lock),
        { createdAt, expiresAt },
        prepared.catalogueVersion,
      )
      return {
        ...result,
        quotes: result.quotes.map(({ quote, lock }, index) => {
          const { estimatedDispatchDate, estimatedDelivery, ...priced } = quote
          return {
            id: ids[index] as string,
            ...priced,
            expiresAt: expiresAt.toISOString(),
            usableForOrders: lock.currency === caller.billingCurrency.toUpperCase(),
            ...(estimatedDispatchDate && estimatedDelivery ? { estimatedDispatchDate, estimatedDelivery } : {}),
            ...guaranteeOf(catalogue, quote.shipmentMethod),
          }
        }),
      }
    },

    /** The routing of one of the caller's stored quotes; EntityNotFound when there is none. */
    async quoteRouting(caller: Caller, quoteId: string, reader = 'merchant'): Promise<QuoteRouting> {
      const { db } = storage()
      const number = parseId('quo', quoteId)
      const quote =
        number === undefined
          ? undefined
          : await findQuote(db, { accountId: caller.accountId, environment: caller.environment }, number)
      if (!quote) throw new ServiceError('EntityNotFound', `Quote ${quoteId} was not found`)
      return {
        quoteId: quote.id,
        destinationCountryCode: quote.destinationCountryCode,
        currency: quote.currency,
        // The merchant sees the prices the quote was made at, the operator's console the labs' costs.
        ...(reader === 'operator' ? operatorRouting([quote.routing]) : merchantRouting([quote.routing])),
      }
    },

    /** Deletes the unused quotes of every account that expired over EXPIRED_QUOTE_RETENTION_SECONDS ago. */
    async expireQuotes(): Promise<number> {
      const { db, clock } = storage()
      return deleteExpiredUnusedQuotes(db, new Date(clock.now().getTime() - EXPIRED_QUOTE_RETENTION_SECONDS * 1000))
    },
  }
}

/** Each quote with what storing it keeps: its items and shipments priced, its routing as at `now`. */
function priceQuotesOf(
  catalogue: Catalogue,
  newItemId: () => string,
  caller: QuoteCaller,
  input: CreateQuoteInput,
  now: Date,
): QuoteResult<{ quote: PricedQuote; lock: QuoteLock }> {
  const { matched, destination, currency, methods } = quotableMethods(catalogue, caller, input, now)
  // One id per request item, shared by every quote of the answer: item N is the same item in each of them.
  const ids = matched.items.map(() => newItemId())
  const allocationItems: AllocationItem[] = matched.items.map((item, position) => ({
    itemId: ids[position] as string,
    variant: item.variant,
    copies: item.copies,
    pageCount: pricedPageCount(item.product, item.assets),
  }))
  const copiesByItem = new Map(allocationItems.map((item) => [item.itemId, item.copies]))
  const deliverBy = input.deliverBy ?? undefined
  const basis: QuoteBasis = {
    priceList: catalogue.priceLists.listFor(caller.priceList),
    productOfItem: new Map(
      matched.items.map((item, position) => [
        ids[position] as string,
        { sku: item.product.sku, category: item.product.category },
      ]),
    ),
    destination,
    currency,
    items: matched.items,
    ids,
    allocationItems,
    copiesByItem,
    now,
    deliverBy,
    unavailableLabs: caller.unavailableLabs ?? {},
    incoterm: input.customs?.incoterm ?? DEFAULT_INCOTERM,
    recipientCosts: input.items.map((item) => item.recipientCost ?? null),
  }
  const priced = methods.map((method) => priceMethod(catalogue, basis, method))
  const issues = [
    ...salesTaxIssues(catalogue, destination),
    ...priced.flatMap(({ quote, missed }) => (missed ? [unreachableIssue(quote.shipmentMethod, missed)] : [])),
  ]
  const quotes = priced.map(({ quote, lock }) => ({ quote, lock }))
  return { outcome: issues.length > 0 ? 'CreatedWithIssues' : 'Created', quotes, issues }
}

/** The issue of a method that cannot deliver by the date: its name, the date, and the earliest date it can. */
function unreachableIssue(
  method: ShippingMethod,
  missed: { date: string; earliestDeliveryDate: string | null },
): QuoteIssue {
  const { date, earliestDeliveryDate } = missed
  const why =
    earliestDeliveryDate === null
      ? 'the catalogue gives no delivery estimate for some item by any lab'
      : `the earliest any plan delivers is ${earliestDeliveryDate}`
  return {
    errorCode: DELIVERY_DATE_UNREACHABLE,
    description: `No ${method} plan delivers by ${date}: ${why}. The quote is the cheapest ${method} plan.`,
    ...(earliestDeliveryDate === null ? {} : { earliestDeliveryDate }),
  }
}

/**
 * The request's items matched against the catalogue, its destination and currency, and the shipping methods to
 * quote (the one requested, or every one that can serve all the items); ValidationFailed naming every problem.
 */
function quotableMethods(
  catalogue: Catalogue,
  caller: QuoteCaller,
  input: CreateQuoteInput,
  now: Date,
): { matched: MatchResult; destination: string; currency: string; methods: ShippingMethod[] } {
  const matched = matchOrderItems(
    catalogue,
    {
      destinationCountryCode: input.destinationCountryCode,
      shippingMethod: input.shippingMethod ?? null,
      items: input.items.map((item) => ({
        sku: item.sku,
        copies: item.copies,
        attributes: item.attributes ?? {},
        assets: item.assets.map((asset) => ({ printArea: asset.printArea, pageCount: asset.pageCount ?? null })),
      })),
    },
    QUOTE_PATHS,
  )
  const failures = matched.failures
  const destination = matched.destinationCountryCode

  // The account's billing currency is the default, and is checked like a requested one: an account created
  // with a currency the catalogue has no rate for gets the same named failure.
  const requestedCurrency = input.currencyCode ?? caller.billingCurrency
  if (!catalogue.isKnownCurrency(requestedCurrency)) {
    addFailure(failures, 'currencyCode', {
      code: 'UnknownCurrency',
      providedValue: requestedCurrency,
      validValues: [...catalogue.currencies],
    })
  }

  input.items.forEach((item, index) => {
    if (item.recipientCost && !catalogue.isKnownCurrency(item.recipientCost.currency)) {
      addFailure(failures, `${QUOTE_PATHS.items}[${index}].recipientCost.currency`, {
        code: 'UnknownCurrency',
        providedValue: item.recipientCost.currency,
        validValues: [...catalogue.currencies],
      })
    }
  })

  const dateProblem = input.deliverBy ? deliverByFailure(input.deliverBy, now) : undefined
  if (dateProblem) addFailure(failures, 'deliverBy', dateProblem)

  let methods: ShippingMethod[] = matched.shippingMethod ? [matched.shippingMethod] : []
  const everyItemMatched = matched.items.length === input.items.length && isIsoCountryCode(destination)
  if (!matched.shippingMethod && everyItemMatched) {
    methods = availableShippingMethods(catalogue, destination, matched.items)
    if (methods.length === 0) {
      // Each item reaches the destination (matching checked that), but no single method carries them all:
      // name the methods of each item so the merchant can split the order.
      addFailure(failures, QUOTE_PATHS.countryCode, {
        code: 'NoCommonShippingMethod',
        providedValue: destination,
        comparisonValue: Object.fromEntries(
          matched.items.map((item) => [
            `${QUOTE_PATHS.items}[${item.index}]`,
            catalogue.shippingMethodsForVariant(item.variant, destination),
          ]),
        ),
      })
    }
  }
  if (hasFailures(failures)) throw catalogueValidationFailed(catalogue, failures, 'The quote could not be made')

  return { matched, destination, currency: requestedCurrency.toUpperCase(), methods }
}

/** What pricing each method's quote starts from: the matched items, their ids and copies, the time of the routing. */
interface QuoteBasis {
  /** The caller's price list; null: the labs' costs. */
  priceList: PriceList | null
  productOfItem: ReadonlyMap<string, PricedProduct>
  destination: string
  currency: string
  items: MatchedItem[]
  ids: string[]
  allocationItems: AllocationItem[]
  copiesByItem: Map<string, number>
  now: Date
  /** The request's date, if any. */
  deliverBy: string | undefined
  unavailableLabs: Readonly<Record<string, LabUnavailability>>
  incoterm: Incoterm
  /** Each request item's `recipientCost`, null where it gave none. */
  recipientCosts: ({ amount: string; currency: string } | null)[]
}

/**
 * One method's quote: its shipments and items priced with their estimates, the lock that storing it keeps (routing
 * included), and when no plan meets the request's `deliverBy`, that date and the earliest any plan reaches.
 */
function priceMethod(
  catalogue: Catalogue,
  basis: QuoteBasis,
  method: ShippingMethod,
): { quote: PricedQuote; lock: QuoteLock; missed?: { date: string; earliestDeliveryDate: string | null } } {
  const { destination, currency, ids, allocationItems, copiesByItem, now, deliverBy } = basis
  const allocate = (unavailable: Readonly<Record<string, LabUnavailability>>) =>
    allocateShipments(
      catalogue,
      {
        destinationCountryCode: destination,
        shippingMethod: method,
        items: allocationItems,
        unavailableLabs: unavailable,
        promise: { received: now, ...(deliverBy ? { deliverBy } : {}) },
      },
      { explain: true },
    )
  const withAvailability = allocate(basis.unavailableLabs)
  // When every lab that could make an item is paused or full, the quote is the plan with every lab free: a quote
  // reserves nothing, and the labs may have room again by the time an order is placed.
  const allocation = withAvailability.ok ? withAvailability : allocate({})
  if (!allocation.ok) {
    // Matching found a lab offering the method for every item, so this is a bug: logged, answered 500.
    throw new Error(`no lab allocation for ${method} although every item matched`)
  }
  const priced = priceAllocation(catalogue, allocation.shipments, copiesByItem, destination, currency, {
    list: basis.priceList,
    productOfItem: basis.productOfItem,
    shippingMethod: method,
  })
  const money = (minor: bigint) => toWireMoney({ minor, currency: priced.currency })
  const indexOfItem = new Map(ids.map((id, index) => [id, index]))
  const pricedItems = new Map<string, PricedItem>()
  for (const shipment of priced.shipments) for (const item of shipment.items) pricedItems.set(item.itemId, item)

  const estimates = allocation.shipments.map((planned) => planned.estimate ?? null)
  // Each shipment's customs: the items declared at their recipientCost, else at their quoted unit cost.
  const customs = allocation.shipments.map(
    (planned): ShipmentCustoms =>
      shipmentCustoms(catalogue, {
        destinationCountryCode: destination,
        labCountryCode: planned.labCountryCode,
        incoterm: basis.incoterm,
        currency: priced.currency,
        items: planned.itemIds.map((id) => {
          const position = indexOfItem.get(id) ?? -1
          const item = basis.items[position]
          const price = pricedItems.get(id)
          if (!item || !price) throw new Error(`item ${id} was allocated but not priced`)
          const itemPrice = { minor: price.unitCost, currency: priced.currency }
          return {
            sku: item.sku,
            attributes: item.attributes,
            copies: item.copies,
            unitValue: declaredValue(basis.recipientCosts[position], itemPrice).unitValue,
          }
        }),
      }),
  )
  const prepaid = customs.map(prepaidDuties)
  const duties = prepaid.reduce((sum, amount) => sum + amount, 0n)
  const quote: PricedQuote = {
    shipmentMethod: method,
    costSummary: {
      items: money(priced.totals.items),
      shipping: money(priced.totals.shipping),
      totalCost: money(priced.totals.total + duties),
      totalTax: money(priced.totals.tax),
      ...(basis.incoterm === 'DDP' ? { dutiesAndTaxes: money(duties) } : {}),
    },
    shipments: allocation.shipments.map((planned, index) => {
      const shipment = priced.shipments[index]
      if (!shipment || shipment.labCode !== planned.labCode) throw new Error('pricing reordered the shipments')
      return {
        carrier: { name: planned.carrier.name, service: planned.carrier.service },
        fulfillmentLocation: { countryCode: planned.labCountryCode, labCode: planned.labCode },
        cost: money(shipment.cost),
        tax: money(shipment.tax),
        items: [...planned.itemIds],
        ...estimateKeys(estimates[index] ?? null),
        customs: quoteShipmentCustoms(customs[index] as ShipmentCustoms),
      }
    }),
    items: basis.items.map((item, position) => {
      const id = ids[position] as string
      const price = pricedItems.get(id)
      if (!price) throw new Error(`item ${id} was allocated to no shipment`)
      return {
        id,
        sku: item.sku,
        copies: item.copies,
        unitCost: money(price.unitCost),
        taxUnitCost: money(price.taxUnitCost),
        attributes: { ...item.attributes },
        assets: item.assets.map((asset) => ({ printArea: asset.printArea, pageCount: asset.pageCount })),
      }
    }),
    ...(priced.priceList === null ? {} : { priceList: priced.priceList }),
    ...estimateKeys(combinedEstimate(estimates)),
  }
  const lock: QuoteLock = {
    shippingMethod: method,
    destinationCountryCode: destination,
    currency: priced.currency,
    items: basis.items.map((item, position) => {
      const price = pricedItems.get(ids[position] as string) as PricedItem
      return {
        sku: item.sku,
        copies: item.copies,
        attributes: { ...item.attributes },
        // Part of the lock: a book's price depends on its pages, so an order must have the pages quoted.
        pageCount: pricedPageCount(item.product, item.assets),
        unitCost: String(price.unitCost),
        taxUnitCost: String(price.taxUnitCost),
      }
    }),
    shipments: allocation.shipments.map((planned, index) => ({
      labCode: planned.labCode,
      cost: String(priced.shipments[index]?.cost ?? 0n),
      tax: String(priced.shipments[index]?.tax ?? 0n),
      itemIndexes: planned.itemIds.map((id) => indexOfItem.get(id) ?? -1),
      // Locked like the shipping: an order using the quote is charged these duties (domain/quote-lock.ts).
      ...(basis.incoterm === 'DDP' ? { duties: String(prepaid[index] ?? 0n) } : {}),
    })),
    routing: routingRound(catalogue, allocation, {
      basis: 'Quote',
      at: now,
      destinationCountryCode: destination,
      shippingMethod: method,
      copiesByItem,
      currency: priced.currency,
      selling: { list: basis.priceList, productOfItem: basis.productOfItem, shippingMethod: method },
    }),
  }
  const outcome = allocation.deliverBy
  if (outcome && !outcome.met) {
    return { quote, lock, missed: { date: outcome.date, earliestDeliveryDate: outcome.earliestDeliveryDate } }
  }
  return { quote, lock }
}

function quoteShipmentCustoms(customs: ShipmentCustoms): QuoteShipmentCustoms {
  return {
    incoterm: customs.incoterm,
    dutiesAndTaxes: customs.dutiesAndTaxes ? toWireMoney(customs.dutiesAndTaxes) : null,
    collectedBy: customs.collectedBy,
    basis: customs.basis,
  }
}

/** An estimate's wire keys; none without one. */
function estimateKeys(estimate: DeliveryEstimate | null): QuoteEstimate {
  if (!estimate) return {}
  return { estimatedDispatchDate: estimate.estimatedDispatchDate, estimatedDelivery: { ...estimate.estimatedDelivery } }
}

/** Destinations where sales tax is not computed (the US) get SALES_TAX_WARNING_CODE. */
function salesTaxIssues(catalogue: Catalogue, destination: string): QuoteIssue[] {
  const taxRate = catalogue.taxRate(destination)
  return taxRate.salesTaxNotComputed
    ? [
        {
          errorCode: SALES_TAX_WARNING_CODE,
          description:
            `${taxRate.name ?? 'Sales tax'} is not computed for destination ${destination}: the quoted ` +
            'amounts do not include it, and it may be due on delivery.',
        },
      ]
    : []
}

/** A quote's `guarantee` key: present only for a guaranteed method, so other quotes read as before. */
function guaranteeOf(catalogue: Catalogue, method: ShippingMethod): Pick<Quote, 'guarantee'> {
  const guarantee = catalogue.shippingGuarantee(method)
  return guarantee ? { guarantee: { creditPercent: guarantee.creditPercent } } : {}
}
