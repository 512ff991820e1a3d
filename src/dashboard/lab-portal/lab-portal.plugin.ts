// The lab portal (docs/labs.md#the-lab-portal): server-rendered pages under /labs/portal/ on the Live port, for a print
// shop without programmers. Signing in exchanges a lab key for a session (the dashboard's sessions, of the lab
// kind); the browser keeps only the session id, never the key. Pages read and report through the lab
// operations the lab API uses (`PortalLabs`, filled by app.ts with the labs service), so the portal can do
// nothing the lab API cannot. The dashboard's stylesheet, htmx-free markup, CSP and CSRF rules apply.
import formBody from '@fastify/formbody'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailableError } from '../../domain/database-unavailable.ts'
import {
  csrfTokenOf,
  isCsrfTokenOf,
  SESSION_LIFETIME_SECONDS,
  type SessionsService,
} from '../../services/sessions.service.ts'
import { type Html, html } from '../html.ts'
import { DASHBOARD_PATH, type Notice, noticeBox } from '../layout.ts'
import { isCrossSite, noticeCookie, safeNextPath, setPageSecurityHeaders } from '../page-replies.ts'
import { type PortalLabs, registerPortalPages } from './lab-portal.pages.ts'
import { LAB_PORTAL_PATH, type Portal, type PortalPage, type SignedInLab } from './lab-portal-context.ts'

/** The portal's session cookie: its own name and path, so a merchant's dashboard session never meets it. */
export const LAB_SESSION_COOKIE = 'printroute_lab_session'
const NOTICE_COOKIE = 'printroute_lab_notice'

export interface LabPortalOptions {
  sessions: SessionsService
  labs: PortalLabs
  /** The Live server's public URL: the signed print file links (previews) are served from it. */
  publicUrl: () => string
  /** Counts a sign-in with a key that is not valid against the address's budget, as the dashboard does. */
  limitFailedSignIn?: (request: FastifyRequest, reply: FastifyReply) => Promise<string | undefined>
}

const crossSiteNotice: Notice = {
  kind: 'error',
  text: 'This form was not sent from this portal page (its security token is missing or stale). Reload the page and try again.',
}

