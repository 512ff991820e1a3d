// The web dashboard (docs/dashboard.md): server-rendered pages under /dashboard/ on each environment's port,
// enhanced by htmx where it helps (pages that refresh themselves), working without it. Signing in exchanges
// an API key for a session cookie; every page then reads and changes data through the public /v4.0 API
// (api-client.ts), so the dashboard can do nothing a client of the API cannot.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import formBody from '@fastify/formbody'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailableError } from '../../domain/database-unavailable.ts'
import { type Environment, portOfBaseUrl } from '../../domain/environment.ts'
import { sessionCookieName } from '../../domain/session-cookie.ts'
import {
  csrfTokenOf,
  isCsrfTokenOf,
  SESSION_LIFETIME_SECONDS,
  type SessionsService,
} from '../../services/sessions.service.ts'
import { createApiClient } from '../kit/api-client.ts'
import { html } from '../kit/html.ts'
import { DASHBOARD_PATH, environmentName, type Notice, renderPage } from '../kit/layout.ts'
import { isCrossSite, noticeCookie, safeNextPath, setPageSecurityHeaders } from '../kit/page-replies.ts'
import { registerBillingPage } from './billing.page.ts'
import { registerCataloguePages } from './catalogue.page.ts'
import { registerChannelPages } from './channels.page.ts'
import { registerCheckFilePages } from './check-file.page.ts'
import { registerClaimPages } from './claims.page.ts'
import { developerPageSender, registerDeveloperPages } from './developers.page.ts'
import { registerWebhookPages } from './developers-webhooks.page.ts'
import { registerImportPages } from './imports.page.ts'
import { registerNewOrderPages } from './new-order.page.ts'
import { registerOrderPages } from './order.page.ts'
import { registerOrdersPage } from './orders.page.ts'
import type { Dashboard, SignedIn } from './page-context.ts'
import { renderSignIn } from './sign-in.page.ts'

function noticeCookieName(environment: Environment): string {
  return `printroute_${environment}_notice`
}

export interface DashboardOptions {
  /** The environment's whole server, for in-process calls of its /v4.0 API. */
  api: FastifyInstance
  environment: Environment
  /** `<vendor>` of the event types (`com.<vendor>.order...`). */
  eventVendor: string
  sessions: SessionsService
  publicUrl: (environment: Environment) => string
  /**
   * Counts a sign-in with a key that is not valid against the client address's budget, as the API counts its
   * requests without a valid key (docs/api.md#rate-limits); sets the rate limit headers, and gives the reason
   * once the address has used the budget up.
   */
  limitFailedSignIn?: (request: FastifyRequest, reply: FastifyReply) => Promise<string | undefined>
}

const ASSET_DIR = join(import.meta.dirname, '..', 'kit', 'assets')
const requireFromHere = createRequire(import.meta.url)

function loadAssets(): Map<string, { body: Buffer; type: string }> {
  return new Map([
    ['dashboard.css', { body: readFileSync(join(ASSET_DIR, 'dashboard.css')), type: 'text/css; charset=utf-8' }],
    ['favicon.svg', { body: readFileSync(join(ASSET_DIR, 'favicon.svg')), type: 'image/svg+xml' }],
    [
      'claim-photos.js',
      { body: readFileSync(join(ASSET_DIR, 'claim-photos.js')), type: 'text/javascript; charset=utf-8' },
    ],
    [
      'order-import.js',
      { body: readFileSync(join(ASSET_DIR, 'order-import.js')), type: 'text/javascript; charset=utf-8' },
    ],
    [
      'htmx.min.js',
      {
        body: readFileSync(requireFromHere.resolve('htmx.org/dist/htmx.min.js')),
        type: 'text/javascript; charset=utf-8',
      },
    ],
  ])
}

/** Where to go after signing in: a dashboard path only, never another site (an open redirect). */
const nextAfterSignIn = (next: unknown) => safeNextPath(next, DASHBOARD_PATH, `${DASHBOARD_PATH}/orders`)

