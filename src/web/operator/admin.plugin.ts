// The operator console (docs/admin.md): server-rendered pages under /admin/, for the person who runs printroute.
// Signing in exchanges an operator token (`pr_operator_...`, from `printroute operators create`) for a session, as
// the dashboard exchanges an API key and the lab portal a lab key: the browser keeps only the session id. The
// session is looked up on every request, so revoking the operator ends it at once in every process. Every POST
// passes the CSRF check (and the cross-site check) before any page handler runs. Pages come from one
// `<section>.pages.ts` module per section; the shell's navigation lists the sections that registered pages.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ConsoleAccounts, ConsoleChannels } from '../../domain/console-sections.ts'
import type { SessionsService } from '../../services/sessions.service.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice, pageDocument, signInCard } from '../kit/layout.ts'
import { noticeCookie } from '../kit/page-replies.ts'
import { registerSessionSite, type SessionSite } from '../kit/session-site.ts'
import { registerAccountsPages } from './accounts.pages.ts'
import {
  ADMIN_PATH,
  ADMIN_SECTIONS,
  type AdminConsole,
  type AdminPage,
  type AdminSection,
  type SignedInOperator,
} from './admin-context.ts'

/** The console's session cookie: its own name and path, so neither a dashboard nor the lab portal ever sees it. */
export const ADMIN_SESSION_COOKIE = 'printroute_admin_session'
const NOTICE_COOKIE = 'printroute_admin_notice'

/** The names the navigation gives the sections. */
const SECTION_LABELS: Record<AdminSection, string> = {
  accounts: 'Accounts',
  orders: 'Orders',
  attention: 'Needs attention',
  claims: 'Claims',
  labs: 'Labs',
  catalogue: 'Catalogue',
  invoices: 'Invoices',
  revenue: 'Revenue',
  callbacks: 'Callbacks',
  channels: 'Channels',
  audit: 'Audit trail',
  operators: 'Operators',
}

export interface AdminConsoleOptions {
  sessions: SessionsService
  /** The Live server's public URL: images on console pages (print files, thumbnails) come from it. */
  publicUrl: () => string
  /**
   * Where the images an order page shows are served: both environments' public addresses, as the console shows
   * Live and Sandbox orders alike (their thumbnails and previews are signed links on their own environment's).
   */
  imageOrigins: () => string[]
  /** Counts a sign-in with a token that is not valid against the address's budget, as the dashboard does. */
  limitFailedSignIn?: (request: FastifyRequest, reply: FastifyReply) => Promise<string | undefined>
  /** The accounts section (accounts.pages.ts). */
  accounts: ConsoleAccounts
  /** The channels of an account, one line each on its page; absent: the page shows none. */
  channels?: ConsoleChannels
  /**
   * Whether the operator has set the seller printed on invoices: until then every page behind sign-in shows a
   * banner saying how to set it (docs/billing.md#the-seller). Absent: no banner.
   */
  sellerConfigured?: () => Promise<boolean>
  /**
   * The other sections, each registered by its own module's `register<Section>Pages(pages, console, deps)`
   * (orders, labs, callbacks, catalogue, invoices, audit): app.ts passes one function per section here, which
   * calls the module's register function with the deps it fills from the services.
   */
  sections?: ((pages: FastifyInstance, console: AdminConsole) => void | Promise<void>)[]
  /** How many rows the "needs attention" queue has, for the badge beside its section in the navigation. */
  attentionCount?: () => Promise<number>
}

const ASSET_DIR = join(import.meta.dirname, '..', 'kit', 'assets')
const ASSETS = new Map([
  ['dashboard.css', { file: 'dashboard.css', type: 'text/css; charset=utf-8' }],
  ['admin.css', { file: 'admin.css', type: 'text/css; charset=utf-8' }],
  ['favicon.svg', { file: 'favicon.svg', type: 'image/svg+xml' }],
])

function loadAssets(): Map<string, { body: Buffer; type: string }> {
  return new Map(
    [...ASSETS].map(([name, asset]) => [name, { body: readFileSync(join(ASSET_DIR, asset.file)), type: asset.type }]),
  )
}

const crossSiteNotice: Notice = {
  kind: 'error',
  text: 'This form was not sent from this console page (its security token is missing or stale). Reload the page and try again.',
}

