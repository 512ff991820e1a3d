// The checks of a catalogue's price lists (docs/billing.md#price-lists) that its JSON Schema cannot make, run by
// catalogue.validation.ts after the products and labs are read: names that refer to something (a product's SKU
// or category, a shipping method, a currency, a base list), one default list, every product and shipping method
// priced, and no discount that takes a cost rule below the lab's cost. A fixed price below a lab's cost is allowed
// (a loss leader) and only warned about (domain/price-lists.ts `priceListWarnings`).
import type { PriceListEntry, PriceRuleEntry, ProductEntry } from '../domain/catalogue.types.ts'
import {
  EVERY_METHOD,
  EVERY_PRODUCT,
  type PriceRule,
  parseMarkupToBasisPoints,
  priceRuleOf,
} from '../domain/price-lists.ts'
import { SHIPPING_METHODS } from '../domain/shipping-methods.ts'

/** How many unpriced products one problem line lists before summarising the rest. */
const MAX_UNPRICED_LISTED = 5

type JsonObject = Record<string, unknown>

export interface PriceListProblems {
  add(path: string, reason: string): void
  under(path: string): boolean
}

export interface PriceListFacts {
  products: readonly ProductEntry[]
  /** Currencies with a rate. */
  currencies: ReadonlySet<string>
  baseCurrency: string
  /** The shipping methods some lab's rates offer. */
  methods: readonly string[]
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function entriesOf(value: unknown): [string, unknown][] {
  if (!isJsonObject(value)) return []
  return Object.entries(value).filter(([key]) => !key.startsWith('$'))
}

function findName(names: Iterable<string>, given: string): string | undefined {
  const lower = given.toLowerCase()
  for (const name of names) if (name.toLowerCase() === lower) return name
  return undefined
}

/**
 * Checks `priceLists` (already well formed by the schema: only its own problems' paths are skipped) and returns
 * it canonical: SKUs, categories and methods in the catalogue's spelling, `$` fields dropped. Undefined when the
 * file has none.
 */
export function checkPriceLists(
  value: unknown,
  facts: PriceListFacts,
  problems: PriceListProblems,
): Record<string, PriceListEntry> | undefined {
  if (value === undefined) return undefined
  const lists = entriesOf(value)
  const names = lists.map(([name]) => name)
  const canonical: Record<string, PriceListEntry> = {}
  for (const [name, entry] of lists) {
    const path = `priceLists.${name}`
    if (!isJsonObject(entry) || problems.under(path)) continue
    canonical[name] = checkList(entry as PriceListEntry, { names, facts, problems, path })
  }
  const defaults = lists.filter(([, entry]) => isJsonObject(entry) && entry.default === true).map(([name]) => name)
  if (defaults.length > 1) {
    for (const name of defaults.slice(1)) {
      problems.add(`priceLists.${name}.default`, `only one list may be the default (${defaults[0]} is)`)
    }
  }
  for (const [name] of lists) checkBaseChain(name, value as Record<string, PriceListEntry>, problems)
  for (const [name, entry] of Object.entries(canonical)) checkDiscount(name, entry, canonical, facts, problems)
  return canonical
}

interface ListContext {
  names: readonly string[]
  facts: PriceListFacts
  problems: PriceListProblems
  path: string
}

function checkList(entry: PriceListEntry, context: ListContext): PriceListEntry {
  const { facts, problems, path } = context
  const checked: PriceListEntry = {}
  if (entry.default === true) checked.default = true
  if (entry.base !== undefined) {
    if (!context.names.includes(entry.base)) {
      problems.add(`${path}.base`, `unknown price list "${entry.base}" (lists: ${context.names.join(', ')})`)
    }
    checked.base = entry.base
  }
  if (entry.percentOff !== undefined) {
    if (entry.base === undefined) problems.add(`${path}.percentOff`, 'needs a base list to take it off')
    const basisPoints = parseMarkupToBasisPoints(entry.percentOff) ?? 0
    if (basisPoints >= 10_000) problems.add(`${path}.percentOff`, 'must be below 100')
    checked.percentOff = entry.percentOff
  }
  const skus = new Map(facts.products.map((product) => [product.sku.toLowerCase(), product.sku]))
  const categories = [...new Set(facts.products.map((product) => product.category))]
  const products: Record<string, PriceRuleEntry> = {}
  for (const [key, rule] of entriesOf(entry.products)) {
    const rulePath = `${path}.products.${key}`
    const spelled =
      key === EVERY_PRODUCT ? key : (skus.get(key.toLowerCase()) ?? findName(categories, key) ?? undefined)
    if (spelled === undefined) {
      problems.add(rulePath, `"${key}" is not a SKU or product category of this catalogue, nor "*"`)
      continue
    }
    const checkedRule = checkRule(rule as PriceRuleEntry, rulePath, facts, problems)
    if (checkedRule) products[spelled] = checkedRule
  }
  const shipping: Record<string, PriceRuleEntry> = {}
  for (const [key, rule] of entriesOf(entry.shipping)) {
    const rulePath = `${path}.shipping.${key}`
    const spelled = key === EVERY_METHOD ? key : findName(SHIPPING_METHODS, key)
    if (spelled === undefined) {
      problems.add(rulePath, `"${key}" is not a shipping method (${SHIPPING_METHODS.join(', ')}) nor "*"`)
      continue
    }
    const checkedRule = checkRule(rule as PriceRuleEntry, rulePath, facts, problems)
    if (checkedRule) shipping[spelled] = checkedRule
  }
  if (entry.products !== undefined) checked.products = products
  if (entry.shipping !== undefined) checked.shipping = shipping
  // Coverage counts the rules written, sound or not: a refused rule is reported once, not again as a gap.
  if (entry.base === undefined) checkCoverage(entry, facts, problems, path)
  return checked
}

/** A rule: fixed prices alone, in known currencies, the base one among them; or a cost rule. */
function checkRule(
  rule: PriceRuleEntry,
  path: string,
  facts: PriceListFacts,
  problems: PriceListProblems,
): PriceRuleEntry | undefined {
  if (problems.under(path)) return undefined
  if (rule.prices !== undefined) {
    const others = (['markupPercent', 'plus', 'roundUpTo'] as const).filter((field) => rule[field] !== undefined)
    if (others.length > 0) {
      problems.add(path, `fixed prices cannot be combined with ${others.join(', ')}`)
      return undefined
    }
    const prices: Record<string, string> = {}
    let sound = true
    for (const [currency, amount] of entriesOf(rule.prices)) {
      if (!facts.currencies.has(currency)) {
        problems.add(
          `${path}.prices.${currency}`,
          `unknown currency (the catalogue's: ${[...facts.currencies].join(', ')})`,
        )
        sound = false
      }
      prices[currency] = amount as string
    }
    if (prices[facts.baseCurrency] === undefined) {
      problems.add(
        `${path}.prices`,
        `must give a ${facts.baseCurrency} price (the base currency: others convert from it)`,
      )
      sound = false
    }
    return sound ? { prices } : undefined
  }
  const checked: PriceRuleEntry = {}
  if (rule.markupPercent !== undefined) checked.markupPercent = rule.markupPercent
  if (rule.plus !== undefined) checked.plus = rule.plus
  if (rule.roundUpTo !== undefined) checked.roundUpTo = rule.roundUpTo
  return checked
}

/** A list of its own (no base) prices every product and every shipping method a lab offers. */
function checkCoverage(list: PriceListEntry, facts: PriceListFacts, problems: PriceListProblems, path: string): void {
  const products = Object.fromEntries(entriesOf(list.products)) as Record<string, PriceRuleEntry>
  if (products[EVERY_PRODUCT] === undefined) {
    const keys = new Set(Object.keys(products).map((key) => key.toLowerCase()))
    const unpriced = facts.products
      .filter((product) => !keys.has(product.sku.toLowerCase()) && !keys.has(product.category.toLowerCase()))
      .map((product) => product.sku)
    if (unpriced.length > 0) {
      const listed = unpriced.slice(0, MAX_UNPRICED_LISTED).join(', ')
      const more = unpriced.length > MAX_UNPRICED_LISTED ? ` and ${unpriced.length - MAX_UNPRICED_LISTED} more` : ''
      problems.add(
        `${path}.products`,
        `leaves ${unpriced.length} product(s) unpriced: ${listed}${more} (give a rule for their SKU, category or "*")`,
      )
    }
  }
  const written = entriesOf(list.shipping).map(([key]) => key.toLowerCase())
  if (!written.includes(EVERY_METHOD)) {
    const unpriced = facts.methods.filter((method) => !written.includes(method.toLowerCase()))
    if (unpriced.length > 0) {
      problems.add(`${path}.shipping`, `leaves ${unpriced.join(', ')} unpriced (give a rule for the method or "*")`)
    }
  }
}

/** A list's bases must end: one that leads back to itself is refused. */
function checkBaseChain(name: string, lists: Record<string, PriceListEntry>, problems: PriceListProblems): void {
  const seen = new Set<string>([name])
  let current = lists[name]?.base
  while (current !== undefined && lists[current] !== undefined) {
    if (seen.has(current)) {
      problems.add(
        `priceLists.${name}.base`,
        `"${lists[name]?.base}" leads back to ${name}: bases must end in a list of its own`,
      )
      return
    }
    seen.add(current)
    current = lists[current]?.base
  }
}

/**
 * A discount must not take a cost rule of the base below the cost: (100% + markup) x (100% - percentOff) must be
 * at least 100%. (A fixed price below cost is only a warning: it is the operator's decision, once, for a product.)
 */
function checkDiscount(
  name: string,
  list: PriceListEntry,
  lists: Record<string, PriceListEntry>,
  facts: PriceListFacts,
  problems: PriceListProblems,
): void {
  if (list.base === undefined || list.percentOff === undefined) return
  const off = parseMarkupToBasisPoints(list.percentOff)
  if (off === undefined || off >= 10_000) return
  const reported = new Set<string>()
  const own = list.products ?? {}
  for (const product of facts.products) {
    if ([product.sku, product.category, EVERY_PRODUCT].some((key) => own[key] !== undefined)) continue
    const found = baseRuleOf(list, product, lists)
    if (found === undefined || found.rule.kind !== 'cost' || reported.has(found.where)) continue
    if (BigInt(10_000 + found.rule.markupBasisPoints) * BigInt(10_000 - off) >= 100_000_000n) continue
    reported.add(found.where)
    problems.add(
      `priceLists.${name}.percentOff`,
      `${list.percentOff}% off takes ${found.where} (cost + ${Number(found.rule.markupBasisPoints) / 100}%) ` +
        'below the lab cost',
    )
  }
}

/** The base list's rule a derived list's product price comes from, and where it is written. */
function baseRuleOf(
  list: PriceListEntry,
  product: ProductEntry,
  lists: Record<string, PriceListEntry>,
): { rule: PriceRule; where: string } | undefined {
  const seen = new Set<string>()
  let current = list.base
  while (current !== undefined && !seen.has(current)) {
    seen.add(current)
    const base = lists[current]
    if (!base) return undefined
    const products = base.products ?? {}
    const key = [product.sku, product.category, EVERY_PRODUCT].find((candidate) => products[candidate] !== undefined)
    const entry = key === undefined ? undefined : products[key]
    if (entry && key !== undefined) {
      try {
        return { rule: priceRuleOf(entry), where: `${current}'s rule for "${key}"` }
      } catch {
        return undefined
      }
    }
    current = base.base
  }
  return undefined
}
