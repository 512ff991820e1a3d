// Public IDs are a three-letter prefix, an underscore and a decimal number (specification, "ID format").
// The numbers come from one PostgreSQL sequence per prefix, so they increase with creation and list order
// equals ID order (docs/wire-contract.md#identifiers).

export const ID_PREFIXES = {
  account: 'acc',
  order: 'ord',
  orderItem: 'ori',
  asset: 'ast',
  shipment: 'shp',
  charge: 'chg',
  chargeItem: 'chi',
  event: 'evt',
  /** A delivery of an event to a callback URL. */
  callbackDelivery: 'cbd',
  /** A stored, price-locked quote (one per shipping method of a quote answer). */
  quote: 'quo',
} as const
export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES]

export function formatId(prefix: IdPrefix, value: number): string {
  return `${prefix}_${value}`
}

/** The number inside an ID of the given prefix (prefix matched case-insensitively), or undefined. */
export function parseId(prefix: IdPrefix, id: string): number | undefined {
  if (id.length <= prefix.length + 1 || id[prefix.length] !== '_') return undefined
  if (id.slice(0, prefix.length).toLowerCase() !== prefix) return undefined
  const digits = id.slice(prefix.length + 1)
  if (!/^\d{1,15}$/.test(digits)) return undefined
  const value = Number(digits)
  return value > 0 ? value : undefined
}
