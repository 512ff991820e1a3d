// CSV order imports (docs/imports.md): the columns a file may have, a row read into its place in a create-order
// request, the rows of one order grouped into that request, the failures the create answers mapped back to rows and
// columns, and the results file. Pure: the file is parsed by adapters/csv-rows.ts and the orders are created by
// services/order-imports.service.ts through the create-order service, so an imported order is validated exactly as
// one POSTed.
import { createHash } from 'node:crypto'
import type { Failure, FailureCode } from './failures.ts'

export const ORDER_IMPORT_STATUSES = ['Pending', 'Running', 'Completed', 'Failed'] as const
export type OrderImportStatus = (typeof ORDER_IMPORT_STATUSES)[number]

export const IMPORT_ROW_OUTCOMES = ['Created', 'Duplicate', 'Failed'] as const
export type ImportRowOutcome = (typeof IMPORT_ROW_OUTCOMES)[number]

/** The largest file POST /orders/imports takes: about 50,000 rows of a typical export. */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024
/** The most rows one order may have: an order's items (ORDER_LIMITS.maxItems), one row each. */
export const MAX_ROWS_PER_ORDER = 100
/** The longest value of one cell; a longer one is refused by the parser (it would be no field of an order). */
export const MAX_CELL_CHARACTERS = 10_000

/** The columns of an order, read from its first row (later rows of the same order may leave them empty). */
export const ORDER_COLUMNS = [
  'merchantReference',
  'shippingMethod',
  'idempotencyKey',
  'callbackUrl',
  'recipient.name',
  'recipient.email',
  'recipient.phoneNumber',
  'recipient.address.line1',
  'recipient.address.line2',
  'recipient.address.postalOrZipCode',
  'recipient.address.countryCode',
  'recipient.address.townOrCity',
  'recipient.address.stateOrCounty',
  'deliverBy',
  'acceptUnverifiedAddress',
  'customs.incoterm',
] as const

/** The columns of a line item: every row is one item of its order. */
export const ITEM_COLUMNS = [
  'item.merchantReference',
  'sku',
  'copies',
  'sizing',
  'recipientCost.amount',
  'recipientCost.currency',
] as const

/** Columns named `<prefix><name>`: an item's attribute, an item's asset URL in a print area, an order's metadata. */
export const COLUMN_PREFIXES = ['attributes.', 'assets.', 'metadata.'] as const

/** The file's header read: each column's index by name, in the file's order. */
export interface ImportHeader {
  columns: string[]
}

/** A file-wide problem: the import reads no row (docs/imports.md#the-file). */
export interface ImportFileFailure {
  field: string
  code: FailureCode
  providedValue: unknown
  comparisonValue?: unknown
}

/** One row's failure as the results file and GET show it. */
export interface ImportRowFailure {
  /** The row the failure is about (an order's failure is shown on each of its rows, naming the row it concerns). */
  row: number
  /** A column of the file, or an order field with no column of its own (`items`). */
  field: string
  code: FailureCode
  providedValue?: unknown
  comparisonValue?: unknown
}

/** A data row as read: its row number in the file (the header is row 1) and its cells by column. */
export interface ImportRow {
  row: number
  cells: string[]
}

/** What one data row became. */
export interface ImportRowResult {
  row: number
  merchantReference: string | null
  outcome: ImportRowOutcome
  orderId: string | null
  failures: ImportRowFailure[]
}

function knownColumn(name: string): boolean {
  if ((ORDER_COLUMNS as readonly string[]).includes(name)) return true
  if ((ITEM_COLUMNS as readonly string[]).includes(name)) return true
  return COLUMN_PREFIXES.some((prefix) => name.startsWith(prefix) && name.length > prefix.length)
}

/**
 * The header checked: a file in another delimiter (one column holding `;` or a tab) is named as such, an unknown or
 * repeated column is refused naming it (a misspelt column would otherwise drop its values silently), and
 * `merchantReference` must be there (it groups rows into orders). A byte order mark is removed by the parser.
 */
export function checkImportHeader(header: readonly string[] | undefined): ImportFileFailure | ImportHeader {
  if (header === undefined || header.every((name) => name.trim() === '')) {
    return { field: 'file', code: 'Required', providedValue: null, comparisonValue: 'a header row and data rows' }
  }
  const names = header.map((name) => name.trim())
  if (names.length === 1) {
    const only = names[0] ?? ''
    for (const delimiter of [';', '\t', '|']) {
      if (only.includes(delimiter)) {
        return { field: 'delimiter', code: 'InvalidValue', providedValue: delimiter, comparisonValue: ',' }
      }
    }
  }
  const seen = new Set<string>()
  for (const name of names) {
    if (!knownColumn(name)) return { field: name, code: 'UnknownField', providedValue: name }
    if (seen.has(name)) return { field: name, code: 'InvalidValue', providedValue: name, comparisonValue: 'once' }
    seen.add(name)
  }
  if (!seen.has('merchantReference')) {
    return { field: 'merchantReference', code: 'Required', providedValue: null }
  }
  return { columns: names }
}

