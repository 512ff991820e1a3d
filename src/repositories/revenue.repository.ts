// SQL of the operator's revenue and margin (docs/billing.md#revenue-and-margin): reads only. Live documents
// (invoices, migrations/0020_invoices.sql) issued in a range, Live hand-offs (shipment_costs,
// migrations/0032_shipment_costs.sql) made in it, what the lab and product groupings need to know of those
// orders' shipments, and one order's hand-offs. Every listing is bounded: it reads at most `limit` rows, and the
// caller asks for one more than it takes to tell a range that holds more (docs/billing.md says the bounds).
import type { Queryable } from '../adapters/database.ts'
import type { RevenueCharge, RevenueChargeLine, RevenueCost, ShipmentAttribution } from '../domain/revenue.ts'

/** A range of instants, [from, to). */
export interface InstantRange {
  from: Date
  to: Date
}

interface StoredDocument {
  kind: RevenueCharge['kind']
  accountId: string | number
  orderNumber: string | number
  issuedAt: Date | string
  currency: string
  content: string
}

interface StoredLine {
  kind?: unknown
  sku?: unknown
  shipmentId?: unknown
  cost?: unknown
}

/** The lines of a stored document's content (invoices.content), as revenue reads them. */
export function revenueLinesOf(content: string): RevenueChargeLine[] {
  const parsed = JSON.parse(content) as { lines?: StoredLine[] }
  return (parsed.lines ?? []).map((line) => ({
    kind: line.kind === 'Shipping' || line.kind === 'Duties' ? line.kind : 'Item',
    sku: typeof line.sku === 'string' ? line.sku : null,
    shipmentId: String(line.shipmentId),
    costMinor: BigInt(String(line.cost)),
  }))
}

/** Live invoices and credit notes issued in the range, in issue order, at most `limit`. */
export async function listLiveDocumentsIssued(
  db: Queryable,
  range: InstantRange,
  limit: number,
): Promise<RevenueCharge[]> {
  const rows = await db.query<StoredDocument>(
    `SELECT kind, account_id AS "accountId", order_id AS "orderNumber", issued_at AS "issuedAt", currency, content
       FROM invoices
      WHERE environment = 'live' AND issued_at >= $1 AND issued_at < $2
      ORDER BY issue_order
      LIMIT $3`,
    [range.from, range.to, limit],
  )
  return rows.map((row) => ({
    kind: row.kind,
    accountId: Number(row.accountId),
    orderNumber: Number(row.orderNumber),
    issuedAt: new Date(row.issuedAt),
    currency: row.currency,
    lines: revenueLinesOf(row.content),
  }))
}

interface StoredCost {
  accountId: string | number
  orderNumber: string | number
  shipmentNumber: string | number
  labCode: string
  kind: RevenueCost['kind']
  handedAt: Date | string
  outcome: RevenueCost['outcome']
  priceCurrency: string
  priceItemsMinor: string
  priceShippingMinor: string
  costMinor: string
}

const COST_COLUMNS = `account_id AS "accountId", order_id AS "orderNumber", shipment_id AS "shipmentNumber",
  lab_code AS "labCode", kind, handed_at AS "handedAt", outcome, price_currency AS "priceCurrency",
  price_items_minor::text AS "priceItemsMinor", price_shipping_minor::text AS "priceShippingMinor",
  cost_in_price_currency_minor::text AS "costMinor"`

function toCost(row: StoredCost): RevenueCost {
  return {
    accountId: Number(row.accountId),
    orderNumber: Number(row.orderNumber),
    shipmentId: `shp_${row.shipmentNumber}`,
    labCode: row.labCode,
    kind: row.kind,
    handedAt: new Date(row.handedAt),
    outcome: row.outcome,
    priceCurrency: row.priceCurrency,
    priceItemsMinor: BigInt(row.priceItemsMinor),
    priceShippingMinor: BigInt(row.priceShippingMinor),
    costInPriceCurrencyMinor: BigInt(row.costMinor),
  }
}

/** Live hand-offs made in the range, oldest first, at most `limit`. */
export async function listLiveHandoffs(db: Queryable, range: InstantRange, limit: number): Promise<RevenueCost[]> {
  const rows = await db.query<StoredCost>(
    `SELECT ${COST_COLUMNS}
       FROM shipment_costs
      WHERE environment = 'live' AND handed_at >= $1 AND handed_at < $2
      ORDER BY handed_at, id
      LIMIT $3`,
    [range.from, range.to, limit],
  )
  return rows.map(toCost)
}

/** One order's hand-offs (either environment), oldest first. */
export async function listOrderHandoffs(db: Queryable, orderNumber: number): Promise<RevenueCost[]> {
  const rows = await db.query<StoredCost>(
    `SELECT ${COST_COLUMNS} FROM shipment_costs WHERE order_id = $1 ORDER BY handed_at, id`,
    [orderNumber],
  )
  return rows.map(toCost)
}

/** The Live orders with a document or a hand-off in the range (a subquery over $1 and $2). */
const ORDERS_IN_RANGE = `SELECT order_id FROM invoices
                          WHERE environment = 'live' AND issued_at >= $1 AND issued_at < $2
                         UNION
                         SELECT order_id FROM shipment_costs
                          WHERE environment = 'live' AND handed_at >= $1 AND handed_at < $2`

/**
 * What the lab and product groupings need of the shipments of the orders in the range, whenever it was recorded:
 * each shipment's latest hand-off's lab, and the SKUs of its item lines over all of its order's documents. At
 * most `limit` rows of each are read; `complete` is false when either held more.
 */
export async function shipmentAttribution(
  db: Queryable,
  range: InstantRange,
  limit: number,
): Promise<{ attribution: ShipmentAttribution; complete: boolean }> {
  const handoffs = await db.query<{ shipmentNumber: string | number; labCode: string }>(
    `SELECT shipment_id AS "shipmentNumber", lab_code AS "labCode"
       FROM shipment_costs
      WHERE environment = 'live' AND order_id IN (${ORDERS_IN_RANGE})
      ORDER BY handed_at, id
      LIMIT $3`,
    [range.from, range.to, limit + 1],
  )
  const documents = await db.query<{ content: string }>(
    `SELECT content FROM invoices WHERE environment = 'live' AND order_id IN (${ORDERS_IN_RANGE})
      ORDER BY issue_order LIMIT $3`,
    [range.from, range.to, limit + 1],
  )
  const labOf = new Map<string, string>()
  // Oldest first: the latest hand-off of a shipment is the one written last.
  for (const row of handoffs.slice(0, limit)) labOf.set(`shp_${row.shipmentNumber}`, row.labCode)
  const skusOf = new Map<string, Set<string>>()
  for (const document of documents.slice(0, limit)) {
    for (const line of revenueLinesOf(document.content)) {
      if (line.kind !== 'Item' || line.sku === null) continue
      const skus = skusOf.get(line.shipmentId) ?? new Set<string>()
      skus.add(line.sku)
      skusOf.set(line.shipmentId, skus)
    }
  }
  return { attribution: { labOf, skusOf }, complete: handoffs.length <= limit && documents.length <= limit }
}
