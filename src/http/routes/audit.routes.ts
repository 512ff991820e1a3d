// The account's audit trail (docs/audit.md): GET /v4.0/account/audit?action=&from=&to=&before=&top= lists the
// caller's account's entries of both environments, newest first, a page at a time (`nextUrl` continues with older
// entries). Always the caller's account: another account's entries are never found.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AuditEntry } from '../../domain/audit.ts'
import type { AuditService } from '../../services/audit.service.ts'
import { nextCursorPageUrl } from '../paging.ts'
import { outcomeReply } from '../replies.ts'
import { AuditListResponseSchema, ListAuditQuerySchema } from '../schemas/audit.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'

export function registerAuditRoutes(app: FastifyInstance, audit: AuditService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/account/audit',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'listAuditEntries',
        tags: ['account'],
        summary: "The account's audit trail (both environments), newest first: who changed what, and when",
        querystring: ListAuditQuerySchema,
        response: { 200: AuditListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { action, from, to, before, top } = request.query
      const page = await audit.listForCaller(request.caller, {
        ...(action ? { actions: action } : {}),
        ...(from ? { from: new Date(from) } : {}),
        ...(to ? { to: new Date(to) } : {}),
        ...(before !== undefined ? { before } : {}),
        ...(top !== undefined ? { top } : {}),
      })
      return outcomeReply(request, 'Ok', {
        entries: page.entries.map(withoutAccount),
        hasMore: page.hasMore,
        nextUrl: page.nextBefore === null ? null : nextCursorPageUrl(request, 'before', page.nextBefore),
      })
    },
  )
}

/** The caller's own entries need not name their account. */
function withoutAccount({ accountId: _accountId, ...entry }: AuditEntry): Omit<AuditEntry, 'accountId'> {
  return entry
}
