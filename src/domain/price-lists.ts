// Selling prices (docs/billing.md#price-lists): the catalogue's price lists turn the labs' costs into what a
// merchant pays. Pure: the loaded catalogue builds a `PriceLists` from the file's `priceLists`
// (catalogue.types.ts `PriceListEntry`, checked by catalogue/catalogue.price-lists.ts), and domain/pricing.ts asks
// it the selling price of each line.
//
// A list prices each product (by SKU, else by category, else by "*") and each shipping method (by name, else "*")
// with a rule:
//   fixed:  { prices: { GBP: "12.00", USD: "15.00" } }   the price of one copy (of a shipment's shipping) in each
//           currency given; any other currency is converted from the catalogue's base currency's price.
//   cost:   { markupPercent?: "40", plus?: "1.00", roundUpTo?: "0.99" }   the lab's cost in the priced currency,
//           plus markupPercent of it (rounded half-up once), plus `plus` (base currency, converted), then rounded
//           up to the next amount ending in roundUpTo's cents (.99: 12.34 -> 12.99, 12.99 stays). `{}` is the cost.
// A list with `base` takes what it does not price itself from its base list, less `percentOff` on products
// (shipping is taken as it is). A discount never takes a cost rule's price below the lab's cost.
//
// Without a default list (no list says `default: true`) an account without a list pays the labs' costs, exactly
// as before price lists existed.

import type { Lab, PriceListEntry, PriceRuleEntry, Product } from './catalogue.types.ts'
import { divideRoundingHalfUp, parseMoneyToMinor } from './catalogue-money.ts'
import { formatMinorAsAmount } from './money.ts'
import { SHIPPING_METHODS } from './shipping-methods.ts'

/** The product key that prices every product a list does not name by SKU or category. */
export const EVERY_PRODUCT = '*'
/** The shipping key that prices every method a list does not name. */
export const EVERY_METHOD = '*'
/** What an account's list is set to for "the catalogue's default list" (`accounts set-price-list --list default`). */
export const DEFAULT_PRICE_LIST = 'default'

/** A list's name: what `accounts set-price-list` takes ("default" names the catalogue's default list). */
export const PRICE_LIST_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** Markups: "40", "12.5", up to "9999.99" percent. */
export const MARKUP_PATTERN = /^(\d{1,4})(?:\.(\d{1,2}))?$/
/** A price point: the cents a rounded price ends in, "0.99", "0.50", "0.00". */
export const PRICE_POINT_PATTERN = /^0\.(\d{2})$/

const BASIS_POINTS_PER_WHOLE = 10_000n

export type PriceRule =
  | {
      kind: 'fixed' /** Currency -> minor units of one unit (a copy, a shipment). */
      prices: ReadonlyMap<string, bigint>
    }
  | {
      kind: 'cost'
      /** Hundredths of a percent added to the cost. */
      markupBasisPoints: number
      /** Added after the markup, in the catalogue's base currency. */
      plusMinor: bigint
      /** The cents (0..99) the price is rounded up to end in; null: not rounded. */
      priceEnding: number | null
    }

export interface PriceList {
  readonly name: string
  readonly isDefault: boolean
  readonly baseName: string | null
  /** Hundredths of a percent taken off the base list's product prices. */
  readonly percentOffBasisPoints: number
  /** `sku:<lower sku>`, `category:<lower category>` or `*` -> rule. */
  readonly products: ReadonlyMap<string, PriceRule>
  /** Canonical shipping method or `*` -> rule. */
  readonly shipping: ReadonlyMap<string, PriceRule>
}

/** How a price is computed in a currency: its lab cost there and the catalogue's conversion. */
export interface PricingContext {
  /** The currency priced in (upper case). */
  currency: string
  baseCurrency: string
  /** Converts minor units between currencies, rounded once half-up (Catalogue.convertMinorUnits). */
  convert(minor: bigint, from: string, to: string): bigint
}

/** What a product is known by to a price list. */
export interface PricedProduct {
  sku: string
  category: string
}

/** "40" -> 4000, "12.5" -> 1250; undefined when malformed. */
export function parseMarkupToBasisPoints(text: string): number | undefined {
  const match = MARKUP_PATTERN.exec(text)
  if (!match) return undefined
  const [, whole = '0', fraction = ''] = match
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
}

/** "0.99" -> 99; undefined when not a price point. */
export function parsePricePoint(text: string): number | undefined {
  const match = PRICE_POINT_PATTERN.exec(text)
  return match ? Number(match[1]) : undefined
}

/** The smallest amount at or above `minor` whose cents are `ending` (0..99): 1234n, 99 -> 1299n; 1300n, 99 -> 1399n. */
export function roundUpToPricePoint(minor: bigint, ending: number): bigint {
  const cents = BigInt(ending)
  const candidate = minor - (((minor % 100n) + 100n) % 100n) + cents
  return candidate >= minor ? candidate : candidate + 100n
}

