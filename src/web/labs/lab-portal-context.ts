// What the lab portal's pages receive from the plugin that registers them (lab-portal.plugin.ts): the signed-in
// lab and the means to answer with a page. Its own module, so that the pages and the plugin do not import each
// other.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LabSessionCaller } from '../../services/sessions.service.ts'
import type { Notice } from '../kit/layout.ts'
import type { SitePage } from '../kit/session-site.ts'

/** Where the portal is served on the Live port. */
export const LAB_PORTAL_PATH = '/labs/portal'

export interface SignedInLab {
  lab: LabSessionCaller
  csrfToken: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every lab portal page behind sign-in. */
    signedInLab: SignedInLab
  }
}

/** A portal page: what every signed-in site's page has. */
export type PortalPage = SitePage

/** What the portal's pages use to answer: the shell, and notices carried across a redirect. */
export interface Portal {
  sendPage(request: FastifyRequest, reply: FastifyReply, page: PortalPage): FastifyReply
  /** Redirects (303) to a portal path, showing `notice` on the page it lands on. */
  redirect(reply: FastifyReply, path: string, notice?: Notice): FastifyReply
}
