// Customs and duties (docs/catalogue.md#customs, docs/api.md#customs-and-duties), as pure functions over the
// loaded catalogue: what an item is declared as (HS code, origin, weight), and what a shipment owes at the border
// of its destination under the catalogue's import rules, who pays it, and why, in words.
//
// A shipment owes nothing when it stays in its country or moves inside a customs union (the EU). Otherwise its
// goods value (the items' declared values x copies, shipping excluded) is compared with the destination's
// low-value threshold: at or under it no duty is due and VAT is collected as the rule says (IOSS, by the seller
// at sale, or not at all); over it (or with no threshold) duty is due per item at its HS chapter's rate, and
// import tax at the border on goods value plus duty. Every amount is rounded once, half-up, like pricing.

import type { Catalogue } from './catalogue.ts'
import type { CatalogueMoney, ImportRule, LowValueVatCollection } from './catalogue.types.ts'
import { formatMinor, percentOfMinorUnits } from './catalogue-money.ts'
import { parseAmountToMinor } from './money.ts'

/** Who pays duties and taxes: DDP the merchant (through printroute's charge), DAP the recipient on delivery. */
export const INCOTERMS = ['DDP', 'DAP'] as const
export type Incoterm = (typeof INCOTERMS)[number]

/** An order without `customs` ships DAP: the recipient pays whatever the border asks, as before. */
export const DEFAULT_INCOTERM: Incoterm = 'DAP'

/** Harmonized System code: 6 digits (international) to 10 (national tariff lines). */
export const HS_CODE_PATTERN = /^\d{6,10}$/
/** An HS chapter, the two first digits of a code: what duty rates are given for. */
export const HS_CHAPTER_PATTERN = /^\d{2}$/
/** Upper bound of a copy's shipping weight: 100 kg, far above any printed product. */
export const MAX_WEIGHT_GRAMS = 100_000

/** The EU member states: the only destinations an IOSS number (the EU Import One-Stop Shop) is good for. */
export const EU_MEMBER_STATES: readonly string[] = Object.freeze([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
])

/** Longest IOSS, EORI and tax id an order may carry (EORI numbers are at most 17 characters; tax ids vary). */
export const CUSTOMS_ID_MAX_LENGTH = 40

/** An IOSS number: `IM`, then 10 digits (3 for the member state of identification, 7 for the trader). */
export const IOSS_NUMBER_PATTERN = /^IM\d{10}$/

export function isEuMemberState(countryCode: string): boolean {
  return EU_MEMBER_STATES.includes(countryCode.toUpperCase())
}

/** The order's optional `customs` object (docs/api.md#customs-and-duties), as stored on the order document. */
export interface OrderCustoms {
  incoterm: Incoterm
  iossNumber?: string
  eoriNumber?: string
  recipientTaxId?: string
}

/** Who pays a shipment's duties and taxes: see `shipmentCustoms`. */
export const COLLECTED_BY = ['merchant', 'recipient', 'ioss', 'none'] as const
export type CollectedBy = (typeof COLLECTED_BY)[number]

/** What an item is declared as. `hsCode` and `weightGrams` are null where the catalogue gives none. */
export interface ItemCustoms {
  hsCode: string | null
  originCountryCode: string
  weightGrams: number | null
}

/**
 * The customs data of an item made by a lab in `labCountryCode`: the variant's own (when `attributes` pick a
 * variant that has some), else the product's; the origin defaults to the lab's country. An unknown SKU, or a
 * product without customs data, gives no HS code and no weight.
 */
export function itemCustoms(
  catalogue: Catalogue,
  sku: string,
  labCountryCode: string,
  attributes?: Readonly<Record<string, string>>,
): ItemCustoms {
  const variant = attributes ? catalogue.findVariant(sku, attributes) : undefined
  const data = variant?.customs ?? catalogue.findProduct(sku)?.customs ?? null
  return {
    hsCode: data?.hsCode ?? null,
    originCountryCode: data?.originCountryCode ?? labCountryCode.toUpperCase(),
    weightGrams: data?.weightGrams ?? null,
  }
}

/** Where a declared value came from: the merchant's `recipientCost`, or the item's price when it gave none. */
export type DeclaredValueSource = 'recipientCost' | 'itemPrice'

/** One copy's declared value and where it came from. */
export interface DeclaredValue {
  unitValue: CatalogueMoney
  source: DeclaredValueSource
}