export async function registerDashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { environment, sessions } = options
  const cookieName = sessionCookieName(environment)
  const assets = loadAssets()
  const otherEnvironment: Environment = environment === 'live' ? 'sandbox' : 'live'
  const otherDashboardUrl = () => `${options.publicUrl(otherEnvironment)}${DASHBOARD_PATH}/`

  await app.register(formBody)
  app.decorateRequest('signedIn', null as unknown as SignedIn)
  // The dashboard authenticates by its session, not by X-API-Key.
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), auth: false }
  })
  app.addHook('onSend', async (request, reply) => {
    setPageSecurityHeaders(reply, new URL(options.publicUrl(environment)).origin)
    if (!request.url.startsWith(`${DASHBOARD_PATH}/assets/`)) reply.header('cache-control', 'no-store')
  })

  const notices = noticeCookie(noticeCookieName(environment), DASHBOARD_PATH)

  const dashboard: Dashboard = {
    environment,
    eventVendor: options.eventVendor,
    publicUrl: options.publicUrl,
    sendPage(request, reply, page) {
      const signedIn = request.signedIn
      const body = renderPage({
        title: page.title,
        environment,
        content: page.content,
        section: page.section,
        ...(signedIn
          ? {
              session: {
                csrfToken: signedIn.csrfToken,
                keyPrefix: signedIn.caller.keyPrefix,
                scopes: signedIn.caller.scopes,
              },
            }
          : {}),
        notice: page.notice ?? notices.take(request, reply),
        otherDashboardUrl: otherDashboardUrl(),
      })
      return reply
        .code(page.status ?? 200)
        .type('text/html; charset=utf-8')
        .send(body)
    },
    redirect: (reply, path, notice) => notices.redirect(reply, path, notice),
  }

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error instanceof DatabaseUnavailableError) {
      reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS)
      return dashboard.sendPage(request, reply, {
        title: 'Unavailable',
        section: 'orders',
        status: 503,
        content: html`<h1>The database is unavailable</h1>
          <p>printroute cannot reach its database just now. Try again in a few seconds.</p>
          <p class="muted">Trace: <code>${request.traceParent}</code></p>`,
      })
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error({ err: error }, 'dashboard page failed')
    return dashboard.sendPage(request, reply, {
      title: status === 500 ? 'Something went wrong' : 'Bad request',
      section: 'orders',
      status,
      content: html`<h1>${status === 500 ? 'Something went wrong' : 'That request could not be read'}</h1>
        <p>${status === 500 ? 'printroute could not show this page.' : error.message}</p>
        <p class="muted">Trace: <code>${request.traceParent}</code></p>`,
    })
  })
  app.setNotFoundHandler((request, reply) =>
    dashboard.sendPage(request, reply, {
      title: 'Not found',
      section: 'orders',
      status: 404,
      content: html`<h1>Not found</h1><p>There is no dashboard page at <code>${request.url}</code>.</p>
        <p><a href="${DASHBOARD_PATH}/orders">Go to the orders</a></p>`,
    }),
  )

  app.get('/', (_request, reply) => reply.redirect(`${DASHBOARD_PATH}/orders`))
  app.get<{ Params: { name: string } }>('/assets/:name', (request, reply) => {
    const asset = assets.get(request.params.name)
    if (!asset) return reply.callNotFound()
    return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body)
  })

  registerSignInPages()

  /** The sign-in page and its form, served without a session. */
  function registerSignInPages(): void {
    const sendSignIn = (
      request: FastifyRequest,
      reply: FastifyReply,
      input: { next: string; error?: Notice | null; status?: number },
    ) =>
      dashboard.sendPage(request, reply, {
        title: 'Sign in',
        section: 'sign-in',
        status: input.status ?? 200,
        notice: input.error ?? null,
        content: renderSignIn({ environment, next: input.next, otherDashboardUrl: otherDashboardUrl() }),
      })

    app.get<{ Querystring: { next?: string } }>('/sign-in', (request, reply) =>
      sendSignIn(request, reply, { next: nextAfterSignIn(request.query.next) }),
    )

    app.post<{ Body: { apiKey?: unknown; next?: unknown } }>('/sign-in', async (request, reply) => {
      const next = nextAfterSignIn(request.body?.next)
      if (isCrossSite(request)) return sendSignIn(request, reply, { next, status: 403, error: crossSiteNotice })
      const apiKey = typeof request.body?.apiKey === 'string' ? request.body.apiKey.trim() : ''
      if (apiKey === '') {
        return sendSignIn(request, reply, { next, status: 400, error: { kind: 'error', text: 'Enter an API key.' } })
      }
      const result = await sessions.signIn(apiKey, environment)
      if (!result.signedIn) {
        const limited = await options.limitFailedSignIn?.(request, reply)
        if (limited !== undefined) {
          return sendSignIn(request, reply, { next, status: 429, error: { kind: 'error', text: limited } })
        }
        const text =
          result.reason === 'accountSuspended'
            ? "That key's account is suspended, so it cannot sign in. Contact the operator of this printroute."
            : result.reason === 'otherEnvironment'
              ? `That is a ${environmentName(result.keyEnvironment)} key, and this is the ${environmentName(environment)} dashboard. ` +
                `Sign in here with a ${environmentName(environment)} key, or use the ${environmentName(result.keyEnvironment)} dashboard at ${otherDashboardUrl()} (port ${portOfBaseUrl(options.publicUrl(otherEnvironment))}).`
              : `That API key is not valid: it is unknown or has been revoked. Use a ${environmentName(environment)} key (pr_${environment}_…).`
        return sendSignIn(request, reply, { next, status: 401, error: { kind: 'error', text } })
      }
      reply.setCookie(cookieName, result.token, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        // Secure when the browser reaches printroute over HTTPS: directly, or through a proxy named by --public-url.
        secure: request.protocol === 'https' || options.publicUrl(environment).startsWith('https:'),
        maxAge: SESSION_LIFETIME_SECONDS,
      })
      return reply.code(303).redirect(next)
    })
  }

  /** A change refused for coming from another site or without the session's CSRF token. */
  const sendRefused = (request: FastifyRequest, reply: FastifyReply) =>
    dashboard.sendPage(request, reply, {
      title: 'Refused',
      section: 'orders',
      status: 403,
      content: html`<h1>Refused</h1><p>${crossSiteNotice.text}</p>`,
    })

  app.post<{ Body: { _csrf?: unknown } }>('/sign-out', async (request, reply) => {
    const token = request.cookies[cookieName]
    // Signing out needs the CSRF token too: another site's form must neither end the session nor clear its
    // cookie (a cross-site post carries no SameSite=Strict cookie, but its answer could still clear it).
    if (isCrossSite(request) || (token !== undefined && !isCsrfTokenOf(token, request.body?._csrf))) {
      return sendRefused(request, reply)
    }
    if (token !== undefined) {
      await sessions.signOut(token)
      reply.clearCookie(cookieName, { path: '/' })
    }
    return dashboard.redirect(reply, '/sign-in', { kind: 'info', text: 'You are signed out.' })
  })

  // Everything else needs a session.
  await app.register(async (pages) => {
    pages.addHook('preHandler', async (request, reply) => {
      const token = request.cookies[cookieName]
      const caller = token ? await sessions.authenticate(token, environment) : undefined
      if (!token || !caller) {
        const next = request.method === 'GET' ? request.url : `${DASHBOARD_PATH}/orders`
        const target = `${DASHBOARD_PATH}/sign-in?next=${encodeURIComponent(next)}`
        // htmx follows a redirect inside the swapped region; tell it to load the sign-in page instead.
        if (request.headers['hx-request']) return reply.header('hx-redirect', target).code(204).send()
        if (token) {
          reply.clearCookie(cookieName, { path: '/' })
          return dashboard.redirect(reply, `/sign-in?next=${encodeURIComponent(next)}`, {
            kind: 'info',
            text: 'Your session has ended (it expired, its key was revoked or its account was suspended). Sign in again.',
          })
        }
        return reply.code(303).redirect(target)
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const body = request.body as { _csrf?: unknown } | undefined
        if (isCrossSite(request) || !isCsrfTokenOf(token, body?._csrf)) return sendRefused(request, reply)
      }
      const csrfToken = csrfTokenOf(token)
      request.signedIn = {
        caller,
        csrfToken,
        api: createApiClient(options.api, {
          cookieName,
          sessionToken: token,
          csrfToken,
          traceParent: request.traceParent,
        }),
      }
    })
    registerOrdersPage(pages, dashboard)
    registerOrderPages(pages, dashboard)
    registerClaimPages(pages, dashboard)
    registerNewOrderPages(pages, dashboard)
    registerCataloguePages(pages, dashboard)
    registerCheckFilePages(pages, dashboard)
    registerImportPages(pages, dashboard)
    registerChannelPages(pages, dashboard)
    registerBillingPage(pages, dashboard)
    registerDeveloperPages(pages, dashboard)
    registerWebhookPages(pages, dashboard, developerPageSender(dashboard, 'webhooks'))
  })
}

const crossSiteNotice: Notice = {
  kind: 'error',
  text: 'This form was not sent from this dashboard page (its security token is missing or stale). Reload the page and try again.',
}
