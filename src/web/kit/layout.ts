// The page shell every dashboard page shares: head, navigation, the environment, notices, the footer; and the parts
// the lab portal and the console build their own shells from (the page's document, the sign-in card).
import { type Environment, environmentName } from '../../domain/environment.ts'
import { type ApiAnswer, type ApiClient, describeApiError } from './api-client.ts'
import { type Html, html } from './html.ts'
import { type DashboardUseName, mayUse, type SessionScopes } from './scopes.ts'

export const DASHBOARD_PATH = '/dashboard'

/** An order's page, or a page of it (`rest`: `/cancel`...). */
export function orderPath(orderId: string, rest = ''): string {
  return `${DASHBOARD_PATH}/orders/${orderId}${rest}`
}

export type Section =
  | 'orders'
  | 'claims'
  | 'new-order'
  | 'catalogue'
  | 'check-file'
  | 'channels'
  | 'billing'
  | 'developers'
  | 'sign-in'

export interface Notice {
  kind: 'success' | 'error' | 'info'
  text: string
}

/** An error notice for an API answer that failed; none for one that succeeded. */
export function errorNotice(answer: ApiAnswer<unknown>): Notice | undefined {
  return answer.ok ? undefined : { kind: 'error', text: describeApiError(answer.body) }
}

export interface PageInput {
  title: string
  environment: Environment
  content: Html
  section: Section
  /** Absent on the sign-in page. */
  session?: { csrfToken: string; keyPrefix: string; scopes: SessionScopes }
  notice?: Notice | null
  otherDashboardUrl: string
}

export { environmentName }

/** The Developers views' uses (each view's, in pages/developers.page.ts): offered when the key may make any. */
export const DEVELOPER_USES = [
  'readCallbacks',
  'readOrders',
  'readSettings',
  'testCallbacks',
  'manageWebhooks',
  'manageKeys',
  'readActivity',
] as const satisfies readonly DashboardUseName[]

/** The main navigation; `uses`: a link is shown when the session's key may make any of them. */
const NAVIGATION: {
  section: Section
  label: string
  path: string
  sandboxOnly?: boolean
  uses: readonly DashboardUseName[]
}[] = [
  { section: 'orders', label: 'Orders', path: '/orders', uses: ['readOrders'] },
  { section: 'claims', label: 'Claims', path: '/claims', uses: ['readOrders'] },
  { section: 'new-order', label: 'New order', path: '/new-order', sandboxOnly: true, uses: ['createOrders'] },
  { section: 'catalogue', label: 'Catalogue', path: '/catalogue', uses: ['readCatalogue'] },
  // Beside the catalogue: a file is checked against one of its products (POST /files/preflight, the quotes scope).
  { section: 'check-file', label: 'Check a file', path: '/check-file', uses: ['quote'] },
  { section: 'channels', label: 'Channels', path: '/channels', uses: ['readChannels'] },
  { section: 'billing', label: 'Billing', path: '/billing', uses: ['readBilling'] },
  { section: 'developers', label: 'Developers', path: '/developers', uses: DEVELOPER_USES },
]

export function noticeBox(notice: Notice | null | undefined): Html {
  if (!notice) return html``
  const role = notice.kind === 'error' ? 'alert' : 'status'
  return html`<div class="notice notice-${notice.kind}" role="${role}">${notice.text}</div>`
}

/** A hidden field with the session's CSRF token, for every changing form. */
export function csrfField(csrfToken: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrfToken}">`
}

/**
 * The sign-in card of the dashboard, the lab portal and the console: a credential exchanged for a session. Each
 * site gives its heading, its words around the form, and its credential's field.
 */
export function signInCard(input: {
  heading: string
  intro: Html
  action: string
  next: string
  field: { id: string; name: string; label: string }
  help: Html
}): Html {
  const { field } = input
  return html`<section class="sign-in card">
<h1>${input.heading}</h1>
<p>${input.intro}</p>
<form method="post" action="${input.action}" class="stack">
<input type="hidden" name="next" value="${input.next}">
<label for="${field.id}">${field.label}</label>
<input id="${field.id}" name="${field.name}" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">${input.help}</p>
</section>`
}

