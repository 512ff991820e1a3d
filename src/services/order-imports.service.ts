// CSV order imports (docs/imports.md): POST /orders/imports keeps the file and answers Pending; the run-order-import
// job streams it row by row, groups consecutive rows of one merchantReference into one create-order request and
// creates it through the orders service (the same schema check and the same service as POST /orders), recording
// each row's order or failures. Memory holds one order's rows at a time and the references already seen, never the
// file.
//
// The one seam where an imported order is created is createImportedOrder below: an import uploaded with
// approval=manual asks the orders service for drafts there, each kept until the merchant confirms it.

import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import type { ImportApprovalMode } from '../domain/approval.ts'
import type { Failures } from '../domain/failures.ts'
import { formatId, parseIdOrNumber, parseRequestId } from '../domain/ids.ts'
import { jobRequest } from '../domain/jobs.ts'
import {
  checkImportHeader,
  type ImportFileFailure,
  type ImportHeader,
  type ImportRow,
  type ImportRowFailure,
  type ImportRowResult,
  MAX_CELL_CHARACTERS,
  MAX_ROWS_PER_ORDER,
  type OrderImportStatus,
  orderRequestOf,
  rowFailuresOf,
  rowMerchantReference,
  rowShapeFailure,
} from '../domain/order-imports.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import {
  claimOrderImport,
  countOrderImportRows,
  findOrderImportForCaller,
  finishOrderImport,
  insertOrderImport,
  listOrderImportsForCaller,
  nextOrderImportNumber,
  type OrderImportTally,
  readImportRows,
  readOrderImport,
  recordImportRows,
  recountOrderImport,
  type StoredOrderImport,
} from '../repositories/order-imports.repository.ts'
import type { Caller } from './accounts.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import type { CreateOrderInput, OrdersService } from './orders.service.ts'

/** An import as GET /orders/imports/{id} shows it. */
export interface OrderImportView {
  id: string
  status: OrderImportStatus
  fileName: string | null
  bytes: number
  /** The file's data rows as its line breaks count them: the whole of a progress bar (rowsRead reaches it). */
  rowsExpected: number
  rowsRead: number
  ordersCreated: number
  rowsFailed: number
  duplicatesSkipped: number
  /** Why a Failed import stopped (a file the parser could not read on): field, code and the value. */
  failure: ImportFileFailure | null
  /** manual: every order is created as a draft that waits for actions/confirm; automatic: created at once. */
  approval: ImportApprovalMode
  createdAt: string
  finishedAt: string | null
}

/** A record of the file: its number (the header is 1) and its fields. */
export interface ImportFileRecord {
  record: number
  fields: string[]
}

/** Why the rest of a file could not be read (adapters/csv-rows.ts's CsvReadError). */
export interface ImportFileReadError {
  record: number
  message: string
}

export interface OrderImportsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  orders: Pick<OrdersService, 'createOrder'>
  files: { put(key: string, source: Buffer, contentType: string): Promise<void>; delete(key: string): Promise<void> }
  /** The stored file's records, streamed; throws what `readError` recognises when the file cannot be read on. */
  readRecords(blobKey: string, maxFieldCharacters: number): AsyncIterable<ImportFileRecord>
  /** The first record of an uploaded body (its header), undefined for a body with none. */
  readHeader(body: Buffer, maxFieldCharacters: number): Promise<string[] | undefined>
  /** The parser's error as the import reports it; undefined for any other error (the job's retry then runs it again). */
  readError(error: unknown): ImportFileReadError | undefined
  /** The create-order request schema's check (http/validation.ts), so an imported order is checked as one POSTed. */
  validateOrderRequest(request: unknown): Failures
  log?: ServiceLogger
}

export interface OrderImportsService {
  /** Keeps the uploaded file and queues its import; a body without a usable header is refused naming why. */
  createImport(
    caller: Caller,
    body: Buffer,
    fileName: string | null,
    approval?: ImportApprovalMode,
  ): Promise<OrderImportView>
  /** The caller's import; another account's or environment's is EntityNotFound. */
  getImport(caller: Caller, importId: string): Promise<OrderImportView>
  /** One page of the caller's imports, newest first; `before`: an import id the page continues below. */
  listImports(
    caller: Caller,
    query: { before: string | null; top: number },
  ): Promise<{ imports: OrderImportView[]; nextBefore: string | null; hasMore: boolean }>
  /** The caller's import's rows' results, in row order, `size` at a time (results.csv streams them). */
  importResults(caller: Caller, importId: string, size?: number): Promise<AsyncIterable<ImportRowResult[]>>
  /** The run-order-import job: reads the file and creates its orders; a re-run continues after the rows recorded. */
  runImport(importId: number): Promise<void>
}

