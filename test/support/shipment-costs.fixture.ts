// Hand-offs of shipments to labs (shipment_costs, migrations/0032_shipment_costs.sql) written straight into the
// table, for the revenue tests: the recording at hand-off is the pipeline's, tested on its own.
import { randomUUID } from 'node:crypto'
import type { Queryable } from '../../src/adapters/database.ts'
import type { RevenueCost } from '../../src/domain/revenue.ts'

export interface HandoffFixture extends Partial<Omit<RevenueCost, 'accountId' | 'orderNumber' | 'shipmentId'>> {
  accountId: number
  orderNumber: number
  /** `shp_N` */
  shipmentId: string
  environment?: 'live' | 'sandbox'
  labCurrency?: string
}

/** Writes one hand-off; what is not given is a Shipped original hand-off at LAB-A, 10.00 + 5.00 priced, 9.00 cost. */
export async function insertHandoff(db: Queryable, row: HandoffFixture): Promise<void> {
  const cost = row.costInPriceCurrencyMinor ?? 900n
  await db.query(
    `INSERT INTO shipment_costs (handoff_key, shipment_id, order_id, account_id, environment, lab_code, kind, handed_at,
       lab_currency, production_cost_minor, shipping_cost_minor, price_currency, price_items_minor,
       price_shipping_minor, cost_in_price_currency_minor, outcome)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::bigint, $11::bigint, $12, $13::bigint, $14::bigint, $15::bigint, $16)`,
    [
      `fixture-${randomUUID()}`,
      Number(row.shipmentId.replace(/^shp_/, '')),
      row.orderNumber,
      row.accountId,
      row.environment ?? 'live',
      row.labCode ?? 'LAB-A',
      row.kind ?? 'Original',
      row.handedAt ?? new Date('2026-03-01T09:30:00Z'),
      row.labCurrency ?? row.priceCurrency ?? 'GBP',
      String(cost),
      '0',
      row.priceCurrency ?? 'GBP',
      String(row.priceItemsMinor ?? 1000n),
      String(row.priceShippingMinor ?? 500n),
      String(cost),
      row.outcome ?? 'Shipped',
    ],
  )
}
