// What the lab portal and the operator console do alike as sites a person signs in to with a credential of their
// own (a lab key, an operator token): the sign-in and sign-out routes, the session check and CSRF check before every
// page behind sign-in, and the pages for errors and unknown paths, all registered by registerSessionSite. Each site
// keeps its own shell, cookie, path and wording; the dashboard (API keys, two environments) has its own plugin.
import formBody from '@fastify/formbody'
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailableError } from '../../domain/database-unavailable.ts'
import { csrfTokenOf, isCsrfTokenOf, SESSION_LIFETIME_SECONDS } from '../../services/sessions.service.ts'
import { type Html, html } from './html.ts'
import type { Notice } from './layout.ts'
import { isCrossSite, safeNextPath, setPageSecurityHeaders } from './page-replies.ts'

/** A page the site's own shell renders (its navigation, its footer). */
export interface SitePage {
  title: string
  content: Html
  status?: number
  notice?: Notice | null
}

export interface SessionSite<Who> {
  /** Where the site is served (`/admin`, `/labs/portal`): the cookie's path, and where sign-in may send back to. */
  path: string
  /** Where signing in leads when no page asked for it. */
  home: string
  /** The session cookie's name: the site's own, so no other site's session meets it. */
  cookie: string
  /** The sign-in form's field, the credential's prefix, and the site's words for its refusals. */
  credential: {
    field: string
    prefix: string
    /** `Enter an operator token.` */
    missing: string
    /** A credential of the site's kind that is unknown or revoked. */
    invalid: string
    /** Something else (a merchant's API key): says what the site takes. */
    wrongKind: string
  }
  /** The notice when a session is no longer valid: it expired, or its credential was revoked. */
  sessionEnded: string
  /** The notice of a form sent from another site, or with a missing or stale CSRF token. */
  crossSite: Notice
  signIn(credential: string): Promise<{ token: string } | undefined>
  authenticate(token: string): Promise<Who | undefined>
  signOut(token: string): Promise<void>
  /** The site's public address: its cookie is `Secure` when that is https. */
  publicUrl(): string
  /** Counts a failed sign-in against the address's budget; the refusal's text when over it. */
  limitFailedSignIn?: (request: FastifyRequest, reply: FastifyReply) => Promise<string | undefined>
  /** Sends a page in the site's shell. */
  send(request: FastifyRequest, reply: FastifyReply, page: SitePage): FastifyReply
  /** Redirects (303) to a path under the site's, leaving `notice` for the page there. */
  redirect(reply: FastifyReply, path: string, notice?: Notice): FastifyReply
  /** The sign-in page's content. */
  renderSignIn(next: string): Html
}

/** Where to go after signing in: a path of the site only, never another site (an open redirect). */
function nextAfterSignIn<Who>(site: SessionSite<Who>, next: unknown): string {
  return safeNextPath(next, site.path, site.home)
}

function sendRefused<Who>(site: SessionSite<Who>, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return site.send(request, reply, {
    title: 'Refused',
    status: 403,
    content: html`<h1>Refused</h1><p>${site.crossSite.text}</p>`,
  })
}

/**
 * The site's pages for an error (the database away: 503 with Retry-After; a bad request: its message; anything
 * else: 500 with the trace, logged) and for a path it does not have.
 */
function registerSiteErrorPages<Who>(
  app: FastifyInstance,
  site: SessionSite<Who>,
  notFound: { what: string; homeLink: Html },
): void {
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof DatabaseUnavailableError) {
      reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS)
      return site.send(request, reply, {
        title: 'Unavailable',
        status: 503,
        content: html`<h1>The database is unavailable</h1>
          <p>printroute cannot reach its database just now. Try again in a few seconds.</p>`,
      })
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error({ err: error }, `${notFound.what} failed`)
    return site.send(request, reply, {
      title: status === 500 ? 'Something went wrong' : 'Bad request',
      status,
      content: html`<h1>${status === 500 ? 'Something went wrong' : 'That request could not be read'}</h1>
        <p>${status === 500 ? 'printroute could not show this page.' : error.message}</p>
        <p class="muted">Trace: <code>${request.traceParent}</code></p>`,
    })
  })
  app.setNotFoundHandler((request, reply) =>
    site.send(request, reply, {
      title: 'Not found',
      status: 404,
      content: html`<h1>Not found</h1><p>There is no ${notFound.what} at <code>${request.url}</code>.</p>
        <p>${notFound.homeLink}</p>`,
    }),
  )
}

/**
 * GET and POST /sign-in (the credential exchanged for a session cookie; failures counted against the address's
 * budget; another site's form refused) and POST /sign-out (which needs the CSRF token too: another site's form must
 * neither end the session nor clear its cookie).
 */