/** Rows recorded (and the counts GET shows updated) at a time: the progress a client polling sees move. */
const RECORD_BATCH_ROWS = 100

function scopeOf(caller: Caller): AccountScope {
  return { accountId: caller.accountId, environment: caller.environment }
}

function viewOf(row: StoredOrderImport): OrderImportView {
  return {
    id: formatId('imp', row.id),
    status: row.status,
    fileName: row.fileName,
    bytes: row.bytes,
    rowsExpected: row.rowsExpected,
    rowsRead: row.rowsRead,
    ordersCreated: row.ordersCreated,
    rowsFailed: row.rowsFailed,
    duplicatesSkipped: row.duplicatesSkipped,
    failure: row.failure,
    approval: row.approval,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  }
}

/** The data rows of a body by its line breaks (the header and a last line without one counted as lines). */
function dataRowsOf(body: Buffer): number {
  let lines = 0
  for (let at = body.indexOf(10); at !== -1; at = body.indexOf(10, at + 1)) lines += 1
  if (body[body.length - 1] !== 10) lines += 1
  return Math.max(lines - 1, 0)
}

function headerRefusal(failure: ImportFileFailure): ServiceError {
  const { field, ...rest } = failure
  return validationFailed({ [field]: [rest] }, 'The file cannot be imported')
}

async function createImport(
  deps: OrderImportsDeps,
  caller: Caller,
  body: Buffer,
  fileName: string | null,
  approval: ImportApprovalMode = 'automatic',
): Promise<OrderImportView> {
  if (body.length === 0) throw validationFailed({ body: [{ code: 'Required', providedValue: null }] })
  let header: string[] | undefined
  try {
    header = await deps.readHeader(body, MAX_CELL_CHARACTERS)
  } catch (error) {
    const problem = deps.readError(error)
    if (!problem) throw error
    throw headerRefusal({ field: 'file', code: 'InvalidFormat', providedValue: problem.message })
  }
  const checked = checkImportHeader(header)
  if (!('columns' in checked)) throw headerRefusal(checked)
  const id = await nextOrderImportNumber(deps.db)
  const blobKey = `order-imports/${id}.csv`
  await deps.files.put(blobKey, body, 'text/csv')
  const row = await deps.db.transaction(async (tx) => {
    const inserted = await insertOrderImport(tx, scopeOf(caller), {
      id,
      caller: JSON.stringify(caller),
      fileName,
      bytes: body.length,
      rowsExpected: dataRowsOf(body),
      blobKey,
      approval,
      createdAt: deps.clock.now(),
    })
    await deps.jobs.enqueue(tx, [jobRequest('run-order-import', { importId: id })])
    return inserted
  })
  return viewOf(row)
}

async function findForCaller(deps: OrderImportsDeps, caller: Caller, importId: string): Promise<StoredOrderImport> {
  const row = await findOrderImportForCaller(deps.db, scopeOf(caller), parseRequestId('imp', importId, 'importId'))
  if (!row) throw new ServiceError('EntityNotFound', `Import ${importId} not found`)
  return row
}

async function importResults(
  deps: OrderImportsDeps,
  caller: Caller,
  importId: string,
  size: number,
): Promise<AsyncIterable<ImportRowResult[]>> {
  const row = await findForCaller(deps, caller, importId)
  return {
    async *[Symbol.asyncIterator]() {
      let after = 0
      for (;;) {
        const page = await readImportRows(deps.db, row.id, after, size)
        if (page.length === 0) return
        yield page
        after = (page[page.length - 1] as ImportRowResult).row
      }
    },
  }
}

/** The order being gathered: consecutive rows of one merchantReference. */
interface OpenGroup {
  reference: string
  rows: ImportRow[]
  overflow: ImportRow[]
}