function renderPortalPage(page: PortalPage & { signedIn?: SignedInLab | null; notice: Notice | null }): string {
  const signedIn = page.signedIn
  const navigation = signedIn
    ? html`<nav aria-label="Main"><ul><li><a href="${LAB_PORTAL_PATH}/jobs"${page.title === 'Jobs' ? html` aria-current="page"` : ''}>Jobs</a></li></ul></nav>
<form class="sign-out" method="post" action="${LAB_PORTAL_PATH}/sign-out"><input type="hidden" name="_csrf" value="${signedIn.csrfToken}"><button type="submit" class="button-quiet">Sign out</button></form>`
    : html``
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · printroute lab portal</title>
<link rel="stylesheet" href="${DASHBOARD_PATH}/assets/dashboard.css">
<link rel="icon" href="${DASHBOARD_PATH}/assets/favicon.svg" type="image/svg+xml">
</head>
<body class="environment-live lab-portal">
<a class="skip-link" href="#main">Skip to content</a>
<header class="top-bar">
<a class="brand" href="${LAB_PORTAL_PATH}/jobs">printroute</a>
<span class="environment-badge" title="The lab portal shows Live jobs">${signedIn ? `Lab ${signedIn.lab.labCode}` : 'Lab portal'}</span>
${navigation}
</header>
<main id="main" tabindex="-1">
${noticeBox(page.notice)}
${page.content}
</main>
<footer class="page-footer">
${signedIn ? html`<span>Signed in with lab key <code>${signedIn.lab.keyPrefix}…</code></span>` : ''}
<a href="/docs">API reference</a>
</footer>
</body>
</html>
`.text
}

/** Where to go after signing in: a portal path only, never another site (an open redirect). */
const nextAfterSignIn = (next: unknown) => safeNextPath(next, LAB_PORTAL_PATH, `${LAB_PORTAL_PATH}/jobs`)

function renderSignIn(next: string): Html {
  return html`<section class="sign-in card">
<h1>Sign in to the lab portal</h1>
<p>Use your lab key (<code>pr_lab_…</code>), the one printroute's operator gave you. The key is exchanged for a
session: the browser keeps only the session, never the key.</p>
<form method="post" action="${LAB_PORTAL_PATH}/sign-in" class="stack">
<input type="hidden" name="next" value="${next}">
<label for="lab-key">Lab key</label>
<input id="lab-key" name="labKey" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">No key yet? The operator makes one with <code>printroute labs keys create --lab CODE</code>.</p>
</section>`
}

export async function registerLabPortal(app: FastifyInstance, options: LabPortalOptions): Promise<void> {
  const { sessions } = options
  await app.register(formBody)
  app.decorateRequest('signedInLab', null as unknown as SignedInLab)
  // The portal authenticates by its session, not by X-API-Key.
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), auth: false }
  })
  app.addHook('onSend', async (_request, reply) => {
    setPageSecurityHeaders(reply, new URL(options.publicUrl()).origin)
    reply.header('cache-control', 'no-store')
  })

  const notices = noticeCookie(NOTICE_COOKIE, LAB_PORTAL_PATH)

  const portal: Portal = {
    sendPage(request, reply, page) {
      const body = renderPortalPage({
        ...page,
        signedIn: request.signedInLab,
        notice: page.notice ?? notices.take(request, reply),
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
      return portal.sendPage(request, reply, {
        title: 'Unavailable',
        status: 503,
        content: html`<h1>The database is unavailable</h1>
          <p>printroute cannot reach its database just now. Try again in a few seconds.</p>`,
      })
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (status === 500) request.log.error({ err: error }, 'lab portal page failed')
    return portal.sendPage(request, reply, {
      title: status === 500 ? 'Something went wrong' : 'Bad request',
      status,
      content: html`<h1>${status === 500 ? 'Something went wrong' : 'That request could not be read'}</h1>
        <p>${status === 500 ? 'printroute could not show this page.' : error.message}</p>
        <p class="muted">Trace: <code>${request.traceParent}</code></p>`,
    })
  })
  app.setNotFoundHandler((request, reply) =>
    portal.sendPage(request, reply, {
      title: 'Not found',
      status: 404,
      content: html`<h1>Not found</h1><p>There is no lab portal page at <code>${request.url}</code>.</p>
        <p><a href="${LAB_PORTAL_PATH}/jobs">Go to the jobs</a></p>`,
    }),
  )

  app.get('/', (_request, reply) => reply.redirect(`${LAB_PORTAL_PATH}/jobs`))

  const sendSignIn = (
    request: FastifyRequest,
    reply: FastifyReply,
    input: { next: string; error?: Notice | null; status?: number },
  ) =>
    portal.sendPage(request, reply, {
      title: 'Sign in',
      status: input.status ?? 200,
      notice: input.error ?? null,
      content: renderSignIn(input.next),
    })

  app.get<{ Querystring: { next?: string } }>('/sign-in', (request, reply) =>
    sendSignIn(request, reply, { next: nextAfterSignIn(request.query.next) }),
  )

  app.post<{ Body: { labKey?: unknown; next?: unknown } }>('/sign-in', async (request, reply) => {
    const next = nextAfterSignIn(request.body?.next)
    if (isCrossSite(request)) return sendSignIn(request, reply, { next, status: 403, error: crossSiteNotice })
    const labKey = typeof request.body?.labKey === 'string' ? request.body.labKey.trim() : ''
    if (labKey === '') {
      return sendSignIn(request, reply, { next, status: 400, error: { kind: 'error', text: 'Enter a lab key.' } })
    }
    const session = labKey.startsWith('pr_lab_') ? await sessions.signInLab(labKey) : undefined
    if (!session) {
      const limited = await options.limitFailedSignIn?.(request, reply)
      if (limited !== undefined) {
        return sendSignIn(request, reply, { next, status: 429, error: { kind: 'error', text: limited } })
      }
      const text = labKey.startsWith('pr_lab_')
        ? 'That lab key is not valid: it is unknown or has been revoked.'
        : 'That is not a lab key. Lab keys start with pr_lab_; merchant API keys sign in to the dashboard instead.'
      return sendSignIn(request, reply, { next, status: 401, error: { kind: 'error', text } })
    }
    reply.setCookie(LAB_SESSION_COOKIE, session.token, {
      path: LAB_PORTAL_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https' || options.publicUrl().startsWith('https:'),
      maxAge: SESSION_LIFETIME_SECONDS,
    })
    return reply.code(303).redirect(next)
  })

  const sendRefused = (request: FastifyRequest, reply: FastifyReply) =>
    portal.sendPage(request, reply, {
      title: 'Refused',
      status: 403,
      content: html`<h1>Refused</h1><p>${crossSiteNotice.text}</p>`,
    })

  app.post<{ Body: { _csrf?: unknown } }>('/sign-out', async (request, reply) => {
    const token = request.cookies[LAB_SESSION_COOKIE]
    if (isCrossSite(request) || (token !== undefined && !isCsrfTokenOf(token, request.body?._csrf))) {
      return sendRefused(request, reply)
    }
    if (token !== undefined) {
      await sessions.signOut(token)
      reply.clearCookie(LAB_SESSION_COOKIE, { path: LAB_PORTAL_PATH })
    }
    return portal.redirect(reply, '/sign-in', { kind: 'info', text: 'You are signed out.' })
  })

  // Everything else needs a lab session.
  await app.register(async (pages) => {
    pages.addHook('preHandler', async (request, reply) => {
      const token = request.cookies[LAB_SESSION_COOKIE]
      const lab = token ? await sessions.authenticateLab(token) : undefined
      if (!token || !lab) {
        const next = request.method === 'GET' ? request.url : `${LAB_PORTAL_PATH}/jobs`
        if (token) {
          reply.clearCookie(LAB_SESSION_COOKIE, { path: LAB_PORTAL_PATH })
          return portal.redirect(reply, `/sign-in?next=${encodeURIComponent(next)}`, {
            kind: 'info',
            text: 'Your session has ended (it expired, or its lab key was revoked). Sign in again.',
          })
        }
        return reply.code(303).redirect(`${LAB_PORTAL_PATH}/sign-in?next=${encodeURIComponent(next)}`)
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const body = request.body as { _csrf?: unknown } | undefined
        if (isCrossSite(request) || !isCsrfTokenOf(token, body?._csrf)) return sendRefused(request, reply)
      }
      request.signedInLab = { lab, csrfToken: csrfTokenOf(token) }
    })
    registerPortalPages(pages, portal, options.labs)
  })
}