function registerSignInRoutes<Who>(app: FastifyInstance, site: SessionSite<Who>): void {
  const sendSignIn = (
    request: FastifyRequest,
    reply: FastifyReply,
    input: { next: string; error?: Notice | null; status?: number },
  ) =>
    site.send(request, reply, {
      title: 'Sign in',
      status: input.status ?? 200,
      notice: input.error ?? null,
      content: site.renderSignIn(input.next),
    })

  app.get<{ Querystring: { next?: string } }>('/sign-in', (request, reply) =>
    sendSignIn(request, reply, { next: nextAfterSignIn(site, request.query.next) }),
  )

  app.post<{ Body: Record<string, unknown> | undefined }>('/sign-in', async (request, reply) => {
    const next = nextAfterSignIn(site, request.body?.next)
    if (isCrossSite(request)) return sendSignIn(request, reply, { next, status: 403, error: site.crossSite })
    const given = request.body?.[site.credential.field]
    const credential = typeof given === 'string' ? given.trim() : ''
    if (credential === '') {
      return sendSignIn(request, reply, { next, status: 400, error: { kind: 'error', text: site.credential.missing } })
    }
    const ofTheKind = credential.startsWith(site.credential.prefix)
    const session = ofTheKind ? await site.signIn(credential) : undefined
    if (!session) {
      const limited = await site.limitFailedSignIn?.(request, reply)
      if (limited !== undefined) {
        return sendSignIn(request, reply, { next, status: 429, error: { kind: 'error', text: limited } })
      }
      const text = ofTheKind ? site.credential.invalid : site.credential.wrongKind
      return sendSignIn(request, reply, { next, status: 401, error: { kind: 'error', text } })
    }
    reply.setCookie(site.cookie, session.token, {
      path: site.path,
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https' || site.publicUrl().startsWith('https:'),
      maxAge: SESSION_LIFETIME_SECONDS,
    })
    return reply.code(303).redirect(next)
  })

  app.post<{ Body: { _csrf?: unknown } | undefined }>('/sign-out', async (request, reply) => {
    const token = request.cookies[site.cookie]
    if (isCrossSite(request) || (token !== undefined && !isCsrfTokenOf(token, request.body?._csrf))) {
      return sendRefused(site, request, reply)
    }
    if (token !== undefined) {
      await site.signOut(token)
      reply.clearCookie(site.cookie, { path: site.path })
    }
    return site.redirect(reply, '/sign-in', { kind: 'info', text: 'You are signed out.' })
  })
}

/**
 * The check before every page behind sign-in: a valid session (looked up on every request, so a revoked credential
 * ends it at once), else to the sign-in page (with a notice when a session ended); for a change, the CSRF token and
 * the site's own origin. `signedIn` stores who it is on the request for the pages.
 */
function sessionGuard<Who>(
  site: SessionSite<Who>,
  signedIn: (request: FastifyRequest, who: Who, csrfToken: string) => void,
): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const token = request.cookies[site.cookie]
    const who = token ? await site.authenticate(token) : undefined
    if (!token || !who) {
      const next = request.method === 'GET' ? request.url : site.home
      const signInPath = `/sign-in?next=${encodeURIComponent(next)}`
      if (token) {
        reply.clearCookie(site.cookie, { path: site.path })
        return site.redirect(reply, signInPath, { kind: 'info', text: site.sessionEnded })
      }
      return reply.code(303).redirect(`${site.path}${signInPath}`)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // A form carries the token in its body; a page's script sending a raw body (a photo) in X-CSRF-Token.
      const body = request.body as { _csrf?: unknown } | undefined
      const given = Buffer.isBuffer(body) ? request.headers['x-csrf-token'] : body?._csrf
      if (isCrossSite(request) || !isCsrfTokenOf(token, given)) return sendRefused(site, request, reply)
    }
    signedIn(request, who, csrfTokenOf(token))
  }
}

/** What a site adds to the set-up every session site shares (registerSessionSite). */
export interface SessionSiteRoutes<Who> {
  /** The origins the site's pages may show images from (their Content-Security-Policy), space-separated. */
  imageOrigins(): string
  /** Whether an answer may be cached (the site's own assets); every other answer is `no-store`. */
  cacheable?: (url: string) => boolean
  /** The error pages' words: what the site's pages are called, and the not-found page's way home. */
  notFound: { what: string; homeLink: Html }
  /** Routes open without a session besides sign-in and sign-out (the console's assets). */
  openRoutes?: (app: FastifyInstance) => void
  /** Stores who signed in on the request, for the pages. */
  signedIn(request: FastifyRequest, who: Who, csrfToken: string): void
  /** Registers the pages behind sign-in on their scope: every request there has a session and passed the CSRF check. */
  pages(pages: FastifyInstance): void | Promise<void>
}

/**
 * Registers a session site on `app` (a scope whose prefix is `site.path`): form bodies, pages that authenticate by
 * the site's session rather than by X-API-Key (on the Live server, whose API checks keys), the pages' security
 * headers, the error pages, `/` leading to the site's home, sign-in and sign-out, and the pages behind the session
 * guard.
 */
export async function registerSessionSite<Who>(
  app: FastifyInstance,
  site: SessionSite<Who>,
  routes: SessionSiteRoutes<Who>,
): Promise<void> {
  await app.register(formBody)
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), auth: false }
  })
  app.addHook('onSend', async (request, reply) => {
    setPageSecurityHeaders(reply, routes.imageOrigins())
    if (!routes.cacheable?.(request.url)) reply.header('cache-control', 'no-store')
  })
  registerSiteErrorPages(app, site, routes.notFound)
  app.get('/', (_request, reply) => reply.redirect(site.home))
  routes.openRoutes?.(app)
  registerSignInRoutes(app, site)

  // Everything else needs a session.
  await app.register(async (pages) => {
    pages.addHook('preHandler', sessionGuard(site, routes.signedIn))
    await routes.pages(pages)
  })
}