/**
 * An item's declared value per copy: its `recipientCost` (per copy, docs/api.md#customs-and-duties) when given,
 * else the price printroute charges for one copy, flagged `itemPrice`.
 */
export function declaredValue(
  recipientCost: { amount: string; currency: string } | null | undefined,
  itemPrice: CatalogueMoney,
): DeclaredValue {
  const minor = recipientCost ? parseAmountToMinor(recipientCost.amount) : undefined
  if (recipientCost && minor !== undefined) {
    return { unitValue: { minor, currency: recipientCost.currency.toUpperCase() }, source: 'recipientCost' }
  }
  return { unitValue: itemPrice, source: 'itemPrice' }
}

/** One item of a shipment as customs sees it. */
export interface DeclaredItem {
  sku: string
  attributes?: Readonly<Record<string, string>>
  copies: number
  /** One copy's declared value, in any currency the catalogue knows. */
  unitValue: CatalogueMoney
}

export interface ShipmentCustomsInput {
  destinationCountryCode: string
  /** Where the shipment leaves from: its lab's country. */
  labCountryCode: string
  incoterm: Incoterm
  /** The currency amounts are answered in (the quote's or the order's billing currency). */
  currency: string
  items: readonly DeclaredItem[]
}

/** One item's duty, in the answer's currency. */
export interface ItemDuty {
  sku: string
  hsCode: string | null
  /** Duty percent in basis points (1250 = 12.5%). */
  dutyBasisPoints: number
  /** Goods value of the line (unit value x copies) and its duty, minor units. */
  value: bigint
  duty: bigint
}

/** What a shipment owes at the border, who pays it, and the basis in words. */
export interface ShipmentCustoms {
  incoterm: Incoterm
  /** Duties plus import tax; null where no customs border is crossed or the catalogue has no rule to tell. */
  dutiesAndTaxes: CatalogueMoney | null
  collectedBy: CollectedBy
  /** Why, in a sentence or two: the rule, its threshold, the rates, its date and source. */
  basis: string
  /** Duty and import tax apart (minor units in `currency`); zero where nothing is due. */
  duties: bigint
  importTax: bigint
  /** Goods value of the shipment in the answer's currency. */
  goodsValue: bigint
  items: ItemDuty[]
  /** The rule applied; null for a domestic or customs-union shipment, or a destination without a rule. */
  rule: Pick<ImportRule, 'name' | 'effectiveDate' | 'source'> | null
}

/** The amount printroute charges the merchant for a shipment: its duties and taxes when it ships DDP, else 0. */
export function prepaidDuties(customs: ShipmentCustoms): bigint {
  return customs.incoterm === 'DDP' && customs.collectedBy === 'merchant' ? (customs.dutiesAndTaxes?.minor ?? 0n) : 0n
}

const COLLECTION_WORDS: Record<LowValueVatCollection, string> = {
  ioss: 'VAT is charged at sale and declared under the Import One-Stop Shop (IOSS)',
  atSale: 'VAT/GST is charged by the seller at sale',
  exempt: 'no import tax is due',
}

const COLLECTED_BY_LOW_VALUE: Record<LowValueVatCollection, CollectedBy> = {
  ioss: 'ioss',
  atSale: 'merchant',
  exempt: 'none',
}