/** One run of the job over the file: what it has seen, and the results not yet recorded. */
interface ImportRun {
  deps: OrderImportsDeps
  importId: number
  caller: Caller
  approval: ImportApprovalMode
  header: ImportHeader | undefined
  /** Rows up to this one were recorded by an earlier run: read again only to know their references. */
  recordedUpTo: number
  seen: Set<string>
  group: OpenGroup | undefined
  pending: ImportRowResult[]
  /** Rows recorded since the counts were last updated. */
  uncounted: number
  /** The counts as last written, and the row they go up to: the next count reads only the rows after it. */
  tally: OrderImportTally
  /** The highest row this run has recorded (its rows are recorded in file order). */
  lastRecorded: number
}

function failedRow(row: ImportRow, reference: string | null, failures: ImportRowFailure[]): ImportRowResult {
  return { row: row.row, merchantReference: reference, outcome: 'Failed', orderId: null, failures }
}

/**
 * The one place an imported order is created: the create-order service with the caller who uploaded the file, as
 * POST /orders would. Its outcome or its failures become the rows' results.
 */
async function createImportedOrder(
  run: ImportRun,
  request: Record<string, unknown>,
): Promise<{ orderId: string; duplicate: boolean } | { failures: Failures }> {
  const schemaFailures = run.deps.validateOrderRequest(request)
  if (Object.keys(schemaFailures).length > 0) return { failures: schemaFailures }
  try {
    const input = request as unknown as CreateOrderInput
    const result = await run.deps.orders.createOrder(
      run.caller,
      run.approval === 'manual' ? { ...input, draft: true } : input,
    )
    const orderId = 'onHold' in result ? result.onHold.id : result.orderId
    return { orderId, duplicate: result.outcome === 'AlreadyExists' }
  } catch (error) {
    if (error instanceof ServiceError && error.failures) return { failures: error.failures }
    throw error
  }
}

async function flushGroup(run: ImportRun): Promise<void> {
  const group = run.group
  run.group = undefined
  if (!group) return
  const { reference, rows } = group
  if (group.overflow.length > 0) {
    const failure = (row: ImportRow): ImportRowFailure => ({
      row: row.row,
      field: 'merchantReference',
      code: 'TooMany',
      providedValue: rows.length + group.overflow.length,
      comparisonValue: MAX_ROWS_PER_ORDER,
    })
    for (const row of [...rows, ...group.overflow]) run.pending.push(failedRow(row, reference, [failure(row)]))
    return
  }
  const request = orderRequestOf(run.header as ImportHeader, rows)
  const created = await createImportedOrder(run, request)
  if ('failures' in created) {
    const failures = rowFailuresOf(request, rows, created.failures)
    for (const row of rows) run.pending.push(failedRow(row, reference, failures))
    return
  }
  const outcome = created.duplicate ? 'Duplicate' : 'Created'
  for (const row of rows) {
    run.pending.push({ row: row.row, merchantReference: reference, outcome, orderId: created.orderId, failures: [] })
  }
}

/**
 * Records the results gathered (an order's rows as soon as it is created, so a crash between the create and the
 * record is as short as it can be) and updates the counts every RECORD_BATCH_ROWS rows, or at the end (`force`).
 */
async function recordPending(run: ImportRun, force: boolean): Promise<void> {
  const results = run.pending
  run.pending = []
  await recordImportRows(run.deps.db, run.importId, results)
  run.uncounted += results.length
  const last = results[results.length - 1]
  if (last) run.lastRecorded = last.row
  // The end recounts every row, whatever another run wrote meanwhile; in between, only the rows since the last count.
  if (force) run.tally = await recountOrderImport(run.deps.db, run.importId)
  else if (run.uncounted >= RECORD_BATCH_ROWS) {
    run.tally = await countOrderImportRows(run.deps.db, run.importId, run.tally, run.lastRecorded)
  } else return
  run.uncounted = 0
}