/** Where the seller is set in the console (the invoices section's seller page). */
const SELLER_PAGE = `${ADMIN_PATH}/invoices/seller`

/** The banner every signed-in page shows until the seller is set. */
function sellerBanner(): Html {
  return html`<div class="notice notice-info seller-banner" data-seller-banner>No seller is set for invoices:
documents name printroute and this instance. Set your business's name and address on the
<a href="${SELLER_PAGE}">Seller page</a> (or with <code>printroute invoices seller --name NAME --address LINE</code>) before taking real orders.</div>`
}

interface ShellInput {
  title: string
  content: Html
  /** Until the seller is set, every signed-in page says so. */
  sellerUnset?: boolean
  section: AdminSection | null
  signedIn: SignedInOperator | null
  notice: Notice | null
  sections: readonly AdminSection[]
  /** A count shown beside a section's name (the "needs attention" queue's rows); absent: none. */
  badges?: Partial<Record<AdminSection, number>>
}

/** A section's count in the navigation; nothing for none. */
function navBadge(count: number | undefined): Html {
  if (!count) return html``
  return html` <span class="badge badge-pending nav-count" aria-label="${String(count)} need attention">${String(count)}</span>`
}

function renderShell(page: ShellInput): string {
  const signedIn = page.signedIn
  const navigation = signedIn
    ? html`<nav aria-label="Console sections"><ul>${page.sections.map(
        (section) =>
          html`<li><a href="${ADMIN_PATH}/${section}"${section === page.section ? html` aria-current="page"` : ''}>${SECTION_LABELS[section]}${navBadge(page.badges?.[section])}</a></li>`,
      )}</ul></nav>
<form class="sign-out" method="post" action="${ADMIN_PATH}/sign-out">${csrfField(signedIn.csrfToken)}<button type="submit" class="button-quiet">Sign out</button></form>`
    : html``
  return pageDocument({
    head: html`<title>${page.title} · printroute console</title>
<link rel="stylesheet" href="${ADMIN_PATH}/assets/dashboard.css">
<link rel="stylesheet" href="${ADMIN_PATH}/assets/admin.css">
<link rel="icon" href="${ADMIN_PATH}/assets/favicon.svg" type="image/svg+xml">`,
    bodyClass: 'admin-console',
    brandHref: `${ADMIN_PATH}/accounts`,
    badge: html`<span class="environment-badge admin-badge">Console</span>`,
    navigation,
    notice: page.notice,
    content: signedIn && page.sellerUnset ? html`${sellerBanner()}${page.content}` : page.content,
    footer: signedIn
      ? html`<span>Signed in as ${signedIn.operator.name} (<code>${signedIn.operator.id}</code>)</span>`
      : html`<span>printroute operator console</span>`,
  })
}

function renderSignIn(next: string): Html {
  return signInCard({
    heading: 'Sign in to the console',
    intro: html`Use your operator token (<code>pr_operator_…</code>), the one <code>printroute operators create</code> printed.
The token is exchanged for a session: the browser keeps only the session, never the token.`,
    action: `${ADMIN_PATH}/sign-in`,
    next,
    field: { id: 'operator-token', name: 'operatorToken', label: 'Operator token' },
    help: html`No token yet? Whoever runs printroute makes one with <code>printroute operators create --name NAME</code>.`,
  })
}

/**
 * Registers the console on `app`, a scope whose prefix is ADMIN_PATH (on the Live server, or on the console's own
 * server with `--admin-port`).
 */