export function renderPage(page: PageInput): string {
  const name = environmentName(page.environment)
  const other = environmentName(page.environment === 'live' ? 'sandbox' : 'live')
  const scopes = page.session?.scopes
  const navigation = page.session
    ? html`<nav aria-label="Main"><ul>${NAVIGATION.filter(
        (entry) =>
          (!entry.sandboxOnly || page.environment === 'sandbox') &&
          // The page being shown stays in the navigation, as the current one, even when its key may not use it.
          (entry.section === page.section || entry.uses.some((use) => mayUse(scopes, use))),
      ).map(
        (entry) =>
          html`<li><a href="${DASHBOARD_PATH}${entry.path}"${entry.section === page.section ? html` aria-current="page"` : ''}>${entry.label}</a></li>`,
      )}</ul></nav>
      <form class="sign-out" method="post" action="${DASHBOARD_PATH}/sign-out">${csrfField(page.session.csrfToken)}<button type="submit" class="button-quiet">Sign out</button></form>`
    : html``
  return pageDocument({
    head: html`<meta name="htmx-config" content='{"includeIndicatorStyles":false,"historyCacheSize":0}'>
<title>${page.title} · printroute ${name}</title>
<link rel="stylesheet" href="${DASHBOARD_PATH}/assets/dashboard.css">
<link rel="icon" href="${DASHBOARD_PATH}/assets/favicon.svg" type="image/svg+xml">
<script src="${DASHBOARD_PATH}/assets/htmx.min.js" defer></script>`,
    bodyClass: `environment-${page.environment}`,
    brandHref: `${DASHBOARD_PATH}/orders`,
    badge: html`<span class="environment-badge" title="You are looking at ${name} data">${name}</span>`,
    navigation,
    notice: page.notice,
    content: page.content,
    footer: html`${page.session ? html`<span>Signed in with key <code>${page.session.keyPrefix}…</code></span>` : ''}
<a href="${page.otherDashboardUrl}">${other} dashboard</a>
<a href="/docs">API reference</a>`,
  })
}

/**
 * The document around every page of the dashboard, the lab portal and the console: each gives its head (title,
 * stylesheets), its body's class, its top bar's brand link, badge and navigation, and its footer.
 */
export function pageDocument(page: {
  head: Html
  bodyClass: string
  brandHref: string
  badge: Html
  navigation: Html
  notice: Notice | null | undefined
  content: Html
  footer: Html
}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${page.head}
</head>
<body class="${page.bodyClass}">
<a class="skip-link" href="#main">Skip to content</a>
<header class="top-bar">
<a class="brand" href="${page.brandHref}">printroute</a>
${page.badge}
${page.navigation}
</header>
<main id="main" tabindex="-1">
${noticeBox(page.notice)}
${page.content}
</main>
<footer class="page-footer">
${page.footer}
</footer>
</body>
</html>
`.text
}

/** A paged list's `skip` query value: a whole number from 0 (anything else is 0, the first page). */
export function skipOf(text: string | undefined): number {
  return Math.max(0, Number.parseInt(text ?? '0', 10) || 0)
}

/**
 * Previous/next links of a paged list (nothing when everything fits on one page). `urlOf(skip)` is the list's
 * address at an offset; `labels` name the directions as the list reads (Newer/Older, Previous/Next).
 */
export function pager(input: {
  noun: string
  skip: number
  shown: number
  pageSize: number
  hasMore: boolean
  urlOf: (skip: number) => string
  labels: readonly [previous: string, next: string]
}): Html {
  const { noun, skip, shown, pageSize, hasMore, urlOf, labels } = input
  if (skip === 0 && !hasMore) return html``
  const name = `${noun[0]?.toUpperCase() ?? ''}${noun.slice(1)}`
  return html`<nav class="pager" aria-label="Pages of ${noun}">
${skip > 0 ? html`<a href="${urlOf(Math.max(0, skip - pageSize))}" rel="prev">${labels[0]}</a>` : ''}
<span>${name} ${skip + 1}–${skip + shown}</span>
${hasMore ? html`<a href="${urlOf(skip + pageSize)}" rel="next">${labels[1]}</a>` : ''}
</nav>`
}

/**
 * One page of an API list read with `top` and `skip` (the catalogue, the callbacks' log): the entries under
 * `list.key` in the answer (none when the call failed: `answer` says why), whether more follow, and the pager
 * under them, so each list pages through the API the same way.
 */
export async function listPage<T>(
  api: ApiClient,
  list: {
    path: string
    key: string
    query: Record<string, string | number | undefined | null>
    skip: number
    pageSize: number
  },
  pages: { noun: string; urlOf: (skip: number) => string; labels: readonly [previous: string, next: string] },
): Promise<{ answer: ApiAnswer<unknown>; entries: T[]; hasMore: boolean; pages: Html }> {
  const { skip, pageSize } = list
  const answer = await api.get<Record<string, T[]> & { hasMore: boolean }>(list.path, {
    ...list.query,
    top: pageSize,
    skip,
  })
  const entries = answer.ok ? (answer.body[list.key] ?? []) : []
  const hasMore = answer.ok && answer.body.hasMore
  return { answer, entries, hasMore, pages: pager({ ...pages, skip, shown: entries.length, pageSize, hasMore }) }
}
