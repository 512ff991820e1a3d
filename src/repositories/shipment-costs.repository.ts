// SQL of what shipments cost at their labs (migrations/0032_shipment_costs.sql) and of the labs' payables
// statements that settle them (migrations/0033_lab_statements.sql): a hand-off's row, its outcome, the month's
// settled rows of a lab, and the statements with their gapless per-lab counters.
import type { Queryable } from '../adapters/database.ts'
import type {
  LabStatementContent,
  LabStatementSummary,
  NewShipmentCost,
  ShipmentCostKind,
  ShipmentCostOutcome,
  ShipmentCostRow,
} from '../domain/lab-statements.ts'

/** Records a hand-off once: the same `handoffKey` again (a retried job) adds nothing. Whether it added the row. */
export async function insertShipmentCost(tx: Queryable, cost: NewShipmentCost): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO shipment_costs (handoff_key, shipment_id, order_id, account_id, environment, lab_code, kind,
                                 handed_at, catalogue_version, lab_currency, production_cost_minor,
                                 shipping_cost_minor, price_currency, price_items_minor, price_shipping_minor,
                                 cost_in_price_currency_minor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::bigint, $12::bigint, $13, $14::bigint, $15::bigint,
             $16::bigint)
     ON CONFLICT (handoff_key) DO NOTHING
     RETURNING id`,
    [
      cost.handoffKey,
      cost.shipmentNumber,
      cost.orderNumber,
      cost.accountId,
      cost.environment,
      cost.labCode,
      cost.kind,
      cost.handedAt,
      cost.catalogueVersion,
      cost.labCurrency,
      String(cost.productionCostMinor),
      String(cost.shippingCostMinor),
      cost.priceCurrency,
      String(cost.priceItemsMinor),
      String(cost.priceShippingMinor),
      String(cost.costInPriceCurrencyMinor),
    ],
  )
  return rows.length > 0
}

/** Settles the open hand-offs of a shipment with its outcome; the rows changed. */
export async function settleShipmentCosts(
  tx: Queryable,
  shipmentNumber: number,
  outcome: Exclude<ShipmentCostOutcome, 'Open'>,
  at: Date,
): Promise<number> {
  const rows = await tx.query(
    `UPDATE shipment_costs SET outcome = $2, outcome_at = $3
     WHERE shipment_id = $1 AND outcome = 'Open' RETURNING id`,
    [shipmentNumber, outcome, at],
  )
  return rows.length
}

interface StoredCost {
  shipmentId: string | number
  orderId: string | number
  kind: ShipmentCostKind
  handedAt: Date | string
  labCurrency: string
  production: string | number
  shipping: string | number
  outcome: ShipmentCostOutcome
  outcomeAt: Date | string | null
}

const COST_COLUMNS = `shipment_id AS "shipmentId", order_id AS "orderId", kind, handed_at AS "handedAt",
  lab_currency AS "labCurrency", production_cost_minor::text AS production, shipping_cost_minor::text AS shipping,
  outcome, outcome_at AS "outcomeAt"`

function costRowOf(row: StoredCost): ShipmentCostRow {
  return {
    shipmentNumber: Number(row.shipmentId),
    orderNumber: Number(row.orderId),
    kind: row.kind,
    handedAt: new Date(row.handedAt),
    labCurrency: row.labCurrency,
    productionCostMinor: BigInt(row.production),
    shippingCostMinor: BigInt(row.shipping),
    outcome: row.outcome,
    outcomeAt: row.outcomeAt === null ? null : new Date(row.outcomeAt),
  }
}

/** A lab's Live hand-offs settled in [from, to) and not on a statement yet, oldest first. */
export async function listSettledCosts(
  db: Queryable,
  labCode: string,
  range: { from: Date; to: Date },
): Promise<ShipmentCostRow[]> {
  const rows = await db.query<StoredCost>(
    `SELECT ${COST_COLUMNS} FROM shipment_costs
     WHERE lab_code = $1 AND environment = 'live' AND outcome <> 'Open' AND outcome_at >= $2 AND outcome_at < $3
       AND statement_number IS NULL
     ORDER BY outcome_at, id`,
    [labCode, range.from, range.to],
  )
  return rows.map(costRowOf)
}

/**
 * The labs with Live work settled in [from, to) (shipped, cancelled or rejected) and not on a statement yet, by
 * code: a month of only cancelled work gets its statement too, or its rows would stay unsettled for good.
 */
export async function labsWithSettledWork(db: Queryable, range: { from: Date; to: Date }): Promise<string[]> {
  const rows = await db.query<{ labCode: string }>(
    `SELECT DISTINCT lab_code AS "labCode" FROM shipment_costs
     WHERE environment = 'live' AND outcome <> 'Open' AND outcome_at >= $1 AND outcome_at < $2
       AND statement_number IS NULL
     ORDER BY lab_code`,
    [range.from, range.to],
  )
  return rows.map((row) => row.labCode)
}

/**
 * Locks the lab's statement counter for the caller's transaction, making it on the lab's first statement: every
 * issue for the lab waits here for the one before it to commit or roll back.
 */
export async function lockLabStatementCounter(tx: Queryable, labCode: string): Promise<void> {
  await tx.query(
    'INSERT INTO lab_statement_counters (lab_code, last) VALUES ($1, 0) ON CONFLICT (lab_code) DO NOTHING',
    [labCode],
  )
  await tx.query('SELECT last FROM lab_statement_counters WHERE lab_code = $1 FOR UPDATE', [labCode])
}

/** The lab's next statement number, counted in the caller's transaction (a rollback gives it back). */
export async function drawLabStatementSequence(tx: Queryable, labCode: string): Promise<number> {
  const rows = await tx.query<{ last: string | number }>(
    'UPDATE lab_statement_counters SET last = last + 1 WHERE lab_code = $1 RETURNING last',
    [labCode],
  )
  const row = rows[0]
  if (!row) throw new Error(`no statement counter for lab ${labCode}`)
  return Number(row.last)
}

/** Writes a statement and marks the rows it settles with its number. */
export async function insertLabStatement(
  tx: Queryable,
  statement: { sequence: number; shipmentNumbers: readonly number[]; content: LabStatementContent },
): Promise<void> {
  const { content } = statement
  await tx.query(
    `INSERT INTO lab_statements (number, lab_code, sequence, month, issued_at, shipment_count, content)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      content.number,
      content.labCode,
      statement.sequence,
      content.month,
      new Date(content.issuedAt),
      statement.shipmentNumbers.length,
      JSON.stringify(content),
    ],
  )
  if (statement.shipmentNumbers.length === 0) return
  await tx.query(
    `UPDATE shipment_costs SET statement_number = $1
     WHERE lab_code = $2 AND environment = 'live' AND statement_number IS NULL AND shipment_id = ANY($3::bigint[])
       AND outcome <> 'Open'`,
    [content.number, content.labCode, statement.shipmentNumbers.map(String)],
  )
}

