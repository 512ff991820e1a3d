// SQL for CSV order imports (migrations/0042_order_imports.sql): an import written by POST /v4.0/orders/imports,
// its rows' results and counts written by the run-order-import job, both read scoped to the caller's account and
// environment.
import type { Queryable } from '../adapters/database.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { ImportApprovalMode } from '../domain/approval.ts'
import type {
  ImportFileFailure,
  ImportRowFailure,
  ImportRowOutcome,
  ImportRowResult,
  OrderImportStatus,
} from '../domain/order-imports.ts'

export interface OrderImportCounts {
  rowsRead: number
  ordersCreated: number
  rowsFailed: number
  duplicatesSkipped: number
}

export interface StoredOrderImport extends OrderImportCounts {
  id: number
  accountId: number
  environment: AccountScope['environment']
  /** The uploading caller as JSON text (the service reads it). */
  caller: string
  fileName: string | null
  bytes: number
  rowsExpected: number
  blobKey: string | null
  status: OrderImportStatus
  failure: ImportFileFailure | null
  /** manual: the orders are created as drafts (migration 0044). */
  approval: ImportApprovalMode
  createdAt: Date
  finishedAt: Date | null
}

interface ImportRow {
  id: number | string
  account_id: number | string
  environment: AccountScope['environment']
  caller: string
  file_name: string | null
  bytes: number | string
  rows_expected: number | string
  blob_key: string | null
  status: OrderImportStatus
  rows_read: number | string
  orders_created: number | string
  rows_failed: number | string
  duplicates_skipped: number | string
  failure: string | null
  approval: ImportApprovalMode
  created_at: Date | string
  finished_at: Date | string | null
}

const COLUMNS =
  'id, account_id, environment, caller, file_name, bytes, rows_expected, blob_key, status, rows_read, orders_created, rows_failed, ' +
  'duplicates_skipped, failure, approval, created_at, finished_at'

function toStored(row: ImportRow): StoredOrderImport {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    environment: row.environment,
    caller: row.caller,
    fileName: row.file_name,
    bytes: Number(row.bytes),
    rowsExpected: Number(row.rows_expected),
    blobKey: row.blob_key,
    status: row.status,
    rowsRead: Number(row.rows_read),
    ordersCreated: Number(row.orders_created),
    rowsFailed: Number(row.rows_failed),
    duplicatesSkipped: Number(row.duplicates_skipped),
    failure: row.failure === null ? null : (JSON.parse(row.failure) as ImportFileFailure),
    approval: row.approval,
    createdAt: new Date(row.created_at),
    finishedAt: row.finished_at === null ? null : new Date(row.finished_at),
  }
}

/** A new import's number, drawn before its file is stored under a key naming it. */
export async function nextOrderImportNumber(db: Queryable): Promise<number> {
  const rows = await db.query<{ id: number | string }>("SELECT nextval('order_import_id_seq') AS id")
  return Number(rows[0]?.id)
}

export async function insertOrderImport(
  db: Queryable,
  scope: AccountScope,
  row: {
    id: number
    caller: string
    fileName: string | null
    bytes: number
    rowsExpected: number
    blobKey: string
    /** Absent: automatic. */
    approval?: ImportApprovalMode
    createdAt: Date
  },
): Promise<StoredOrderImport> {
  const rows = await db.query<ImportRow>(
    `INSERT INTO order_imports (id, account_id, environment, caller, file_name, bytes, rows_expected, blob_key, status,
       created_at, approval)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'Pending', $9, $10)
     RETURNING ${COLUMNS}`,
    [
      row.id,
      scope.accountId,
      scope.environment,
      row.caller,
      row.fileName,
      row.bytes,
      row.rowsExpected,
      row.blobKey,
      row.createdAt,
      row.approval ?? 'automatic',
    ],
  )
  return toStored(rows[0] as ImportRow)
}

