// What a page module receives from the plugin that registers it (dashboard.plugin.ts): the signed-in request's
// session and API client, and the means to answer with a page. Its own module, so that the pages and the plugin
// do not import each other.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Environment } from '../../domain/environment.ts'
import type { SessionCaller } from '../../services/sessions.service.ts'
import type { ApiClient } from '../kit/api-client.ts'
import type { html } from '../kit/html.ts'
import type { Notice, Section } from '../kit/layout.ts'

/** What a page handler of a signed-in request has. */
export interface SignedIn {
  caller: SessionCaller
  csrfToken: string
  api: ApiClient
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every dashboard page behind sign-in. */
    signedIn: SignedIn
  }
}

export interface PageOptions {
  title: string
  section: Section
  content: ReturnType<typeof html>
  status?: number
  notice?: Notice | null
}

/** What page modules use to answer: the shell, notices carried across a redirect, the options. */
export interface Dashboard {
  environment: Environment
  /** `<vendor>` of the event types (`com.<vendor>.order...`): the webhook filters' known types. */
  eventVendor: string
  publicUrl: (environment: Environment) => string
  sendPage(request: FastifyRequest, reply: FastifyReply, page: PageOptions): FastifyReply
  /** Redirects (303) to a dashboard path, showing `notice` on the page it lands on. */
  redirect(reply: FastifyReply, path: string, notice?: Notice): FastifyReply
}
