// CSV order imports (printroute's own, additive to the Prodigi API, docs/imports.md): POST /orders/imports takes a
// text/csv body (at most MAX_IMPORT_BYTES, 413 beyond) and answers the import Pending at once; the
// run-order-import job creates its orders. GET the import for its counts, results.csv for each row's order or
// failures, template.csv for the columns.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  csvLine,
  importTemplateCsv,
  MAX_IMPORT_BYTES,
  RESULTS_COLUMNS,
  resultsCsvLine,
} from '../../domain/order-imports.ts'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import type { OrderImportsService } from '../../services/order-imports.service.ts'
import { nextCursorPageUrl } from '../paging.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema, ErrorResponses } from '../schemas/common.schema.ts'
import {
  CreateImportQuerySchema,
  CreateImportResponseSchema,
  CsvResponse,
  ImportIdParamsSchema,
  ImportResponseSchema,
  ListImportsQuerySchema,
  ListImportsResponseSchema,
} from '../schemas/order-imports.schema.ts'

const CSV_CONTENT_TYPES = ['text/csv']

function wrongContentType(contentType: string | undefined): ServiceError {
  return new ServiceError(
    'InvalidContentType',
    `An import must be sent as text/csv (got ${contentType ?? 'no Content-Type'})`,
    { field: 'Content-Type', validValues: CSV_CONTENT_TYPES },
  )
}

export function registerOrderImportRoutes(app: FastifyInstance, imports: OrderImportsService): void {
  app.register(async (scoped) => registerUpload(scoped, imports))
  registerReads(app, imports)
}

function registerUpload(app: FastifyInstance, imports: OrderImportsService): void {
  // Buffered up to the limit, never past it: a longer body is refused with 413 as its length is declared, or as soon
  // as a chunked one goes past it (http/errors.ts), so a 50 MB upload is never held.
  app.addContentTypeParser(
    CSV_CONTENT_TYPES,
    { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES },
    (_request, body, done) => done(null, body),
  )
  app.addContentTypeParser('*', (request, _payload, done) => done(wrongContentType(request.headers['content-type'])))
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/orders/imports',
    {
      config: { scope: 'orders:write' },
      bodyLimit: MAX_IMPORT_BYTES,
      schema: {
        operationId: 'createOrderImport',
        tags: ['orders'],
        summary: 'Import orders from a CSV file',
        description:
          `The CSV file itself as the body (text/csv, UTF-8, at most ${MAX_IMPORT_BYTES} bytes: 413 beyond), one ` +
          'row per line item, rows of one order consecutive and sharing its merchantReference (docs/imports.md; ' +
          'the columns in GET /orders/imports/template.csv). Answers the import at once, Pending; GET it until ' +
          'Completed or Failed. An empty body, a file in another delimiter, an unknown or repeated column or no ' +
          'merchantReference column is 400 naming it, and nothing is imported.',
        querystring: CreateImportQuerySchema,
        response: {
          200: CreateImportResponseSchema,
          413: ErrorResponseSchema,
          415: ErrorResponseSchema,
          ...ErrorResponses,
        },
      },
    },
    async (request) => {
      const body = request.body
      if (!Buffer.isBuffer(body)) {
        if (body === undefined) throw validationFailed({ body: [{ code: 'Required', providedValue: null }] })
        throw wrongContentType(request.headers['content-type'])
      }
      const created = await imports.createImport(
        request.caller,
        body,
        request.query.fileName ?? null,
        request.query.approval ?? 'automatic',
      )
      return outcomeReply(request, 'Created', { import: created })
    },
  )
}

function registerReads(app: FastifyInstance, imports: OrderImportsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/orders/imports',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listOrderImports',
        tags: ['orders'],
        summary: "The account's order imports, newest first",
        description: 'nextUrl continues with older imports (the `before` cursor).',
        querystring: ListImportsQuerySchema,
        response: { 200: ListImportsResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const page = await imports.listImports(request.caller, {
        before: request.query.before ?? null,
        top: request.query.top ?? 10,
      })
      const nextUrl = page.nextBefore === null ? null : nextCursorPageUrl(request, 'before', page.nextBefore)
      return outcomeReply(request, 'Ok', { imports: page.imports, hasMore: page.hasMore, nextUrl })
    },
  )

  api.get(
    '/orders/imports/template.csv',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderImportTemplate',
        tags: ['orders'],
        summary: 'The CSV template of an import',
        description: 'Every column an import takes, with one example order of two rows (docs/imports.md).',
        response: { 200: CsvResponse, ...ErrorResponses },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="printroute-import-template.csv"')
        .send(importTemplateCsv()),
  )

  api.get(
    '/orders/imports/:importId',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderImport',
        tags: ['orders'],
        summary: 'Get an order import',
        description: "The import's status and counts, updated as its rows are read. Another account's import is 404.",
        params: ImportIdParamsSchema,
        response: { 200: ImportResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { import: await imports.getImport(request.caller, request.params.importId) }),
  )

  api.get(
    '/orders/imports/:importId/results.csv',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderImportResults',
        tags: ['orders'],
        summary: "An import's results, one line per row",
        description:
          'Columns row, merchantReference, outcome (Created, Duplicate or Failed), orderId and errors (each ' +
          '`field: Code (value)`, `row N` first when it is about another row of the same order). The rows read so ' +
          "far while the import runs. Another account's import is 404.",
        params: ImportIdParamsSchema,
        response: { 200: CsvResponse, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const pages = await imports.importResults(request.caller, request.params.importId)
      // Streamed a page of rows at a time: a 50,000-row import's results are never held whole.
      async function* lines() {
        yield csvLine(RESULTS_COLUMNS)
        for await (const page of pages) yield page.map(resultsCsvLine).join('')
      }
      const stream = ReadableStream.from(lines())
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${request.params.importId}-results.csv"`)
        .send(stream)
    },
  )
}