/** `minor` less `basisPoints` hundredths of a percent of it, the discount rounded half-up once. */
export function discounted(minor: bigint, basisPoints: number): bigint {
  return minor - divideRoundingHalfUp(minor * BigInt(basisPoints), BASIS_POINTS_PER_WHOLE)
}

/** A checked rule entry as a rule (the checks are catalogue.price-lists.ts's; this throws on what they refuse). */
export function priceRuleOf(entry: PriceRuleEntry): PriceRule {
  if (entry.prices !== undefined) {
    const prices = new Map<string, bigint>()
    for (const [currency, amount] of Object.entries(entry.prices)) {
      if (currency.startsWith('$')) continue
      const minor = parseMoneyToMinor(amount)
      if (minor === undefined) throw new Error(`catalogue: unvalidated price ${amount}`)
      prices.set(currency, minor)
    }
    return { kind: 'fixed', prices }
  }
  const markup = entry.markupPercent === undefined ? 0 : parseMarkupToBasisPoints(entry.markupPercent)
  const plus = entry.plus === undefined ? 0n : parseMoneyToMinor(entry.plus)
  const ending = entry.roundUpTo === undefined ? null : parsePricePoint(entry.roundUpTo)
  if (markup === undefined || plus === undefined || ending === undefined) {
    throw new Error('catalogue: unvalidated price rule')
  }
  return { kind: 'cost', markupBasisPoints: markup, plusMinor: plus, priceEnding: ending }
}

/** The key a product rule of the file is stored under: `*`, or a SKU's or category's (lower case). */
export function productRuleKey(kind: 'sku' | 'category', name: string): string {
  return `${kind}:${name.toLowerCase()}`
}

/** A rule's price of one unit whose lab cost in `context.currency` is `costMinor`. */
export function applyRule(rule: PriceRule, costMinor: bigint, context: PricingContext): bigint {
  if (rule.kind === 'fixed') {
    const own = rule.prices.get(context.currency)
    if (own !== undefined) return own
    const base = rule.prices.get(context.baseCurrency)
    if (base === undefined) throw new RangeError(`price rule has no ${context.baseCurrency} price`)
    return context.convert(base, context.baseCurrency, context.currency)
  }
  const markup = divideRoundingHalfUp(costMinor * BigInt(rule.markupBasisPoints), BASIS_POINTS_PER_WHOLE)
  const plus = rule.plusMinor === 0n ? 0n : context.convert(rule.plusMinor, context.baseCurrency, context.currency)
  const price = costMinor + markup + plus
  return rule.priceEnding === null ? price : roundUpToPricePoint(price, rule.priceEnding)
}

/** The rule a list itself gives the product, if any: by SKU, else category, else "*". */
export function ownProductRule(list: PriceList, product: PricedProduct): PriceRule | undefined {
  return (
    list.products.get(productRuleKey('sku', product.sku)) ??
    list.products.get(productRuleKey('category', product.category)) ??
    list.products.get(EVERY_PRODUCT)
  )
}

/** The catalogue's price lists by name, with the default one. */
export class PriceLists {
  readonly #lists = new Map<string, PriceList>()
  /** The list of accounts without one; null: they pay the labs' costs. */
  readonly defaultList: PriceList | null

  /** `skus`: the catalogue's SKUs, lower case: a product key that is one prices that SKU, any other a category. */
  constructor(entries: Readonly<Record<string, PriceListEntry>>, skus: ReadonlySet<string>) {
    const productKey = (key: string) =>
      key === EVERY_PRODUCT ? EVERY_PRODUCT : productRuleKey(skus.has(key.toLowerCase()) ? 'sku' : 'category', key)
    let defaultList: PriceList | null = null
    for (const [name, entry] of Object.entries(entries)) {
      if (name.startsWith('$')) continue
      const rules = (map: Record<string, PriceRuleEntry> | undefined, key: (name: string) => string) =>
        new Map(
          Object.entries(map ?? {})
            .filter(([name]) => !name.startsWith('$'))
            .map(([name, rule]) => [key(name), priceRuleOf(rule)] as const),
        )
      const percentOff = entry.percentOff === undefined ? 0 : parseMarkupToBasisPoints(entry.percentOff)
      if (percentOff === undefined) throw new Error(`catalogue: unvalidated percentOff of ${name}`)
      const list: PriceList = Object.freeze({
        name,
        isDefault: entry.default === true,
        baseName: entry.base ?? null,
        percentOffBasisPoints: percentOff,
        products: rules(entry.products, productKey),
        shipping: rules(entry.shipping, (key) => key),
      })
      this.#lists.set(name, list)
      if (list.isDefault) defaultList = list
    }
    this.defaultList = defaultList
  }