/** The cell of `column` in a row; empty cells are absent. */
function cellOf(header: ImportHeader, row: ImportRow, column: string): string | undefined {
  const index = header.columns.indexOf(column)
  return index === -1 ? undefined : cellAt(row, index)
}

/** The row's cell in the header's column `index` (a loop over the columns needs no search for each). */
function cellAt(row: ImportRow, index: number): string | undefined {
  const value = row.cells[index]?.trim()
  return value === undefined || value === '' ? undefined : value
}

/** The row's merchantReference, or undefined when it has none. */
export function rowMerchantReference(header: ImportHeader, row: ImportRow): string | undefined {
  return cellOf(header, row, 'merchantReference')
}

/** Extra cells beyond the header, which no column names: refused on the row. */
export function rowShapeFailure(header: ImportHeader, row: ImportRow): ImportRowFailure | undefined {
  if (row.cells.length <= header.columns.length) return undefined
  const extra = row.cells.slice(header.columns.length)
  if (extra.every((cell) => cell.trim() === '')) return undefined
  return {
    row: row.row,
    field: 'row',
    code: 'TooMany',
    providedValue: row.cells.length,
    comparisonValue: header.columns.length,
  }
}

/** A whole number as a number; anything else as written, for the schema to refuse with its type. */
function integerOrText(value: string): number | string {
  return /^-?\d{1,9}$/.test(value) ? Number(value) : value
}

function booleanOrText(value: string): boolean | string {
  const lower = value.toLowerCase()
  if (lower === 'true') return true
  if (lower === 'false') return false
  return value
}

