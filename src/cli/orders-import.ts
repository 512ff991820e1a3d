// `printroute orders import FILE`: a CSV file of orders (docs/imports.md) sent to POST /v4.0/orders/imports, then
// its progress as a bar until it is Completed or Failed, then the rows that failed (from results.csv). An HTTP
// client of a printroute server, like `orders watch`.
import { createReadStream, openAsBlob } from 'node:fs'
import { basename } from 'node:path'
import type { Command } from 'commander'
import { IMPORT_APPROVAL_MODES, type ImportApprovalMode } from '../domain/approval.ts'
import {
  API_REQUEST_TIMEOUT_MS,
  ApiRequestError,
  addConnectionOptions,
  connectionOf,
  createApiConnection,
  intervalMs,
  pause,
  stopSignal,
} from './api-connection.ts'
import { print, printJson, requireText, UsageError } from './command-support.ts'
import { OperationError } from './operation-error.ts'

/** An import as the API answers it: what this command prints. */
interface ImportAnswer {
  id: string
  status: string
  rowsRead: number
  ordersCreated: number
  rowsFailed: number
  duplicatesSkipped: number
  failure: { field: string; code: string; providedValue: unknown } | null
}

const FINISHED = new Set(['Completed', 'Failed'])
const BAR_WIDTH = 30

/** The data rows of the file, about (a quoted field holding a line break counts twice): the bar's whole. */
async function countRows(path: string): Promise<number> {
  let lines = 0
  let last = 10
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 10) lines += 1
    last = chunk[chunk.length - 1] ?? last
  }
  if (last !== 10) lines += 1
  return Math.max(lines - 1, 0)
}

/** `[##########..........]  120/300 rows  118 created  2 failed  0 duplicates` */
export function progressLine(current: ImportAnswer, total: number): string {
  const done = current.status === 'Completed' ? total : Math.min(current.rowsRead, total)
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH)
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`
  return (
    `${bar}  ${current.rowsRead}/${total} rows  ${current.ordersCreated} created  ${current.rowsFailed} failed  ` +
    `${current.duplicatesSkipped} duplicates`
  )
}

/** The --approval value: automatic (the API's default) or manual (every order created as a draft). */
function approvalOf(value: unknown): ImportApprovalMode {
  if (value === undefined) return 'automatic'
  const mode = String(value).toLowerCase()
  if (!IMPORT_APPROVAL_MODES.includes(mode as ImportApprovalMode)) {
    throw new UsageError(`--approval must be one of ${IMPORT_APPROVAL_MODES.join(', ')} (got ${String(value)})`)
  }
  return mode as ImportApprovalMode
}

async function upload(
  connection: { apiKey: string; baseUrl: string },
  path: string,
  approval: ImportApprovalMode,
): Promise<ImportAnswer> {
  const approvalQuery = approval === 'automatic' ? '' : `&approval=${approval}`
  const target = `/v4.0/orders/imports?fileName=${encodeURIComponent(basename(path))}${approvalQuery}`
  // The file is streamed from the disk, never read whole here; the server refuses one over its 20 MiB.
  const response = await fetch(`${connection.baseUrl}${target}`, {
    method: 'POST',
    headers: { 'x-api-key': connection.apiKey, 'content-type': 'text/csv', accept: 'application/json' },
    body: await openAsBlob(path),
    signal: AbortSignal.timeout(API_REQUEST_TIMEOUT_MS * 4),
  })
  const text = await response.text()
  let body: Record<string, unknown> | null = null
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {}
  if (!response.ok || body === null) throw new ApiRequestError(response.status, body, '/v4.0/orders/imports', 'POST')
  return body.import as ImportAnswer
}

/** The failed rows of results.csv, as they are written there. */
async function failedRows(connection: { apiKey: string; baseUrl: string }, id: string): Promise<string[]> {
  const response = await fetch(`${connection.baseUrl}/v4.0/orders/imports/${id}/results.csv`, {
    headers: { 'x-api-key': connection.apiKey },
    signal: AbortSignal.timeout(API_REQUEST_TIMEOUT_MS),
  })
  if (!response.ok) return []
  return (await response.text()).split('\r\n').filter((line) => /^\d+,[^\r\n]*?,Failed,/.test(line))
}

export function registerOrderImportCommand(orders: Command): void {
  const command = orders
    .command('import')
    .summary('import orders from a CSV file (one row per line item), with a progress bar')
    .description(
      'Sends the CSV file to POST /v4.0/orders/imports, shows the import progress until it is Completed or ' +
        'Failed, then lists the rows that failed with their errors. Exits 1 when a row failed or the file could ' +
        'not be read. The columns: GET /v4.0/orders/imports/template.csv (docs/imports.md). --approval manual ' +
        'creates every order as a draft, to be confirmed before production.',
    )
    .argument('<FILE>', 'the CSV file')
    .option('--approval <MODE>', 'automatic (start at once) or manual (create drafts to confirm)', 'automatic')
    .option('--json', 'print the finished import as the API gives it')
  addConnectionOptions(command, '1s').action(async (fileArgument: string, values: Record<string, unknown>) => {
    const path = requireText(fileArgument, 'FILE')
    const every = intervalMs(values.pollInterval, '--poll-interval')
    const approval = approvalOf(values.approval)
    const connection = connectionOf(values)
    const total = await countRows(path).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${path}: ${error.code ?? error.message}`)
    })
    const api = createApiConnection(connection)
    let current = await upload(connection, path, approval)
    const tty = process.stderr.isTTY === true
    let shown = ''
    const show = () => {
      const line = progressLine(current, total)
      if (line === shown) return
      shown = line
      // On a terminal the bar redraws in place; in a log, each change is a line.
      process.stderr.write(tty ? `\r${line}` : `${line}\n`)
    }
    const stop = stopSignal()
    try {
      show()
      while (!FINISHED.has(current.status) && !stop.signal.aborted) {
        await pause(every, stop.signal)
        current = (await api.get<{ import: ImportAnswer }>(`/orders/imports/${current.id}`)).import
        show()
      }
    } finally {
      stop.dispose()
      if (tty) process.stderr.write('\n')
    }
    if (values.json) printJson(current)
    else {
      print(`${current.id}  ${current.status}  ${progressLine(current, total).split(']  ')[1] ?? ''}`)
      if (current.failure)
        print(`  file: ${current.failure.field}: ${current.failure.code} (${String(current.failure.providedValue)})`)
      for (const line of await failedRows(connection, current.id)) print(`  ${line}`)
    }
    if (current.status === 'Failed') throw new OperationError(`${current.id} failed: the file could not be read on`, 1)
    if (current.status === 'Completed' && current.rowsFailed > 0) {
      throw new OperationError(`${current.id}: ${current.rowsFailed} row(s) failed`, 1)
    }
    if (!FINISHED.has(current.status)) throw new OperationError(`${current.id} is still ${current.status}`, 1)
  })
}
