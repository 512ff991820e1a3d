// GET /orders/{orderId}/invoices (printroute's own, additive to the Prodigi API): the order's invoices and credit
// notes with signed PDF links; GET /files/invoices/<number>.pdf serves a PDF under such a link. Like every file
// link (files.routes.ts) the signature is the authorisation: expired 410 LinkExpired, anything else not signed
// for this environment 404 EntityNotFound (docs/billing.md#invoices).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { INVOICE_PDF_KEY_PREFIX, invoicePdfKey } from '../../domain/invoices.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { FILE_PATH_PREFIX, type FileEnvironment, type FileLinks } from '../../domain/signed-urls.ts'
import type { InvoicesService } from '../../services/invoices.service.ts'
import { sendError } from '../errors.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { InvoicesResponseSchema } from '../schemas/invoices.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'
import { checkSignedLink } from './files.routes.ts'

export function registerInvoiceRoutes(app: FastifyInstance, invoices: InvoicesService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/orders/:orderId/invoices',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listOrderInvoices',
        tags: ['orders'],
        summary: "The order's invoices and credit notes, one per charge, with links to their PDFs",
        params: OrderIdParamsSchema,
        response: { 200: InvoicesResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { invoices: await invoices.listForOrder(request.caller, request.params.orderId) }),
  )
}

/** The PDF route, beside the file route (a more specific path than its wildcard, so it answers these). */
export function registerInvoicePdfRoute(
  app: FastifyInstance,
  deps: { invoices: Pick<InvoicesService, 'pdfOf'>; links: FileLinks; environment: FileEnvironment },
): void {
  app.get<{ Params: { file: string } }>(
    `${FILE_PATH_PREFIX}${INVOICE_PDF_KEY_PREFIX}:file`,
    { schema: { hide: true }, config: { auth: false } },
    async (request, reply) => {
      const number = request.params.file.endsWith('.pdf') ? request.params.file.slice(0, -'.pdf'.length) : ''
      const { link, refusal } = checkSignedLink(request, deps, invoicePdfKey(number), "list the order's invoices again")
      if (refusal) return sendError(request, reply, refusal)
      const found = link.status === 'valid' ? await deps.invoices.pdfOf(number) : undefined
      if (link.status !== 'valid' || !found || found.content.environment !== deps.environment) {
        return sendError(
          request,
          reply,
          new ServiceError('EntityNotFound', 'No such invoice, or the link is not valid'),
        )
      }
      const secondsLeft = Math.max(0, Math.floor((link.expiresAt.getTime() - Date.now()) / 1000))
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${number}.pdf"`)
        .header('cache-control', `private, max-age=${Math.min(86_400, secondsLeft)}`)
        .send(Buffer.from(found.pdf))
    },
  )
}