  get names(): string[] {
    return [...this.#lists.keys()]
  }

  get size(): number {
    return this.#lists.size
  }

  find(name: string): PriceList | undefined {
    return this.#lists.get(name)
  }

  /**
   * The list an account's orders and quotes are priced on: its own (`priceList`) when this catalogue has it, else
   * the default list; null: the labs' costs.
   */
  listFor(priceList: string | null | undefined): PriceList | null {
    if (priceList && priceList !== DEFAULT_PRICE_LIST) {
      const own = this.#lists.get(priceList)
      if (own) return own
    }
    return this.defaultList
  }

  /** The selling price of one copy of `product` whose lab cost (one copy, in `context.currency`) is `costMinor`. */
  productPrice(list: PriceList, product: PricedProduct, costMinor: bigint, context: PricingContext): bigint {
    const own = ownProductRule(list, product)
    if (own) return applyRule(own, costMinor, context)
    const base = list.baseName === null ? undefined : this.#lists.get(list.baseName)
    // The checks refuse a list that leaves a product unpriced: this is the cost only for an unchecked list.
    if (!base) return costMinor
    const fromBase = this.productPrice(base, product, costMinor, context)
    const price = discounted(fromBase, list.percentOffBasisPoints)
    // A discount on a cost rule stops at the cost (fixed prices below cost are the catalogue's warning).
    return this.#pricedByCostRule(base, product) && price < costMinor ? costMinor : price
  }

  /** The selling price of a shipment by `method` whose lab shipping cost (in `context.currency`) is `costMinor`. */
  shippingPrice(list: PriceList, method: string, costMinor: bigint, context: PricingContext): bigint {
    const own = list.shipping.get(method) ?? list.shipping.get(EVERY_METHOD)
    if (own) return applyRule(own, costMinor, context)
    const base = list.baseName === null ? undefined : this.#lists.get(list.baseName)
    if (!base) return costMinor
    return this.shippingPrice(base, method, costMinor, context)
  }

  /** The rule the product's price finally comes from, following base lists. */
  ruleOf(list: PriceList, product: PricedProduct): PriceRule | undefined {
    const own = ownProductRule(list, product)
    if (own) return own
    const base = list.baseName === null ? undefined : this.#lists.get(list.baseName)
    return base && this.ruleOf(base, product)
  }

  /** The rule a shipping method's price finally comes from, following base lists. */
  shippingRuleOf(list: PriceList, method: string): PriceRule | undefined {
    const own = list.shipping.get(method) ?? list.shipping.get(EVERY_METHOD)
    if (own) return own
    const base = list.baseName === null ? undefined : this.#lists.get(list.baseName)
    return base && this.shippingRuleOf(base, method)
  }

  #pricedByCostRule(list: PriceList, product: PricedProduct): boolean {
    return this.ruleOf(list, product)?.kind === 'cost'
  }
}

/** What the load-time warnings compare a list's fixed prices with. */
export interface WarningFacts {
  products: readonly Product[]
  labs: readonly Lab[]
  baseCurrency: string
  convert(minor: bigint, from: string, to: string): bigint
}

/**
 * The catalogue's warnings about its price lists: each product a list sells (at a fixed price, or a fixed price
 * less a discount) below the cost of a lab that makes it, named with the lab; and each shipping method a list
 * prices at a fixed price below what a lab's rate for it charges for a one-parcel shipment to a zone (its dearest
 * shipping class). Compared in the base currency. Cost rules never sell below cost, so only fixed prices are
 * looked at.
 */
export function priceListWarnings(lists: PriceLists, catalogue: WarningFacts): string[] {
  const warnings: string[] = []
  for (const name of lists.names) {
    const list = lists.find(name) as PriceList
    warnings.push(...productWarnings(lists, list, catalogue), ...shippingWarnings(lists, list, catalogue))
  }
  return warnings
}

function baseContext(catalogue: WarningFacts): PricingContext {
  return { currency: catalogue.baseCurrency, baseCurrency: catalogue.baseCurrency, convert: catalogue.convert }
}

function productWarnings(lists: PriceLists, list: PriceList, catalogue: WarningFacts): string[] {
  const warnings: string[] = []
  const context = baseContext(catalogue)
  const money = (minor: bigint) => `${catalogue.baseCurrency} ${formatMinorAsAmount(minor)}`
  for (const product of catalogue.products) {
    if (lists.ruleOf(list, product)?.kind !== 'fixed') continue
    // Per lab, its dearest variant of the product.
    const costOfLab = new Map<string, bigint>()
    for (const variant of product.variants) {
      for (const offer of variant.offers) {
        const cost = catalogue.convert(offer.unitCost.minor, offer.unitCost.currency, catalogue.baseCurrency)
        const known = costOfLab.get(offer.lab.code)
        if (known === undefined || cost > known) costOfLab.set(offer.lab.code, cost)
      }
    }
    for (const [labCode, cost] of [...costOfLab].sort(([a], [b]) => a.localeCompare(b))) {
      const price = lists.productPrice(list, product, cost, context)
      if (price >= cost) continue
      warnings.push(
        `priceLists.${list.name}: ${product.sku} sells at ${money(price)}, below lab ${labCode}'s cost ${money(cost)}`,
      )
    }
  }
  return warnings
}