/** Sets `path` (dotted) in `target`, making the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.')
  let at = target
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(at, part) ? at[part] : undefined
    if (next !== null && typeof next === 'object') at = next as Record<string, unknown>
    else {
      const made: Record<string, unknown> = {}
      Object.defineProperty(at, part, { value: made, enumerable: true, writable: true, configurable: true })
      at = made
    }
  }
  const last = parts[parts.length - 1] as string
  Object.defineProperty(at, last, { value, enumerable: true, writable: true, configurable: true })
}

function orderValue(column: string, value: string): unknown {
  return column === 'acceptUnverifiedAddress' ? booleanOrText(value) : value
}

/** One row's line item, in the create-order request's shape. */
function itemOf(header: ImportHeader, row: ImportRow): Record<string, unknown> {
  const item: Record<string, unknown> = {}
  const attributes: Record<string, string> = {}
  const assets: { printArea: string; url: string }[] = []
  for (const [index, column] of header.columns.entries()) {
    const value = cellAt(row, index)
    if (value === undefined) continue
    if (column === 'item.merchantReference') item.merchantReference = value
    else if (column === 'copies') item.copies = integerOrText(value)
    else if (column === 'sku' || column === 'sizing') item[column] = value
    else if (column.startsWith('recipientCost.')) setPath(item, column, value)
    else if (column.startsWith('attributes.')) {
      Object.defineProperty(attributes, column.slice('attributes.'.length), {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else if (column.startsWith('assets.')) assets.push({ printArea: column.slice('assets.'.length), url: value })
  }
  if (Object.keys(attributes).length > 0) item.attributes = attributes
  item.assets = assets
  return item
}

/**
 * The idempotency key of an imported order without its own: derived from its merchantReference (the account and
 * environment scope every key), so uploading the same file again, or a corrected one, creates no order twice. A
 * key from the order's content would create a second order as soon as one of its cells was corrected.
 */
export function importIdempotencyKey(merchantReference: string): string {
  const key = `csv:${merchantReference}`
  return key.length <= 200 ? key : `csv-sha256:${createHash('sha256').update(merchantReference).digest('hex')}`
}

/**
 * The rows of one order (same merchantReference, consecutive) as the create-order request they stand for: the order
 * fields from the first row, one item per row. The create-order schema and service check it as any request.
 */
export function orderRequestOf(header: ImportHeader, rows: readonly ImportRow[]): Record<string, unknown> {
  const first = rows[0] as ImportRow
  const request: Record<string, unknown> = {}
  for (const [index, column] of header.columns.entries()) {
    if (!(ORDER_COLUMNS as readonly string[]).includes(column) && !column.startsWith('metadata.')) continue
    const value = cellAt(first, index)
    if (value === undefined) continue
    setPath(request, column, orderValue(column, value))
  }
  const reference = rowMerchantReference(header, first) as string
  if (request.idempotencyKey === undefined) request.idempotencyKey = importIdempotencyKey(reference)
  const recipient = request.recipient as Record<string, unknown> | undefined
  // The schema requires an address object: without any address column, the failures name its fields.
  if (recipient !== undefined && recipient.address === undefined) recipient.address = {}
  request.items = rows.map((row) => itemOf(header, row))
  return request
}

/** `items[2].assets[0].url` -> item 2, the rest `assets[0].url`; undefined for an order field. */
function itemPath(path: string): { index: number; rest: string } | undefined {
  const match = /^items\[(\d+)\](?:\.(.*))?$/.exec(path)
  if (!match) return undefined
  return { index: Number(match[1]), rest: match[2] ?? '' }
}

/** The column an item's failure is about: an asset's is its print area's column. */
function itemColumn(item: Record<string, unknown> | undefined, rest: string): string {
  const asset = /^assets\[(\d+)\]/.exec(rest)
  if (asset) {
    const assets = (item?.assets ?? []) as { printArea?: string }[]
    const printArea = assets[Number(asset[1])]?.printArea
    return printArea === undefined ? 'assets' : `assets.${printArea}`
  }
  if (rest === 'merchantReference') return 'item.merchantReference'
  return rest === '' ? 'items' : rest
}

/**
 * The failures of an order's create, each on the row it concerns and in the file's column names: an item's on its
 * row, the order's on its first row. Every row of the order is failed with all of them (an order is created whole
 * or not at all), so each row of the results file says why.
 */
export function rowFailuresOf(
  request: Record<string, unknown>,
  rows: readonly ImportRow[],
  failures: Record<string, readonly Failure[]>,
): ImportRowFailure[] {
  const first = rows[0] as ImportRow
  const items = (request.items ?? []) as Record<string, unknown>[]
  const mapped: ImportRowFailure[] = []
  for (const [path, list] of Object.entries(failures)) {
    const item = itemPath(path)
    const row = item === undefined ? first : (rows[item.index] ?? first)
    const field = item === undefined ? path : itemColumn(items[item.index], item.rest)
    for (const failure of list) {
      mapped.push({
        row: row.row,
        field,
        code: failure.code,
        ...(failure.providedValue === undefined ? {} : { providedValue: failure.providedValue }),
        ...(failure.comparisonValue === undefined ? {} : { comparisonValue: failure.comparisonValue }),
      })
    }
  }
  return mapped.sort((a, b) => a.row - b.row)
}

/** The template's one example order (GET /orders/imports/template.csv): two rows, two items of one order. */
const TEMPLATE_ROWS: Record<string, string>[] = [
  {
    merchantReference: 'FAIR-0001',
    shippingMethod: 'Standard',
    'recipient.name': 'Ada Lovelace',
    'recipient.email': 'ada@example.com',
    'recipient.address.line1': '14 Test Street',
    'recipient.address.postalOrZipCode': 'EC1A 1BB',
    'recipient.address.countryCode': 'GB',
    'recipient.address.townOrCity': 'London',
    sku: 'GLOBAL-CAN-10x10',
    copies: '1',
    sizing: 'fillPrintArea',
    'attributes.wrap': 'ImageWrap',
    'assets.default': 'https://images.example.com/canvas.jpg',
  },
  {
    merchantReference: 'FAIR-0001',
    sku: 'GLOBAL-CAN-10x10',
    copies: '2',
    sizing: 'fitPrintArea',
    'attributes.wrap': 'Black',
    'assets.default': 'https://images.example.com/second.jpg',
  },
]

/** The template's columns: the order's, the item's and one of each prefix as an example. */
export const TEMPLATE_COLUMNS: readonly string[] = [
  ...ORDER_COLUMNS,
  'metadata.source',
  ...ITEM_COLUMNS,
  'attributes.wrap',
  'assets.default',
]

/** One CSV field: quoted when it holds a comma, quote or line break; a leading formula character is neutralised. */
export function csvField(value: string): string {
  // A cell starting with = + - @ would run as a formula in a spreadsheet opening the results file.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`
}

/** GET /orders/imports/template.csv: the header and the example order. */
export function importTemplateCsv(): string {
  const lines = [csvLine(TEMPLATE_COLUMNS)]
  for (const row of TEMPLATE_ROWS) lines.push(csvLine(TEMPLATE_COLUMNS.map((column) => row[column] ?? '')))
  return lines.join('')
}

export const RESULTS_COLUMNS = ['row', 'merchantReference', 'outcome', 'orderId', 'errors'] as const

/** A failure as the results file writes it: `row 3 sku: UnknownSku (GLOBAL-X)`. */
export function failureText(failure: ImportRowFailure, ownRow: number): string {
  const where = failure.row === ownRow ? '' : `row ${failure.row} `
  const provided =
    failure.providedValue === undefined || failure.providedValue === null
      ? ''
      : ` (${typeof failure.providedValue === 'string' ? failure.providedValue : JSON.stringify(failure.providedValue)})`
  return `${where}${failure.field}: ${failure.code}${provided}`
}

/** One line of results.csv. */
export function resultsCsvLine(result: ImportRowResult): string {
  return csvLine([
    String(result.row),
    result.merchantReference ?? '',
    result.outcome,
    result.orderId ?? '',
    result.failures.map((failure) => failureText(failure, result.row)).join('; '),
  ])
}
