// GET /files/commercial-invoices/<orderId>/<shipmentId>.pdf: a cross-border shipment's commercial invoice, made on
// request from what its lab was given (docs/labs.md#customs). Like every file link (files.routes.ts) the signature
// is the authorisation: expired 410 LinkExpired, anything else not signed for this environment 404 EntityNotFound.
import type { FastifyInstance } from 'fastify'
import { COMMERCIAL_INVOICE_KEY_PREFIX, parseCommercialInvoiceKey } from '../../domain/commercial-invoice.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { FILE_PATH_PREFIX, type FileEnvironment, type FileLinks } from '../../domain/signed-urls.ts'
import type { LabsService } from '../../services/labs/labs.service.ts'
import { sendError } from '../errors.ts'
import { checkSignedLink } from './files.routes.ts'

/** The PDF route, beside the file route (a more specific path than its wildcard, so it answers these). */
export function registerCommercialInvoicePdfRoute(
  app: FastifyInstance,
  deps: { labs: Pick<LabsService, 'commercialInvoicePdf'>; links: FileLinks; environment: FileEnvironment },
): void {
  app.get<{ Params: { orderId: string; file: string } }>(
    `${FILE_PATH_PREFIX}${COMMERCIAL_INVOICE_KEY_PREFIX}:orderId/:file`,
    { schema: { hide: true }, config: { auth: false } },
    async (request, reply) => {
      const key = `${COMMERCIAL_INVOICE_KEY_PREFIX}${request.params.orderId}/${request.params.file}`
      const { link, refusal } = checkSignedLink(request, deps, key, 'list the jobs again')
      if (refusal) return sendError(request, reply, refusal)
      const named = parseCommercialInvoiceKey(key)
      const pdf =
        link.status === 'valid' && named
          ? await deps.labs.commercialInvoicePdf(deps.environment, named.orderId, named.shipmentId)
          : undefined
      if (link.status !== 'valid' || !named || !pdf) {
        return sendError(
          request,
          reply,
          new ServiceError('EntityNotFound', 'No such commercial invoice, or the link is not valid'),
        )
      }
      // Caches keep the file no longer than the link works.
      const secondsLeft = Math.max(0, Math.floor((link.expiresAt.getTime() - Date.now()) / 1000))
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="commercial-invoice-${named.shipmentId}.pdf"`)
        .header('cache-control', `private, max-age=${Math.min(86_400, secondsLeft)}`)
        .send(Buffer.from(pdf))
    },
  )
}