/** The scope's import with this number: another account's or environment's is not found. */
export async function findOrderImportForCaller(
  db: Queryable,
  scope: AccountScope,
  id: number,
): Promise<StoredOrderImport | undefined> {
  const rows = await db.query<ImportRow>(
    `SELECT ${COLUMNS} FROM order_imports WHERE id = $1 AND account_id = $2 AND environment = $3`,
    [id, scope.accountId, scope.environment],
  )
  return rows[0] && toStored(rows[0])
}

/** The import with this number, for the job's own work. */
export async function readOrderImport(db: Queryable, id: number): Promise<StoredOrderImport | undefined> {
  const rows = await db.query<ImportRow>(`SELECT ${COLUMNS} FROM order_imports WHERE id = $1`, [id])
  return rows[0] && toStored(rows[0])
}

/** One page of the scope's imports, newest first; `before`: an import number the page continues below. */
export async function listOrderImportsForCaller(
  db: Queryable,
  scope: AccountScope,
  query: { before: number | null; top: number },
): Promise<{ imports: StoredOrderImport[]; hasMore: boolean }> {
  const rows = await db.query<ImportRow>(
    `SELECT ${COLUMNS} FROM order_imports
      WHERE account_id = $1 AND environment = $2 AND ($3::bigint IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [scope.accountId, scope.environment, query.before, query.top + 1],
  )
  return { imports: rows.slice(0, query.top).map(toStored), hasMore: rows.length > query.top }
}

/** Pending (or Running: a run that died, retried by the queue) -> Running; false once finished. */
export async function claimOrderImport(db: Queryable, id: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE order_imports SET status = 'Running' WHERE id = $1 AND status IN ('Pending', 'Running') RETURNING id`,
    [id],
  )
  return rows.length > 0
}

/** Records rows' results; a row already recorded (by a run that died after writing it) is kept as it is. */
export async function recordImportRows(
  db: Queryable,
  importId: number,
  results: readonly ImportRowResult[],
): Promise<void> {
  if (results.length > 0) {
    await db.query(
      `INSERT INTO order_import_rows (import_id, row_number, merchant_reference, outcome, order_id, failures)
       SELECT $1, r.row_number, r.merchant_reference, r.outcome, r.order_id, r.failures
         FROM jsonb_to_recordset($2::jsonb)
           AS r(row_number integer, merchant_reference text, outcome text, order_id text, failures text)
       ON CONFLICT (import_id, row_number) DO NOTHING`,
      [
        importId,
        JSON.stringify(
          results.map((result) => ({
            row_number: result.row,
            merchant_reference: result.merchantReference,
            outcome: result.outcome,
            order_id: result.orderId,
            failures: JSON.stringify(result.failures),
          })),
        ),
      ],
    )
  }
}

/** The counts as of a row: every recorded row up to `upTo` counted, none after it. */
export interface OrderImportTally extends OrderImportCounts {
  upTo: number
}

interface TallyRow {
  rows_read: number | string
  orders_created: number | string
  rows_failed: number | string
  duplicates_skipped: number | string
  up_to: number | string | null
}

function tallyOf(row: TallyRow | undefined, upTo: number): OrderImportTally {
  return {
    rowsRead: Number(row?.rows_read ?? 0),
    ordersCreated: Number(row?.orders_created ?? 0),
    rowsFailed: Number(row?.rows_failed ?? 0),
    duplicatesSkipped: Number(row?.duplicates_skipped ?? 0),
    upTo: Number(row?.up_to ?? upTo),
  }
}

/**
 * Recounts the import from all its recorded rows, so the counts are right whatever a crash interrupted; returns
 * them, as of the highest row recorded (`upTo`), for countOrderImportRows to go on from.
 */