interface StoredStatement {
  number: string
  labCode: string
  month: string
  issuedAt: Date | string
  shipmentCount: number | string
  content: string
}

const STATEMENT_COLUMNS = `number, lab_code AS "labCode", month, issued_at AS "issuedAt",
  shipment_count AS "shipmentCount", content`

function summaryOf(row: StoredStatement): LabStatementSummary {
  const content = JSON.parse(row.content) as LabStatementContent
  return {
    number: row.number,
    labCode: row.labCode,
    month: row.month,
    issuedAt: new Date(row.issuedAt),
    shipmentCount: Number(row.shipmentCount),
    totals: content.totals,
  }
}

/** A lab's statement of a month, if issued. */
export async function findLabStatementOfMonth(
  db: Queryable,
  labCode: string,
  month: string,
): Promise<LabStatementContent | undefined> {
  const rows = await db.query<{ content: string }>(
    'SELECT content FROM lab_statements WHERE lab_code = $1 AND month = $2',
    [labCode, month],
  )
  return rows[0] ? (JSON.parse(rows[0].content) as LabStatementContent) : undefined
}

/** A statement by number; with `labCode`, only that lab's. */
export async function readLabStatement(
  db: Queryable,
  number: string,
  labCode?: string,
): Promise<LabStatementContent | undefined> {
  const rows = await db.query<{ content: string }>(
    `SELECT content FROM lab_statements WHERE number = $1 ${labCode === undefined ? '' : 'AND lab_code = $2'}`,
    labCode === undefined ? [number] : [number, labCode],
  )
  return rows[0] ? (JSON.parse(rows[0].content) as LabStatementContent) : undefined
}

/** A lab's statements, newest month first. */
export async function listLabStatements(db: Queryable, labCode: string, limit = 240): Promise<LabStatementSummary[]> {
  const rows = await db.query<StoredStatement>(
    `SELECT ${STATEMENT_COLUMNS} FROM lab_statements WHERE lab_code = $1 ORDER BY month DESC, sequence DESC LIMIT $2`,
    [labCode, limit],
  )
  return rows.map(summaryOf)
}