/** Duties and import tax of one shipment (see the top of this file). Throws RangeError for an unknown currency. */
export function shipmentCustoms(catalogue: Catalogue, input: ShipmentCustomsInput): ShipmentCustoms {
  const destination = input.destinationCountryCode.toUpperCase()
  const origin = input.labCountryCode.toUpperCase()
  const currency = input.currency.toUpperCase()
  const { incoterm } = input
  const money = (minor: bigint) => `${currency} ${formatMinor(minor)}`
  const rule = catalogue.importRuleFor(destination) ?? null
  const items = input.items.map((item): ItemDuty => {
    const hsCode = itemCustoms(catalogue, item.sku, origin, item.attributes).hsCode
    const unit = catalogue.convertMinorUnits(item.unitValue.minor, item.unitValue.currency, currency)
    return {
      sku: item.sku,
      hsCode,
      dutyBasisPoints: rule ? dutyBasisPointsOf(rule, hsCode) : 0,
      value: unit * BigInt(item.copies),
      duty: 0n,
    }
  })
  const goodsValue = items.reduce((sum, item) => sum + item.value, 0n)
  const nothing = { duties: 0n, importTax: 0n, goodsValue, items }

  if (destination === origin) {
    return {
      incoterm,
      dutiesAndTaxes: null,
      collectedBy: 'none',
      basis: `Domestic shipment (${origin} to ${destination}): no customs.`,
      ...nothing,
      rule: null,
    }
  }
  if (rule?.customsUnion && rule.destinations.includes(origin)) {
    return {
      incoterm,
      dutiesAndTaxes: null,
      collectedBy: 'none',
      basis: `Shipment inside the ${rule.name} customs union (${origin} to ${destination}): no customs.`,
      ...nothing,
      rule: null,
    }
  }
  if (!rule) {
    return {
      incoterm,
      dutiesAndTaxes: null,
      collectedBy: 'recipient',
      basis:
        `The catalogue has no import rule for ${destination}: any duties and taxes are not known in advance and ` +
        'are due from the recipient on delivery, whatever the incoterm.',
      ...nothing,
      rule: null,
    }
  }

  const dated = `${rule.name} rule effective ${rule.effectiveDate} (${rule.source})`
  const lowValue = rule.lowValue
  if (lowValue) {
    const inRuleCurrency = input.items.reduce(
      (sum, item) =>
        sum +
        catalogue.convertMinorUnits(item.unitValue.minor * BigInt(item.copies), item.unitValue.currency, rule.currency),
      0n,
    )
    if (inRuleCurrency <= lowValue.threshold.minor) {
      return {
        incoterm,
        dutiesAndTaxes: { minor: 0n, currency },
        collectedBy: COLLECTED_BY_LOW_VALUE[lowValue.vatCollection],
        basis:
          `Goods value ${rule.currency} ${formatMinor(inRuleCurrency)} is at or under the low-value threshold of ` +
          `${rule.currency} ${formatMinor(lowValue.threshold.minor)}: no duty, and ` +
          `${COLLECTION_WORDS[lowValue.vatCollection]}. ${dated}.`,
        ...nothing,
        rule: { name: rule.name, effectiveDate: rule.effectiveDate, source: rule.source },
      }
    }
  }

  for (const item of items) item.duty = percentOfMinorUnits(item.value, item.dutyBasisPoints)
  const duties = items.reduce((sum, item) => sum + item.duty, 0n)
  const taxRate = catalogue.taxRate(destination)
  const taxBasisPoints = rule.importTaxBasisPoints ?? (taxRate.salesTaxNotComputed ? 0 : taxRate.basisPoints)
  const importTax = percentOfMinorUnits(goodsValue + duties, taxBasisPoints)
  const collectedBy: CollectedBy = incoterm === 'DDP' ? 'merchant' : 'recipient'
  const over = lowValue
    ? `Goods value ${money(goodsValue)} is over the low-value threshold of ${rule.currency} ${formatMinor(lowValue.threshold.minor)}`
    : `Goods value ${money(goodsValue)}; ${destination} has no low-value threshold`
  const rates = [
    ...new Set(items.map((item) => `${chapterWords(item.hsCode)} at ${percentWords(item.dutyBasisPoints)}`)),
  ]
  const taxName = taxRate.name && !taxRate.salesTaxNotComputed ? `import ${taxRate.name}` : 'import tax'
  const payer =
    incoterm === 'DDP'
      ? 'paid by the merchant (DDP, charged by printroute)'
      : 'due from the recipient on delivery (DAP)'
  return {
    incoterm,
    dutiesAndTaxes: { minor: duties + importTax, currency },
    collectedBy,
    basis:
      `${over}: duty ${money(duties)} (${rates.join(', ')}) and ${taxName} ${money(importTax)} ` +
      `(${percentWords(taxBasisPoints)} of goods value plus duty), ${payer}. ${dated}.`,
    duties,
    importTax,
    goodsValue,
    items,
    rule: { name: rule.name, effectiveDate: rule.effectiveDate, source: rule.source },
  }
}

function dutyBasisPointsOf(rule: ImportRule, hsCode: string | null): number {
  if (hsCode === null) return rule.defaultDutyBasisPoints
  return rule.dutyBasisPointsByChapter[hsCode.slice(0, 2)] ?? rule.defaultDutyBasisPoints
}

function chapterWords(hsCode: string | null): string {
  return hsCode === null ? 'no HS code, default rate' : `HS chapter ${hsCode.slice(0, 2)}`
}

/** 1250 -> "12.5%", 2000 -> "20%". */
function percentWords(basisPoints: number): string {
  const whole = Math.trunc(basisPoints / 100)
  const fraction = basisPoints % 100
  if (fraction === 0) return `${whole}%`
  return `${whole}.${String(fraction).padStart(2, '0').replace(/0$/, '')}%`
}