export async function recountOrderImport(db: Queryable, importId: number): Promise<OrderImportTally> {
  const rows = await db.query<TallyRow>(
    `UPDATE order_imports SET
       rows_read = counts.rows_read, rows_failed = counts.rows_failed,
       duplicates_skipped = counts.duplicates, orders_created = counts.orders
     FROM (SELECT count(*) AS rows_read,
                  count(*) FILTER (WHERE outcome = 'Failed') AS rows_failed,
                  count(DISTINCT order_id) FILTER (WHERE outcome = 'Duplicate') AS duplicates,
                  count(DISTINCT order_id) FILTER (WHERE outcome = 'Created') AS orders,
                  max(row_number) AS up_to
             FROM order_import_rows WHERE import_id = $1) AS counts
     WHERE id = $1
     RETURNING order_imports.rows_read, order_imports.orders_created, order_imports.rows_failed,
       order_imports.duplicates_skipped, counts.up_to`,
    [importId],
  )
  return tallyOf(rows[0], 0)
}

/**
 * Sets the counts to `base` (every row up to base.upTo, counted before) plus the rows after it up to `upTo`, every
 * one of which is recorded: what the job counts every 100 rows, so a count reads those rows, not the whole import
 * again (a recount of every row each time made an import's counting grow with the square of its rows). The same
 * counts as recountOrderImport's: an order created is on rows of one order only, which a count never splits; an
 * order answered as a duplicate can be on several (two references with one idempotencyKey), so one already
 * counted up to base.upTo is not counted again. The counts are set, not added to, so a second run of the job
 * writing at the same time cannot make them count a row twice.
 */
export async function countOrderImportRows(
  db: Queryable,
  importId: number,
  base: OrderImportTally,
  upTo: number,
): Promise<OrderImportTally> {
  const rows = await db.query<TallyRow>(
    `UPDATE order_imports SET
       rows_read = $3 + counts.rows_read, rows_failed = $4 + counts.rows_failed,
       duplicates_skipped = $5 + counts.duplicates, orders_created = $6 + counts.orders
     FROM (SELECT count(*) AS rows_read,
                  count(*) FILTER (WHERE outcome = 'Failed') AS rows_failed,
                  count(DISTINCT order_id) FILTER (WHERE outcome = 'Duplicate' AND order_id NOT IN (
                    SELECT counted.order_id FROM order_import_rows counted
                     WHERE counted.import_id = $1 AND counted.row_number <= $2 AND counted.outcome = 'Duplicate'
                       AND counted.order_id IS NOT NULL)) AS duplicates,
                  count(DISTINCT order_id) FILTER (WHERE outcome = 'Created') AS orders
             FROM order_import_rows WHERE import_id = $1 AND row_number > $2 AND row_number <= $7) AS counts
     WHERE id = $1
     RETURNING order_imports.rows_read, order_imports.orders_created, order_imports.rows_failed,
       order_imports.duplicates_skipped`,
    [importId, base.upTo, base.rowsRead, base.rowsFailed, base.duplicatesSkipped, base.ordersCreated, upTo],
  )
  return tallyOf(rows[0], upTo)
}

/** Completed, or Failed with the file's failure; the file is no longer kept. */
export async function finishOrderImport(
  db: Queryable,
  id: number,
  result: { status: 'Completed' | 'Failed'; failure: ImportFileFailure | null },
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE order_imports SET status = $2, failure = $3, blob_key = NULL, finished_at = $4
      WHERE id = $1 AND status IN ('Pending', 'Running')`,
    [id, result.status, result.failure === null ? null : JSON.stringify(result.failure), now],
  )
}

interface ResultRow {
  row_number: number | string
  merchant_reference: string | null
  outcome: ImportRowOutcome
  order_id: string | null
  failures: string
}

/** Up to `limit` rows' results after row `after`, in row order. */
export async function readImportRows(
  db: Queryable,
  importId: number,
  after: number,
  limit: number,
): Promise<ImportRowResult[]> {
  const rows = await db.query<ResultRow>(
    `SELECT row_number, merchant_reference, outcome, order_id, failures FROM order_import_rows
      WHERE import_id = $1 AND row_number > $2 ORDER BY row_number LIMIT $3`,
    [importId, after, limit],
  )
  return rows.map((row) => ({
    row: Number(row.row_number),
    merchantReference: row.merchant_reference,
    outcome: row.outcome,
    orderId: row.order_id,
    failures: JSON.parse(row.failures) as ImportRowFailure[],
  }))
}
