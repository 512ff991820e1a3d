// POST /orders/imports, GET /orders/imports[/{id}], results.csv and template.csv (printroute's own, additive to
// the Prodigi API, docs/imports.md): orders created from a CSV file of line items.
import { Type } from 'typebox'
import { IMPORT_APPROVAL_MODES } from '../../domain/approval.ts'
import { ORDER_IMPORT_STATUSES } from '../../domain/order-imports.ts'
import { Nullable, named, OkOutcome, Outcome, outcomeResponse, StringEnum } from './common.schema.ts'

export const ImportIdParamsSchema = Type.Object({
  importId: Type.String({ maxLength: 40, description: 'Import ID, e.g. imp_12.' }),
})

const ImportApproval = StringEnum(
  IMPORT_APPROVAL_MODES,
  'automatic: each order is created at once; manual: each is created as a draft (not charged, allocated or ' +
    'rendered) that waits for POST /orders/{id}/actions/confirm.',
)

export const CreateImportQuerySchema = Type.Object(
  {
    fileName: Type.Optional(
      Type.String({ maxLength: 200, description: "The file's name, shown in the list (the dashboard sends it)." }),
    ),
    approval: Type.Optional({ ...ImportApproval, default: 'automatic' }),
  },
  { additionalProperties: false },
)

const ImportFailureSchema = named(
  'OrderImportFailure',
  Type.Object({
    field: Type.String({ description: 'What could not be read: `file`, `delimiter`, or a column.' }),
    code: Type.String({ description: 'A failure code of docs/errors.md.' }),
    providedValue: Type.Unknown(),
    comparisonValue: Type.Optional(Type.Unknown()),
  }),
)

export const OrderImportSchema = named(
  'OrderImport',
  Type.Object({
    id: Type.String({ description: 'imp_<number>.' }),
    status: StringEnum(
      ORDER_IMPORT_STATUSES,
      'Pending (queued), Running, Completed (every row read: see rowsFailed), Failed (the file stopped being readable).',
    ),
    fileName: Nullable(Type.String()),
    bytes: Type.Integer({ minimum: 0 }),
    rowsExpected: Type.Integer({
      minimum: 0,
      description:
        "The file's data rows as its line breaks count them (a quoted cell holding a line break counts twice): " +
        'the whole of a progress bar.',
    }),
    rowsRead: Type.Integer({ minimum: 0, description: 'Data rows read and recorded so far (the header not counted).' }),
    ordersCreated: Type.Integer({ minimum: 0, description: 'Orders this import created.' }),
    rowsFailed: Type.Integer({ minimum: 0, description: 'Rows whose order was not created; results.csv says why.' }),
    duplicatesSkipped: Type.Integer({
      minimum: 0,
      description: 'Orders not created again: their idempotency key (by default from merchantReference) was taken.',
    }),
    failure: Nullable(ImportFailureSchema),
    approval: ImportApproval,
    createdAt: Type.String({ format: 'date-time' }),
    finishedAt: Nullable(Type.String({ format: 'date-time' })),
  }),
)

export const CreateImportResponseSchema = outcomeResponse(
  'CreateOrderImportResponse',
  Outcome('CreateOrderImportOutcome', ['Created'] as const),
  { import: OrderImportSchema },
)

export const ImportResponseSchema = outcomeResponse('OrderImportResponse', OkOutcome, { import: OrderImportSchema })

export const IMPORT_LIST_MAX_TOP = 100

export const ListImportsQuerySchema = Type.Object(
  {
    before: Type.Optional(
      Type.String({ maxLength: 40, description: "An import ID: the page continues with older imports (nextUrl's)." }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: IMPORT_LIST_MAX_TOP, default: 10 })),
  },
  { additionalProperties: false },
)

export const ListImportsResponseSchema = outcomeResponse('ListOrderImportsResponse', OkOutcome, {
  imports: Type.Array(OrderImportSchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String({ description: 'The next (older) page; null on the last.' })),
})

/** A CSV answer: the file itself. */
export const CsvResponse = {
  description: 'The file, text/csv; charset=utf-8.',
  content: { 'text/csv': { schema: { type: 'string' } } },
}