/** One data row: into the open order, a new one, or failed on its own. */
async function takeRow(run: ImportRun, row: ImportRow): Promise<void> {
  const header = run.header as ImportHeader
  const reference = rowMerchantReference(header, row)
  if (row.row <= run.recordedUpTo) {
    if (reference !== undefined) run.seen.add(reference)
    return
  }
  const shape = rowShapeFailure(header, row)
  if (reference === undefined || shape) {
    await flushGroup(run)
    const failure = shape ?? { row: row.row, field: 'merchantReference', code: 'Required', providedValue: null }
    run.pending.push(failedRow(row, reference ?? null, [failure]))
    return
  }
  if (run.group?.reference === reference) {
    if (run.group.rows.length < MAX_ROWS_PER_ORDER) run.group.rows.push(row)
    else run.group.overflow.push(row)
    return
  }
  await flushGroup(run)
  if (run.seen.has(reference)) {
    // Its order was already read (created, or failed) further up: rows of one order must be consecutive.
    const failure: ImportRowFailure = {
      row: row.row,
      field: 'merchantReference',
      code: 'InvalidValue',
      providedValue: reference,
      comparisonValue: 'the rows of one order consecutive',
    }
    run.pending.push(failedRow(row, reference, [failure]))
    return
  }
  run.seen.add(reference)
  run.group = { reference, rows: [row], overflow: [] }
}

/** Reads the file from its start; returns the file's failure, or null once every row is recorded. */
async function readFile(run: ImportRun, blobKey: string): Promise<ImportFileFailure | null> {
  try {
    for await (const record of run.deps.readRecords(blobKey, MAX_CELL_CHARACTERS)) {
      if (run.header === undefined) {
        const checked = checkImportHeader(record.fields)
        if (!('columns' in checked)) return checked
        run.header = checked
        continue
      }
      await takeRow(run, { row: record.record, cells: record.fields })
      await recordPending(run, false)
    }
  } catch (error) {
    const problem = run.deps.readError(error)
    if (!problem) throw error
    await flushGroup(run)
    await recordPending(run, true)
    return { field: 'file', code: 'InvalidFormat', providedValue: `record ${problem.record}: ${problem.message}` }
  }
  if (run.header === undefined) return { field: 'file', code: 'Required', providedValue: null }
  await flushGroup(run)
  await recordPending(run, true)
  return null
}

async function runImport(deps: OrderImportsDeps, importId: number): Promise<void> {
  const row = await readOrderImport(deps.db, importId)
  if (!row?.blobKey || !(await claimOrderImport(deps.db, importId))) return
  // The rows an earlier run recorded, counted once: this run's counts go on from them.
  const tally = await recountOrderImport(deps.db, importId)
  const run: ImportRun = {
    deps,
    importId,
    caller: JSON.parse(row.caller) as Caller,
    approval: row.approval,
    header: undefined,
    recordedUpTo: tally.upTo,
    seen: new Set(),
    group: undefined,
    pending: [],
    uncounted: 0,
    tally,
    lastRecorded: tally.upTo,
  }
  const failure = await readFile(run, row.blobKey)
  await finishOrderImport(deps.db, importId, { status: failure ? 'Failed' : 'Completed', failure }, deps.clock.now())
  await deps.files.delete(row.blobKey).catch((error: unknown) => {
    ;(deps.log ?? silentLogger).warn({ err: error, blobKey: row.blobKey }, 'deleting an imported file failed')
  })
  const done = await readOrderImport(deps.db, importId)
  ;(deps.log ?? silentLogger).info(
    {
      importId: formatId('imp', importId),
      rowsRead: done?.rowsRead ?? 0,
      ordersCreated: done?.ordersCreated ?? 0,
      rowsFailed: done?.rowsFailed ?? 0,
      duplicatesSkipped: done?.duplicatesSkipped ?? 0,
    },
    `order import ${formatId('imp', importId)} ${failure ? 'failed' : 'completed'}`,
  )
}

export function createOrderImportsService(deps: OrderImportsDeps): OrderImportsService {
  return {
    createImport: (caller, body, fileName, approval) => createImport(deps, caller, body, fileName, approval),
    getImport: async (caller, importId) => viewOf(await findForCaller(deps, caller, importId)),
    async listImports(caller, query) {
      const before = query.before === null ? null : (parseIdOrNumber('imp', query.before) ?? null)
      if (query.before !== null && before === null) parseRequestId('imp', query.before, 'before')
      const page = await listOrderImportsForCaller(deps.db, scopeOf(caller), { before, top: query.top })
      const last = page.imports[page.imports.length - 1]
      return {
        imports: page.imports.map(viewOf),
        hasMore: page.hasMore,
        nextBefore: page.hasMore && last ? formatId('imp', last.id) : null,
      }
    },
    importResults: (caller, importId, size = 500) => importResults(deps, caller, importId, size),
    runImport: (importId) => runImport(deps, importId),
  }
}