export async function registerAdminConsole(app: FastifyInstance, options: AdminConsoleOptions): Promise<void> {
  const { sessions } = options
  const assets = loadAssets()
  app.decorateRequest('signedInOperator', null as unknown as SignedInOperator)

  const notices = noticeCookie(NOTICE_COOKIE, ADMIN_PATH)
  // Read once per signed-in request, before its page: whether the seller is still to be set.
  const sellerUnset = new WeakMap<FastifyRequest, boolean>()
  // The navigation's counts of a signed-in page, read before its handler (a page is sent without waiting).
  const badgesOf = new WeakMap<FastifyRequest, Partial<Record<AdminSection, number>>>()
  // The sections whose pages are registered, in ADMIN_SECTIONS order: the navigation shows only these.
  const registered = new Set<AdminSection>()
  const sectionsShown = () => ADMIN_SECTIONS.filter((section) => registered.has(section))

  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    page: Omit<AdminPage, 'section'> & { section: AdminSection | null },
  ) =>
    reply
      .code(page.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(
        renderShell({
          title: page.title,
          content: page.content,
          section: page.section,
          signedIn: request.signedInOperator,
          notice: page.notice ?? notices.take(request, reply),
          sections: sectionsShown(),
          sellerUnset: sellerUnset.get(request) === true,
          badges: badgesOf.get(request) ?? {},
        }),
      )

  const adminConsole: AdminConsole = {
    sendPage: (request, reply, page) => send(request, reply, page),
    // Pages name the whole console path (`/admin/accounts/acc_3`); the notice cookie's redirect adds the prefix.
    redirect: (reply, path, notice) =>
      notices.redirect(reply, path.startsWith(`${ADMIN_PATH}/`) ? path.slice(ADMIN_PATH.length) : path, notice),
  }

  const site: SessionSite<SignedInOperator['operator']> = {
    path: ADMIN_PATH,
    home: `${ADMIN_PATH}/accounts`,
    cookie: ADMIN_SESSION_COOKIE,
    credential: {
      field: 'operatorToken',
      prefix: 'pr_operator_',
      missing: 'Enter an operator token.',
      invalid: 'That operator token is not valid: it is unknown or has been revoked.',
      wrongKind:
        'That is not an operator token. Operator tokens start with pr_operator_; merchant API keys sign in to the dashboard instead.',
    },
    sessionEnded: 'Your session has ended (it expired, or the operator was revoked). Sign in again.',
    crossSite: crossSiteNotice,
    signIn: (token) => sessions.signInOperator(token),
    authenticate: (token) => sessions.authenticateOperator(token),
    signOut: (token) => sessions.signOut(token),
    publicUrl: options.publicUrl,
    ...(options.limitFailedSignIn ? { limitFailedSignIn: options.limitFailedSignIn } : {}),
    send: (request, reply, page) => send(request, reply, { ...page, section: null }),
    redirect: (reply, path, notice) => adminConsole.redirect(reply, path, notice),
    renderSignIn,
  }
  await registerSessionSite(app, site, {
    imageOrigins: () =>
      options
        .imageOrigins()
        .map((address) => new URL(address).origin)
        .join(' '),
    cacheable: (url) => url.startsWith(`${ADMIN_PATH}/assets/`),
    notFound: { what: 'console page', homeLink: html`<a href="${ADMIN_PATH}/accounts">Go to the accounts</a>` },
    openRoutes: (open) =>
      open.get<{ Params: { name: string } }>('/assets/:name', (request, reply) => {
        const asset = assets.get(request.params.name)
        if (!asset) return reply.callNotFound()
        return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body)
      }),
    signedIn: (request, operator, csrfToken) => {
      request.signedInOperator = { operator, csrfToken }
    },
    pages: async (pages) => {
      const { sellerConfigured } = options
      if (sellerConfigured) {
        pages.addHook('preHandler', async (request) => {
          sellerUnset.set(request, !(await sellerConfigured()))
        })
      }
      const { attentionCount } = options
      if (attentionCount) {
        pages.addHook('preHandler', async (request) => {
          if (request.method !== 'GET') return
          // A count that cannot be read leaves the badge out: the page itself still answers.
          const count = await attentionCount().catch(() => undefined)
          if (count !== undefined) badgesOf.set(request, { attention: count })
        })
      }
      pages.addHook('onRoute', (route) => {
        const methods = ([] as string[]).concat(route.method)
        const section = ADMIN_SECTIONS.find(
          (candidate) =>
            route.url === `${ADMIN_PATH}/${candidate}` || route.url.startsWith(`${ADMIN_PATH}/${candidate}/`),
        )
        if (section && methods.includes('GET')) registered.add(section)
      })
      registerAccountsPages(pages, adminConsole, options.accounts, options.channels)
      // The other sections' modules (orders, labs, callbacks: the console pages; catalogue, invoices, audit) are
      // registered here from `options.sections`, which app.ts fills.
      for (const register of options.sections ?? []) await register(pages, adminConsole)
    },
  })
}
