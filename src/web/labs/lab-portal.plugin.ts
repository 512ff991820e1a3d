// The lab portal (docs/labs.md#the-lab-portal): server-rendered pages under /labs/portal/ on the Live port, for a print
// shop without programmers. Signing in exchanges a lab key for a session (the dashboard's sessions, of the lab
// kind); the browser keeps only the session id, never the key. Pages read and report through the lab
// operations the lab API uses (`PortalLabs`, filled by app.ts with the labs service), so the portal can do
// nothing the lab API cannot. The dashboard's stylesheet, htmx-free markup, CSP and CSRF rules apply.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { LabStatementsWork } from '../../domain/lab-statements.ts'
import type { LabSessionCaller, SessionsService } from '../../services/sessions.service.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH, type Notice, pageDocument, signInCard } from '../kit/layout.ts'
import { noticeCookie } from '../kit/page-replies.ts'
import { registerSessionSite, type SessionSite } from '../kit/session-site.ts'
import { CLAIMS_TITLE, type PortalClaims, registerPortalClaimPages } from './lab-claims.pages.ts'
import { type PortalLabs, registerPortalPages } from './lab-portal.pages.ts'
import { LAB_PORTAL_PATH, type Portal, type PortalPage, type SignedInLab } from './lab-portal-context.ts'
import { registerPortalStatementPages, STATEMENTS_TITLE } from './lab-statements.pages.ts'

/** The portal's session cookie: its own name and path, so a merchant's dashboard session never meets it. */
export const LAB_SESSION_COOKIE = 'printroute_lab_session'
const NOTICE_COOKIE = 'printroute_lab_notice'

export interface LabPortalOptions {
  sessions: SessionsService
  labs: PortalLabs
  /** The labs' payables statements: the Statements page (absent: no such page). */
  statements?: LabStatementsWork
  /** The claims against the lab's work and its quality rate: the Claims pages (absent: no such pages). */
  claims?: PortalClaims
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
    ? html`<nav aria-label="Main"><ul><li><a href="${LAB_PORTAL_PATH}/jobs"${page.title === 'Jobs' ? html` aria-current="page"` : ''}>Jobs</a></li><li><a href="${LAB_PORTAL_PATH}/history"${page.title === 'History' ? html` aria-current="page"` : ''}>History</a></li><li><a href="${LAB_PORTAL_PATH}/claims"${page.title === CLAIMS_TITLE ? html` aria-current="page"` : ''}>Claims</a></li><li><a href="${LAB_PORTAL_PATH}/statements"${page.title === STATEMENTS_TITLE ? html` aria-current="page"` : ''}>Statements</a></li></ul></nav>
<form class="sign-out" method="post" action="${LAB_PORTAL_PATH}/sign-out">${csrfField(signedIn.csrfToken)}<button type="submit" class="button-quiet">Sign out</button></form>`
    : html``
  return pageDocument({
    head: html`<title>${page.title} · printroute lab portal</title>
<link rel="stylesheet" href="${DASHBOARD_PATH}/assets/dashboard.css">
<link rel="icon" href="${DASHBOARD_PATH}/assets/favicon.svg" type="image/svg+xml">`,
    bodyClass: 'environment-live lab-portal',
    brandHref: `${LAB_PORTAL_PATH}/jobs`,
    badge: html`<span class="environment-badge" title="The lab portal shows Live jobs">${signedIn ? `Lab ${signedIn.lab.labCode}` : 'Lab portal'}</span>`,
    navigation,
    notice: page.notice,
    content: page.content,
    footer: html`${signedIn ? html`<span>Signed in with lab key <code>${signedIn.lab.keyPrefix}…</code></span>` : ''}
<a href="/docs">API reference</a>`,
  })
}

function renderSignIn(next: string): Html {
  return signInCard({
    heading: 'Sign in to the lab portal',
    intro: html`Use your lab key (<code>pr_lab_…</code>), the one printroute's operator gave you. The key is exchanged for a
session: the browser keeps only the session, never the key.`,
    action: `${LAB_PORTAL_PATH}/sign-in`,
    next,
    field: { id: 'lab-key', name: 'labKey', label: 'Lab key' },
    help: html`No key yet? The operator makes one with <code>printroute labs keys create --lab CODE</code>.`,
  })
}

export async function registerLabPortal(app: FastifyInstance, options: LabPortalOptions): Promise<void> {
  const { sessions } = options
  app.decorateRequest('signedInLab', null as unknown as SignedInLab)

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

  const site: SessionSite<LabSessionCaller> = {
    path: LAB_PORTAL_PATH,
    home: `${LAB_PORTAL_PATH}/jobs`,
    cookie: LAB_SESSION_COOKIE,
    credential: {
      field: 'labKey',
      prefix: 'pr_lab_',
      missing: 'Enter a lab key.',
      invalid: 'That lab key is not valid: it is unknown or has been revoked.',
      wrongKind:
        'That is not a lab key. Lab keys start with pr_lab_; merchant API keys sign in to the dashboard instead.',
    },
    sessionEnded: 'Your session has ended (it expired, or its lab key was revoked). Sign in again.',
    crossSite: crossSiteNotice,
    signIn: (labKey) => sessions.signInLab(labKey),
    authenticate: (token) => sessions.authenticateLab(token),
    signOut: (token) => sessions.signOut(token),
    publicUrl: options.publicUrl,
    ...(options.limitFailedSignIn ? { limitFailedSignIn: options.limitFailedSignIn } : {}),
    send: (request, reply, page) => portal.sendPage(request, reply, page),
    redirect: (reply, path, notice) => portal.redirect(reply, path, notice),
    renderSignIn,
  }
  await registerSessionSite(app, site, {
    imageOrigins: () => new URL(options.publicUrl()).origin,
    notFound: { what: 'lab portal page', homeLink: html`<a href="${LAB_PORTAL_PATH}/jobs">Go to the jobs</a>` },
    signedIn: (request, lab, csrfToken) => {
      request.signedInLab = { lab, csrfToken }
    },
    pages: (pages) => {
      registerPortalPages(pages, portal, options.labs)
      if (options.statements) registerPortalStatementPages(pages, portal, options.statements)
      if (options.claims) registerPortalClaimPages(pages, portal, options.claims)
    },
  })
}