/**
 * A fixed shipping price is the price of a shipment's shipping whatever it holds: it is compared with one parcel of
 * the rate's dearest class (perShipment), per lab and destination zone. Bigger shipments cost the lab more still.
 */
function shippingWarnings(lists: PriceLists, list: PriceList, catalogue: WarningFacts): string[] {
  const warnings: string[] = []
  const context = baseContext(catalogue)
  const money = (minor: bigint) => `${catalogue.baseCurrency} ${formatMinorAsAmount(minor)}`
  const rates = catalogue.labs
    .flatMap((lab) => lab.shippingRates)
    .sort((a, b) => a.labCode.localeCompare(b.labCode) || a.zone.localeCompare(b.zone))
  for (const method of SHIPPING_METHODS) {
    const rule = lists.shippingRuleOf(list, method)
    if (rule?.kind !== 'fixed') continue
    const price = applyRule(rule, 0n, context)
    for (const rate of rates) {
      if (rate.method !== method) continue
      let dearest: { shippingClass: string; cost: bigint } | undefined
      for (const [shippingClass, cost] of Object.entries(rate.costs)) {
        const minor = catalogue.convert(cost.perShipment.minor, cost.perShipment.currency, catalogue.baseCurrency)
        if (dearest === undefined || minor > dearest.cost) dearest = { shippingClass, cost: minor }
      }
      if (dearest === undefined || price >= dearest.cost) continue
      warnings.push(
        `priceLists.${list.name}: ${method} shipping sells at ${money(price)}, below lab ${rate.labCode}'s cost ` +
          `to zone ${rate.zone} ${money(dearest.cost)} (one ${dearest.shippingClass} parcel)`,
      )
    }
  }
  return warnings
}

/** An account whose own price list a catalogue (version) does not have, and what prices it there instead. */
export interface PriceListFallback {
  /** `acc_N`. */
  accountId: string
  /** The account's list, which the catalogue does not have. */
  priceList: string
  /** The catalogue's default list the account falls back to; null: none, so it pays the labs' costs. */
  fallsBackTo: string | null
}

/**
 * The accounts (each with its own list, never "default") whose list `lists` does not have, by account id;
 * `only`: just these lists' accounts (those a change of catalogue takes away).
 */
export function priceListFallbacks(
  lists: PriceLists,
  accounts: readonly { accountId: string; priceList: string | null }[],
  only?: ReadonlySet<string>,
): PriceListFallback[] {
  const fallsBackTo = lists.defaultList?.name ?? null
  return accounts
    .filter(
      (account): account is { accountId: string; priceList: string } =>
        account.priceList !== null &&
        account.priceList !== DEFAULT_PRICE_LIST &&
        lists.find(account.priceList) === undefined &&
        (only === undefined || only.has(account.priceList)),
    )
    .map(({ accountId, priceList }) => ({ accountId, priceList, fallsBackTo }))
}

/**
 * One warning per missing list, naming its accounts and what prices them instead:
 * `accounts acc_3, acc_7 buy on price list "gold", which catalogue version 4 does not have: they fall back to the
 * default list "retail"` (or `...: nor a default list, so they pay the labs' costs`).
 */
export function priceListFallbackWarnings(fallbacks: readonly PriceListFallback[], versionText: string): string[] {
  const byList = new Map<string, PriceListFallback[]>()
  for (const fallback of fallbacks)
    byList.set(fallback.priceList, [...(byList.get(fallback.priceList) ?? []), fallback])
  return [...byList].map(([name, accounts]) => {
    const fallsBackTo = accounts[0]?.fallsBackTo ?? null
    const one = accounts.length === 1
    const who = `${one ? 'account' : 'accounts'} ${accounts.map((account) => account.accountId).join(', ')}`
    const they = one ? 'it' : 'they'
    const instead =
      fallsBackTo === null
        ? `nor a default list, so ${they} ${one ? 'pays' : 'pay'} the labs' costs`
        : `${they} ${one ? 'falls' : 'fall'} back to the default list "${fallsBackTo}"`
    return `${who} ${one ? 'buys' : 'buy'} on price list "${name}", which ${versionText} does not have: ${instead}`
  })
}