// ---- orders ------------------------------------------------------------------------------------------------

/** What the customs of an order's shipments read from the order document (domain/order.ts `OrderDocument`). */
export interface CustomsOrder {
  recipient: { address: { countryCode: string } }
  customs?: OrderCustoms
  items: readonly {
    id: string
    sku: string
    copies: number
    attributes: Readonly<Record<string, string>>
    /** Per copy; null: the item's price is declared. */
    recipientCost: { amount: string; currency: string } | null
  }[]
}

/** The incoterm an order ships on: its `customs.incoterm`, DAP without. */
export function incotermOf(order: Pick<CustomsOrder, 'customs'>): Incoterm {
  return order.customs?.incoterm ?? DEFAULT_INCOTERM
}

/** One item of a shipment's customs: the order item, what it is declared as, and its declared value per copy. */
export interface DeclaredOrderItem extends ItemCustoms {
  itemId: string
  sku: string
  copies: number
  declared: DeclaredValue
}

/** A shipment of an order under customs: the computation, and each item as declared. */
export interface OrderShipmentCustoms extends ShipmentCustoms {
  /** The shipment's items in `itemIds` order, with what each is declared as (`items` holds their duties). */
  declaredItems: DeclaredOrderItem[]
}

/**
 * The customs of one shipment of an order: its lab's country, its items (`itemIds`) declared at their
 * `recipientCost` or else their price per copy (`unitPriceOf`, in `currency`), amounts in `currency`. The lab
 * declaration and the DDP charge both come from here, so they agree.
 */
export function orderShipmentCustoms(
  catalogue: Catalogue,
  order: CustomsOrder,
  shipment: { labCountryCode: string; itemIds: readonly string[] },
  currency: string,
  unitPriceOf: (itemId: string) => CatalogueMoney,
): OrderShipmentCustoms {
  const itemsById = new Map(order.items.map((item) => [item.id, item]))
  const declaredItems = shipment.itemIds.map((itemId): DeclaredOrderItem => {
    const item = itemsById.get(itemId)
    if (!item) throw new RangeError(`no item ${itemId} on the order`)
    return {
      itemId,
      sku: item.sku,
      copies: item.copies,
      ...itemCustoms(catalogue, item.sku, shipment.labCountryCode, item.attributes),
      declared: declaredValue(item.recipientCost, unitPriceOf(itemId)),
    }
  })
  const computed = shipmentCustoms(catalogue, {
    destinationCountryCode: order.recipient.address.countryCode,
    labCountryCode: shipment.labCountryCode,
    incoterm: incotermOf(order),
    currency,
    items: declaredItems.map((item) => ({
      sku: item.sku,
      attributes: itemsById.get(item.itemId)?.attributes ?? {},
      copies: item.copies,
      unitValue: item.declared.unitValue,
    })),
  })
  return { ...computed, declaredItems }
}

/** A priced shipment, as far as prepaid duties go (domain/pricing.ts `PricedShipment`). */
interface PricedForDuties {
  labCode: string
  items: readonly { itemId: string; unitCost: bigint }[]
  duties?: bigint
}

/**
 * Priced shipments of a DDP order with the duties printroute prepays set on each (`duties`, in `currency`); the
 * shipments as they are for any other order. A shipment's lab is looked up for its country; an unknown lab (a
 * catalogue that dropped it) prepays nothing.
 */
export function withPrepaidDuties<S extends PricedForDuties>(
  catalogue: Catalogue,
  order: CustomsOrder,
  priced: readonly S[],
  currency: string,
): S[] {
  if (incotermOf(order) !== 'DDP') return [...priced]
  const unitPrices = new Map(
    priced.flatMap((shipment) => shipment.items.map((item) => [item.itemId, item.unitCost] as const)),
  )
  return priced.map((shipment) => {
    const lab = catalogue.findLab(shipment.labCode)
    if (!lab) return { ...shipment, duties: 0n }
    const customs = orderShipmentCustoms(
      catalogue,
      order,
      { labCountryCode: lab.countryCode, itemIds: shipment.items.map((item) => item.itemId) },
      currency,
      (itemId) => ({ minor: unitPrices.get(itemId) ?? 0n, currency: currency.toUpperCase() }),
    )
    return { ...shipment, duties: prepaidDuties(customs) }
  })
}
