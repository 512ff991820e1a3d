// What the operator console's pages receive from the plugin that registers them (admin.plugin.ts): the signed-in
// operator and the means to answer with a page. Its own module, so that the pages and the plugin do not import
// each other. Each page module exports `register<Section>Pages(pages, console, deps)`: `pages` is the plugin's
// scope behind sign-in (every request has `signedInOperator`, every POST has passed the CSRF check), `deps` is
// what the page needs: its section as domain/console-sections.ts declares it, filled by app/web.ts from the
// services.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AuditActor } from '../../domain/audit.ts'
import type { Notice } from '../kit/layout.ts'
import type { SitePage } from '../kit/session-site.ts'

/** Where the console is served (on the Live port, or on its own port when `--admin-port` is set). */
export const ADMIN_PATH = '/admin'

/** The console's sections, in the navigation's order; each page says which one it belongs to. */
export const ADMIN_SECTIONS = [
  'accounts',
  'orders',
  'attention',
  'claims',
  'labs',
  'catalogue',
  'invoices',
  'revenue',
  'callbacks',
  'channels',
  'audit',
  'operators',
] as const
export type AdminSection = (typeof ADMIN_SECTIONS)[number]

export interface SignedInOperator {
  operator: { id: string; name: string }
  csrfToken: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every console page behind sign-in. */
    signedInOperator: SignedInOperator
  }
}

/** A console page: what every signed-in site's page has, and the section it belongs to. */
export interface AdminPage extends SitePage {
  section: AdminSection
}

/** What the console's pages use to answer: the shell, and notices carried across a redirect. */
export interface AdminConsole {
  sendPage(request: FastifyRequest, reply: FastifyReply, page: AdminPage): FastifyReply
  /** Redirects (303) to a console path (`/admin/...`), showing `notice` on the page it lands on. */
  redirect(reply: FastifyReply, path: string, notice?: Notice): FastifyReply
}

/** The signed-in operator as the actor the audit trail names for a change made on a page. */
export function operatorOf(request: FastifyRequest): AuditActor {
  const { operator } = request.signedInOperator
  return { kind: 'operator', operatorId: operator.id, name: operator.name }
}

/** A posted form as the pages receive it (formbody). */
export type Form = Record<string, string | string[] | undefined> | undefined

/** A form field's text, trimmed; empty when it is missing or repeated. */
export function field(body: Form, name: string): string {
  const value = body?.[name]
  return typeof value === 'string' ? value.trim() : ''
}
