// The console's accounts section (docs/admin.md#accounts): every account with a search by id or name, creating one
// (its two keys shown once), and an account's page: balance, billing, settings, keys (create, revoke), a top-up of a
// prepaid balance, the latest money movements, and suspension. Every change names the signed-in operator as its
// actor (the services record it in the audit trail). A refusal of the services (ServiceError) comes back to the
// page as a notice, never as an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Account, ApiKeyView } from '../../domain/accounts.ts'
import { ADDRESS_VALIDATION_MODES } from '../../domain/address-rules.ts'
import type { AdminChannelRow, ConsoleLedgerEntry } from '../../domain/admin-views.ts'
import type { AuditActor } from '../../domain/audit.ts'
import type {
  ConsoleAccountSettings,
  ConsoleAccountSettingsChange,
  ConsoleAccounts,
  ConsoleChannels,
} from '../../domain/console-sections.ts'
import { ACCOUNT_NAME_MAX_LENGTH } from '../../domain/credit-limits.ts'
import { ENVIRONMENTS, type Environment, environmentName } from '../../domain/environment.ts'
import { MAX_PAUSE_WINDOW_SECONDS } from '../../domain/limits.ts'
import { OperatorRefusal } from '../../domain/operator-refusal.ts'
import { CALLBACK_EVENT_SETS } from '../../domain/order-events.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { SANDBOX_SCENARIOS } from '../../domain/sandbox-scenarios.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole, type Form, field, operatorOf } from './admin-context.ts'
import { accountPaymentsCard } from './card-payments.view.ts'
import { refusalInConsoleWords } from './refusal-words.ts'

/** How many money movements an account's page shows. */
export const RECENT_LEDGER_ENTRIES = 20

/** Longest search text the accounts list takes (an id or a part of a name). */
const MAX_SEARCH_LENGTH = 100

const accountsPath = (rest = '') => `${ADMIN_PATH}/accounts${rest}`
const accountPath = (accountId: string, rest = '') => accountsPath(`/${encodeURIComponent(accountId)}${rest}`)

function statusBadge(account: Account): Html {
  return account.suspended
    ? html`<span class="badge badge-failed">Suspended</span>`
    : html`<span class="badge badge-ok">Active</span>`
}

function matches(account: Account, search: string): boolean {
  if (search === '') return true
  const wanted = search.toLowerCase()
  return account.id.toLowerCase() === wanted || account.name.toLowerCase().includes(wanted)
}

function balanceText(account: Account): string {
  return account.billingMode === 'prepaid' ? `${account.balance} ${account.billingCurrency}` : '—'
}

function createAccountForm(csrfToken: string, values: { name: string; currency: string; mode: string }): Html {
  return html`<section class="card" aria-labelledby="create-account-heading">
<h2 id="create-account-heading">Create an account</h2>
<form method="post" action="${accountsPath()}" class="stack">${csrfField(csrfToken)}
<label for="account-name">Name</label>
<input id="account-name" name="name" required maxlength="200" value="${values.name}">
<label for="account-currency">Billing currency</label>
<input id="account-currency" name="billingCurrency" required maxlength="3" value="${values.currency}" autocapitalize="characters">
<label for="account-mode">Billing mode</label>
<select id="account-mode" name="billingMode">
<option value="invoice"${values.mode !== 'prepaid' ? html` selected` : ''}>Invoice (billed afterwards)</option>
<option value="prepaid"${values.mode === 'prepaid' ? html` selected` : ''}>Prepaid (from a balance)</option>
</select>
<button type="submit">Create the account</button>
<p class="muted small">The account gets one Sandbox and one Live key, shown once on the next page.</p>
</form>
</section>`
}

function accountsList(accounts: Account[], search: string): Html {
  if (accounts.length === 0) {
    return html`<p class="empty card">${search === '' ? 'No accounts yet.' : html`No account matches <strong>${search}</strong>.`}</p>`
  }
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="accounts-caption"><table class="accounts"><caption id="accounts-caption" class="visually-hidden">Accounts</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Billing</th><th scope="col" class="number">Balance</th><th scope="col">Created</th></tr></thead>
<tbody>${accounts.map(
    (account) => html`<tr>
<th scope="row"><a href="${accountPath(account.id)}">${account.id}</a></th>
<td>${account.name}</td>
<td>${statusBadge(account)}</td>
<td>${account.billingMode} · ${account.billingCurrency}</td>
<td class="number">${balanceText(account)}</td>
<td>${formatTime(account.created)}</td>
</tr>`,
  )}</tbody></table></div>`
}

function keysOnce(account: Account, keys: Partial<Record<Environment, string>>): Html {
  const shown = ENVIRONMENTS.filter((environment) => keys[environment] !== undefined)
  if (shown.length === 0) return html``
  return html`<section class="key-once" aria-labelledby="new-keys-heading">
<h2 id="new-keys-heading">${shown.length === 1 ? 'The new key' : 'The new keys'} of ${account.id}</h2>
<p><strong>Copy ${shown.length === 1 ? 'it' : 'them'} now, ${shown.length === 1 ? 'it is' : 'they are'} not shown again.</strong> printroute keeps only a hash; the list shows the prefix.</p>
<dl class="new-keys">${shown.map(
    (environment) =>
      html`<div><dt>${environmentName(environment)} key</dt><dd><code class="new-key" data-environment="${environment}">${keys[environment]}</code></dd></div>`,
  )}</dl>
</section>`
}

/** An invoice account's credit: its limit and what it owes (docs/billing.md#credit-limits); nothing for prepaid. */
function creditFacts(account: Account, openAmount: string | null): Html {
  if (account.billingMode !== 'invoice') return html``
  const limit = account.creditLimit
    ? html`<span data-credit-limit>${account.creditLimit} ${account.billingCurrency}</span>`
    : html`<span class="muted" data-credit-limit>no limit</span>`
  return html`<div><dt>Credit limit</dt><dd>${limit}</dd></div>
<div><dt>Owed (Live invoices)</dt><dd data-open-amount>${openAmount ?? '0.00'} ${account.billingCurrency}</dd></div>`
}

function factsCard(account: Account, openAmount: string | null): Html {
  return html`<dl class="facts card">
<div><dt>Status</dt><dd>${statusBadge(account)}${account.suspended ? html` since ${formatTime(account.suspended)}` : ''}</dd></div>
<div><dt>Billing</dt><dd>${account.billingMode} in ${account.billingCurrency}</dd></div>
<div><dt>Balance</dt><dd>${account.billingMode === 'prepaid' ? balanceText(account) : html`<span class="muted">billed by invoice</span>`}</dd></div>
${creditFacts(account, openAmount)}
<div><dt>Price list</dt><dd>${account.priceList ?? html`<span class="muted">the catalogue's default</span>`}</dd></div>
<div><dt>Pause window</dt><dd>${account.pauseWindowSeconds === 0 ? 'none' : `${account.pauseWindowSeconds} s`}</dd></div>
<div><dt>Sandbox callback URL</dt><dd>${account.callbackUrls.sandbox ?? html`<span class="muted">none</span>`}</dd></div>
<div><dt>Live callback URL</dt><dd>${account.callbackUrls.live ?? html`<span class="muted">none</span>`}</dd></div>
<div><dt>Created</dt><dd>${formatTime(account.created)}</dd></div>
</dl>`
}

const selectOf = (id: string, name: string, values: readonly string[], chosen: string, none?: string): Html =>
  html`<select id="${id}" name="${name}">${none !== undefined ? html`<option value=""${chosen === '' ? html` selected` : ''}>${none}</option>` : ''}${values.map(
    (value) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${value}</option>`,
  )}</select>`

/**
 * The settings `printroute accounts update` changes: the account's pause window, and each environment's callback URL,
 * address checks, callback events (and Sandbox's default scenario), each form changing what it shows at once.
 */
function settingsCard(
  account: Account,
  settings: Record<Environment, ConsoleAccountSettings>,
  csrfToken: string,
): Html {
  const environmentForm = (environment: Environment) => {
    const shown = settings[environment]
    const id = (name: string) => `${environment}-${name}`
    return html`<form method="post" action="${accountPath(account.id, '/settings')}" class="stack" aria-labelledby="${id('settings-heading')}">${csrfField(csrfToken)}
<h3 id="${id('settings-heading')}">${environmentName(environment)}</h3>
<input type="hidden" name="environment" value="${environment}">
<label for="${id('callback-url')}">Callback URL (empty: none)</label>
<input id="${id('callback-url')}" name="callbackUrl" type="url" maxlength="2048" value="${shown.callbackUrl ?? ''}">
<label for="${id('address-validation')}">Address checks</label>
${selectOf(id('address-validation'), 'addressValidation', ADDRESS_VALIDATION_MODES, shown.addressValidation)}
<label for="${id('callback-events')}">Callback events</label>
${selectOf(id('callback-events'), 'callbackEvents', CALLBACK_EVENT_SETS, shown.callbackEvents)}
${
  environment === 'sandbox'
    ? html`<label for="${id('scenario')}">Default scenario of new Sandbox orders</label>
${selectOf(id('scenario'), 'sandboxScenario', SANDBOX_SCENARIOS, shown.sandboxScenario ?? '', 'none')}`
    : ''
}
<button type="submit">Save ${environmentName(environment)} settings</button>
</form>`
  }
  return html`<section class="card" aria-labelledby="settings-heading">
<h2 id="settings-heading">Settings</h2>
<p class="muted small">As <code>printroute accounts update</code> changes them; each change is recorded in the audit trail.</p>
<form method="post" action="${accountPath(account.id, '/settings')}" class="stack">${csrfField(csrfToken)}
<label for="pause-window">Pause window in seconds (both environments; 0: none)</label>
<input id="pause-window" name="pauseWindowSeconds" required inputmode="numeric" pattern="[0-9]{1,7}" value="${String(account.pauseWindowSeconds)}">
<button type="submit">Save the pause window</button>
</form>
<div class="two-columns">
${environmentForm('live')}${environmentForm('sandbox')}
</div>
</section>`
}

/**
 * What a settings form changes: the fields it sent that differ from the settings now, in the services' terms;
 * or the problem with a field the services would not be asked about (a pause window that is not a number).
 */
function settingsChange(
  body: Form,
  now: ConsoleAccountSettings,
  environment: Environment | undefined,
): { change: ConsoleAccountSettingsChange } | { problem: string } {
  const change: ConsoleAccountSettingsChange = {}
  if (environment === undefined) {
    const text = field(body, 'pauseWindowSeconds')
    const seconds = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN
    if (!Number.isInteger(seconds) || seconds > MAX_PAUSE_WINDOW_SECONDS) {
      return {
        problem: `Pause window: a whole number of seconds from 0 to ${MAX_PAUSE_WINDOW_SECONDS}, not "${text}".`,
      }
    }
    if (seconds !== now.pauseWindowSeconds) change.pauseWindowSeconds = seconds
    return { change }
  }
  const url = field(body, 'callbackUrl')
  if ((url === '' ? null : url) !== now.callbackUrl) change.callbackUrl = url === '' ? null : url
  const addressValidation = field(body, 'addressValidation')
  if (addressValidation !== '' && addressValidation !== now.addressValidation) {
    change.addressValidation = addressValidation
  }
  const callbackEvents = field(body, 'callbackEvents')
  if (callbackEvents !== '' && callbackEvents !== now.callbackEvents) change.callbackEvents = callbackEvents
  if (environment === 'sandbox') {
    const scenario = field(body, 'sandboxScenario')
    if ((scenario === '' ? null : scenario) !== (now.sandboxScenario ?? null)) {
      change.sandboxScenario = scenario === '' ? null : scenario
    }
  }
  return { change }
}

const SETTING_WORDS: Record<string, string> = {
  callbackUrl: 'Callback URL',
  pauseWindowSeconds: 'Pause window',
  addressValidation: 'Address checks',
  callbackEvents: 'Callback events',
  sandboxScenario: 'Default scenario',
}

/** Saves a settings form of an account's page: what it changed, in words; a refusal is thrown as a ServiceError. */
async function saveSettings(deps: ConsoleAccounts, accountId: string, body: Form, actor: AuditActor): Promise<string> {
  const given = field(body, 'environment')
  const environment = ENVIRONMENTS.find((candidate) => candidate === given)
  if (given !== '' && environment === undefined)
    throw new ServiceError('ValidationFailed', 'Environment: choose Sandbox or Live.')
  const now = await deps.settings(accountId)
  const wanted = settingsChange(body, now[environment ?? 'live'], environment)
  if ('problem' in wanted) throw new ServiceError('ValidationFailed', wanted.problem)
  const fields = Object.keys(wanted.change)
  const what = environment ? `${environmentName(environment)} settings` : 'pause window'
  if (fields.length === 0) return `Nothing changed in the ${what}.`
  const result = await deps.updateSettings(
    accountId,
    wanted.change,
    // The pause window is the account's: one change (through Live's settings) sets it for both.
    [environment ?? 'live'],
    actor,
  )
  if ('problems' in result) {
    throw new ServiceError(
      'ValidationFailed',
      Object.entries(result.problems)
        .map(([name, reason]) => `${SETTING_WORDS[name] ?? name}: ${reason}`)
        .join('; '),
    )
  }
  return `Saved the ${what}: ${fields.map((name) => SETTING_WORDS[name] ?? name).join(', ')}.`
}

function suspensionCard(account: Account, csrfToken: string): Html {
  if (account.suspended) {
    return html`<section class="card" aria-labelledby="suspension-heading">
<h2 id="suspension-heading">Suspended</h2>
<p>Since ${formatTime(account.suspended)}${account.suspendedReason ? html`: ${account.suspendedReason}` : ''}. Its keys answer 403 and its
users cannot sign in to the dashboard; its orders already in flight go on.</p>
<form method="post" action="${accountPath(account.id, '/reactivate')}" class="actions">${csrfField(csrfToken)}
<button type="submit">Reactivate the account</button></form>
</section>`
  }
  return html`<section class="card" aria-labelledby="suspension-heading">
<h2 id="suspension-heading">Suspend</h2>
<p>A suspended account's keys answer 403 Forbidden and its dashboard sessions end at once; its orders already in
flight go on to completion. Reactivating restores everything.</p>
<form method="post" action="${accountPath(account.id, '/suspend')}" class="stack">${csrfField(csrfToken)}
<label for="suspend-reason">Reason (optional, kept in the audit trail)</label>
<input id="suspend-reason" name="reason" maxlength="500">
<button type="submit" class="button-danger">Suspend the account</button></form>
</section>`
}

function priceListCard(
  account: Account,
  lists: { names: string[]; defaultList: string | null },
  csrfToken: string,
): Html {
  const current = account.priceList ?? 'default'
  const defaultLabel = lists.defaultList
    ? `The catalogue's default (${lists.defaultList})`
    : "The catalogue's default (the labs' costs)"
  const option = (value: string, label: string) =>
    html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`
  return html`<section class="card" aria-labelledby="price-list-heading">
<h2 id="price-list-heading">Price list</h2>
<p>The price list the account's new quotes and orders are priced on (docs/billing.md#price-lists). Orders already
charged keep their prices.</p>
<form method="post" action="${accountPath(account.id, '/price-list')}" class="stack">${csrfField(csrfToken)}
<label for="price-list">Price list</label>
<select id="price-list" name="list">${option('default', defaultLabel)}${lists.names.map((name) => option(name, name))}</select>
<button type="submit">Set the price list</button></form>
</section>`
}

/**
 * The account's details as `printroute accounts edit` changes them (docs/admin.md#editing-an-account). The form
 * carries the version it was drawn from: an edit made meanwhile by another operator refuses this one.
 */
function editCard(account: Account, lists: { names: string[] }, csrfToken: string): Html {
  const currentList = account.priceList ?? 'default'
  // A list the active catalogue no longer has stays the account's until another is chosen: it is offered too.
  const listNames =
    currentList === 'default' || lists.names.includes(currentList) ? lists.names : [...lists.names, currentList]
  const modeOption = (value: string, label: string) =>
    html`<option value="${value}"${value === account.billingMode ? html` selected` : ''}>${label}</option>`
  return html`<section class="card" aria-labelledby="edit-account-heading">
<h2 id="edit-account-heading">Edit the account</h2>
<p>The currency cannot change while the account has a prepaid balance, owes on Live invoices or has Live orders in
progress; prepaid to invoice waits until the balance is used or refunded. A credit limit (invoice accounts) holds a
Live order that would take what the account owes above it until it is paid or released.</p>
<form method="post" action="${accountPath(account.id, '/edit')}" class="stack">${csrfField(csrfToken)}
<input type="hidden" name="expectedVersion" value="${String(account.version ?? '')}">
<label for="edit-name">Name</label>
<input id="edit-name" name="name" required maxlength="${String(ACCOUNT_NAME_MAX_LENGTH)}" value="${account.name}">
<label for="edit-billing-mode">Billing mode</label>
<select id="edit-billing-mode" name="billingMode">${modeOption('invoice', 'Invoice (billed afterwards)')}${modeOption('prepaid', 'Prepaid (from a balance)')}</select>
<label for="edit-currency">Billing currency</label>
<input id="edit-currency" name="billingCurrency" required maxlength="3" value="${account.billingCurrency}" autocapitalize="characters">
<label for="edit-price-list">Price list</label>
${selectOf('edit-price-list', 'priceList', ['default', ...listNames], currentList)}
<label for="edit-credit-limit">Credit limit (invoice accounts; empty: no limit)</label>
<input id="edit-credit-limit" name="creditLimit" inputmode="decimal" maxlength="13" value="${account.creditLimit ?? ''}">
<button type="submit">Save the account</button></form>
</section>`
}

function keysCard(account: Account, keys: ApiKeyView[], csrfToken: string): Html {
  const rows = [...keys].reverse()
  return html`<section class="card" aria-labelledby="keys-heading">
<h2 id="keys-heading">API keys</h2>
<form method="post" action="${accountPath(account.id, '/keys')}" class="filters">${csrfField(csrfToken)}
<div class="field"><label for="key-environment">Environment</label>
<select id="key-environment" name="environment">${ENVIRONMENTS.map(
    (environment) => html`<option value="${environment}">${environmentName(environment)}</option>`,
  )}</select></div>
<button type="submit">Create a key</button>
</form>
${
  rows.length === 0
    ? html`<p class="empty">No keys.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="keys-caption"><table class="keys"><caption id="keys-caption" class="visually-hidden">Keys of ${account.id}, newest first</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Environment</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows.map(
        (key) => html`<tr>
<th scope="row"><code>${key.prefix}…</code></th>
<td>${environmentName(key.environment)}</td>
<td>${formatTime(key.created)}</td>
<td>${key.revoked ? html`<span class="badge badge-cancelled">Revoked</span> ${formatTime(key.revoked)}` : html`<span class="badge badge-ok">Active</span>`}</td>
<td>${
          key.revoked
            ? ''
            : html`<form method="post" action="${accountPath(account.id, '/keys/revoke')}">${csrfField(csrfToken)}<input type="hidden" name="prefix" value="${key.prefix}"><button type="submit" class="button-quiet button-small" aria-label="Revoke key ${key.prefix}">Revoke</button></form>`
        }</td>
</tr>`,
      )}</tbody></table></div>`
}
</section>`
}

function topUpCard(account: Account, csrfToken: string): Html {
  if (account.billingMode !== 'prepaid') return html``
  return html`<section class="card" aria-labelledby="top-up-heading">
<h2 id="top-up-heading">Top up</h2>
<p>Adds to the balance (${balanceText(account)}), then pays from it, oldest first, every Live order waiting for a
payment that the balance now covers.</p>
<form method="post" action="${accountPath(account.id, '/top-up')}" class="stack">${csrfField(csrfToken)}
<label for="top-up-amount">Amount in ${account.billingCurrency}</label>
<input id="top-up-amount" name="amount" required inputmode="decimal" pattern="[0-9]{1,10}([.][0-9]{1,2})?" placeholder="50.00">
<label for="top-up-reference">Reference (optional, e.g. a bank transfer's)</label>
<input id="top-up-reference" name="reference" maxlength="200">
<button type="submit">Top up</button></form>
</section>`
}

const LEDGER_WORDS: Record<string, string> = {
  'top-up': 'Top-up',
  'card-payment': 'Card payment',
  'balance-charge': 'Charge (balance)',
  'balance-refund': 'Refund (balance)',
  'invoice-charge': 'Charge (invoice)',
  'invoice-refund': 'Refund (invoice)',
  'card-refund': 'Refund to the card',
  'card-dispute': 'Disputed card payment (owed)',
  'card-dispute-won': 'Dispute won',
}

function ledgerCard(entries: ConsoleLedgerEntry[]): Html {
  return html`<section aria-labelledby="ledger-heading">
<h2 id="ledger-heading">Recent charges and payments</h2>
${
  entries.length === 0
    ? html`<p class="empty card">No charges or payments yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="ledger-caption"><table class="ledger"><caption id="ledger-caption" class="visually-hidden">The latest ${RECENT_LEDGER_ENTRIES} money movements, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Order</th><th scope="col">Charge</th><th scope="col" class="number">Amount</th><th scope="col">Reference</th></tr></thead>
<tbody>${entries.map(
        (entry) => html`<tr>
<td>${formatTime(entry.at)}</td>
<td>${LEDGER_WORDS[entry.entry] ?? entry.entry}</td>
<td>${entry.orderId ?? html`<span class="muted">—</span>`}</td>
<td>${entry.chargeId ? html`<code>${entry.chargeId}</code>` : html`<span class="muted">—</span>`}</td>
<td class="number">${entry.amount} ${entry.currency}</td>
<td>${entry.reference ?? ''}</td>
</tr>`,
      )}</tbody></table></div>`
}
</section>`
}

/**
 * A refusal the operator can act on (the services' ServiceError, an action's OperatorRefusal in the console's words)
 * as a notice; anything else is a failure.
 */
function refusalNotice(error: unknown): Notice {
  if (error instanceof ServiceError) return { kind: 'error', text: error.message }
  if (error instanceof OperatorRefusal) return { kind: 'error', text: refusalInConsoleWords(error) }
  throw error
}

/** The account's storefront channels, one line each, each linking to its row on the console's channels page. */
function channelsCard(channels: AdminChannelRow[] | undefined): Html {
  if (channels === undefined) return html``
  return html`<section class="card" aria-labelledby="channels-heading">
<h2 id="channels-heading">Channels</h2>
${
  channels.length === 0
    ? html`<p class="empty">No storefront channel.</p>`
    : html`<ul class="plain account-channels">${channels.map(
        (channel) =>
          html`<li data-channel="${channel.channelId}"><a href="${ADMIN_PATH}/channels?account=${encodeURIComponent(channel.accountId)}#${encodeURIComponent(channel.channelId)}">${channel.channelId}</a> ${channel.type === 'shopify' ? 'Shopify' : 'WooCommerce'} <span class="break">${channel.store}</span> (${environmentName(channel.environment)}): ${
            channel.status === 'failing'
              ? html`<span class="badge badge-error">Failing</span>`
              : channel.status === 'uninstalled'
                ? html`<span class="badge badge-cancelled">Uninstalled</span>`
                : html`<span class="badge badge-ok">Active</span>`
          }${channel.notConnected > 0 ? html` <span class="muted">${String(channel.notConnected)} not connected</span>` : ''}</li>`,
      )}</ul>`
}
</section>`
}

/** The most channels an account's page lists (an account has at most 20 per environment). */
const ACCOUNT_CHANNELS = 100

export function registerAccountsPages(
  pages: FastifyInstance,
  console: AdminConsole,
  deps: ConsoleAccounts,
  channels?: ConsoleChannels,
): void {
  const sendList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: {
      search: string
      notice?: Notice
      status?: number
      values?: { name: string; currency: string; mode: string }
    },
  ) => {
    const all = await deps.listAccounts()
    const found = all.filter((account) => matches(account, input.search))
    return console.sendPage(request, reply, {
      section: 'accounts',
      title: 'Accounts',
      status: input.status ?? 200,
      notice: input.notice ?? null,
      content: html`<div class="page-head"><h1>Accounts</h1></div>
<form method="get" action="${accountsPath()}" class="filters" role="search">
<div class="field field-wide"><label for="account-search">Search by account ID or name</label>
<input id="account-search" name="q" type="search" maxlength="${MAX_SEARCH_LENGTH}" value="${input.search}"></div>
<button type="submit">Search</button>${input.search !== '' ? html` <a href="${accountsPath()}">Show all</a>` : ''}
</form>
<p class="result-count muted">${found.length} of ${all.length} account${all.length === 1 ? '' : 's'}</p>
${accountsList(found, input.search)}
${createAccountForm(request.signedInOperator.csrfToken, input.values ?? { name: '', currency: 'GBP', mode: 'invoice' })}`,
    })
  }

  pages.get<{ Querystring: { q?: string } }>('/accounts', async (request, reply) => {
    const search = typeof request.query.q === 'string' ? request.query.q.trim().slice(0, MAX_SEARCH_LENGTH) : ''
    return sendList(request, reply, { search })
  })

  pages.post<{ Body: Form }>('/accounts', async (request, reply) => {
    const values = {
      name: field(request.body, 'name'),
      currency: field(request.body, 'billingCurrency').toUpperCase(),
      mode: field(request.body, 'billingMode'),
    }
    if (values.mode !== 'invoice' && values.mode !== 'prepaid') {
      return sendList(request, reply, {
        search: '',
        status: 400,
        values,
        notice: { kind: 'error', text: 'Billing mode: choose invoice or prepaid.' },
      })
    }
    try {
      const created = await deps.createAccount(
        { name: values.name, billingCurrency: values.currency, billingMode: values.mode },
        operatorOf(request),
      )
      return sendAccount(request, reply, created.account.id, {
        keys: created.keys,
        notice: { kind: 'success', text: `Created ${created.account.id} (${created.account.name}).` },
      })
    } catch (error) {
      return sendList(request, reply, { search: '', status: 400, values, notice: refusalNotice(error) })
    }
  })

  async function sendAccount(
    request: FastifyRequest,
    reply: FastifyReply,
    accountId: string,
    input: { keys?: Partial<Record<Environment, string>>; notice?: Notice } = {},
  ) {
    const account = await deps.getAccount(accountId)
    if (!account) {
      return console.sendPage(request, reply, {
        section: 'accounts',
        title: 'Not found',
        status: 404,
        content: html`<h1>Not found</h1><p>There is no account <code>${accountId}</code>.</p>
<p><a href="${accountsPath()}">All accounts</a></p>`,
      })
    }
    const [keys, ledger, settings, priceLists, openAmount, accountChannels, cardPayments] = await Promise.all([
      deps.listKeys(account.id),
      deps.recentLedger(account.id, RECENT_LEDGER_ENTRIES),
      deps.settings(account.id),
      deps.priceLists(),
      deps.openAmount(account.id),
      channels?.listChannels({ accountId: account.id, limit: ACCOUNT_CHANNELS }),
      deps.cardPayments ? deps.cardPayments(account.id) : undefined,
    ])
    const { csrfToken } = request.signedInOperator
    return console.sendPage(request, reply, {
      section: 'accounts',
      title: `${account.id} ${account.name}`,
      notice: input.notice ?? null,
      content: html`<p class="breadcrumb"><a href="${accountsPath()}">Accounts</a></p>
<div class="page-head"><h1>${account.name} <span class="muted">${account.id}</span></h1>${statusBadge(account)}</div>
${keysOnce(account, input.keys ?? {})}
${factsCard(account, openAmount)}
${keysCard(account, keys, csrfToken)}
${settingsCard(account, settings, csrfToken)}
<div class="two-columns">
${topUpCard(account, csrfToken)}${suspensionCard(account, csrfToken)}
</div>
${editCard(account, priceLists, csrfToken)}
${priceListCard(account, priceLists, csrfToken)}
${channelsCard(accountChannels)}
${cardPayments ? accountPaymentsCard(cardPayments) : ''}
${ledgerCard(ledger)}`,
    })
  }

  pages.get<{ Params: { accountId: string } }>('/accounts/:accountId', (request, reply) =>
    sendAccount(request, reply, request.params.accountId),
  )

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/keys', async (request, reply) => {
    const { accountId } = request.params
    const environment = ENVIRONMENTS.find((candidate) => candidate === field(request.body, 'environment'))
    if (!environment) {
      return console.redirect(reply, accountPath(accountId), {
        kind: 'error',
        text: 'Environment: choose Sandbox or Live.',
      })
    }
    try {
      const issued = await deps.createKey(accountId, environment, operatorOf(request))
      return sendAccount(request, reply, accountId, {
        keys: { [environment]: issued.key },
        notice: { kind: 'success', text: `Created the ${environmentName(environment)} key ${issued.prefix}.` },
      })
    } catch (error) {
      return console.redirect(reply, accountPath(accountId), refusalNotice(error))
    }
  })

  registerAccountActions(pages, console, deps)
}

/**
 * The forms of an account's page that change it and go back to it with a notice: keys revoked, settings, top-up,
 * suspension, price list, reactivation.
 */
function registerAccountActions(pages: FastifyInstance, console: AdminConsole, deps: ConsoleAccounts): void {
  /** Runs an action of an account's page and goes back to it with a notice of how it went. */
  const action = async (reply: FastifyReply, accountId: string, work: () => Promise<string>): Promise<FastifyReply> => {
    let notice: Notice
    try {
      notice = { kind: 'success', text: await work() }
    } catch (error) {
      notice = refusalNotice(error)
    }
    return console.redirect(reply, accountPath(accountId), notice)
  }

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/keys/revoke', (request, reply) => {
    const { accountId } = request.params
    const prefix = field(request.body, 'prefix')
    return action(reply, accountId, async () => {
      await deps.revokeKey(accountId, prefix, operatorOf(request))
      return `Revoked the key ${prefix}.`
    })
  })

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/settings', (request, reply) =>
    action(reply, request.params.accountId, () =>
      saveSettings(deps, request.params.accountId, request.body, operatorOf(request)),
    ),
  )

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/top-up', (request, reply) => {
    const { accountId } = request.params
    const reference = field(request.body, 'reference')
    return action(reply, accountId, async () => {
      const result = await deps.topUp(accountId, field(request.body, 'amount'), reference || null, operatorOf(request))
      const released = result.releasedOrderIds.length
      return (
        `Topped up: the balance is ${result.balance} ${result.currency}.` +
        (released > 0 ? ` Paid and released ${released} order${released === 1 ? '' : 's'}.` : '')
      )
    })
  })

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/suspend', (request, reply) => {
    const { accountId } = request.params
    const reason = field(request.body, 'reason')
    return action(reply, accountId, async () => {
      await deps.suspend(accountId, reason || null, operatorOf(request))
      return `Suspended ${accountId}: its keys answer 403 and its dashboard sessions have ended.`
    })
  })

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/price-list', (request, reply) => {
    const { accountId } = request.params
    return action(reply, accountId, async () => {
      const account = await deps.setPriceList(accountId, field(request.body, 'list'), operatorOf(request))
      return account.priceList
        ? `${accountId} is priced on the price list ${account.priceList}.`
        : `${accountId} is priced on the catalogue's default price list.`
    })
  })

  pages.post<{ Params: { accountId: string }; Body: Form }>('/accounts/:accountId/edit', (request, reply) => {
    const { accountId } = request.params
    const edit = {
      name: field(request.body, 'name'),
      billingMode: field(request.body, 'billingMode'),
      billingCurrency: field(request.body, 'billingCurrency'),
      priceList: field(request.body, 'priceList') || 'default',
      creditLimit: field(request.body, 'creditLimit'),
      expectedVersion: field(request.body, 'expectedVersion'),
    }
    return action(reply, accountId, async () => {
      const account = await deps.editAccount(accountId, edit, operatorOf(request))
      return `Saved ${account.id} (${account.name}).`
    })
  })

  pages.post<{ Params: { accountId: string } }>('/accounts/:accountId/reactivate', (request, reply) => {
    const { accountId } = request.params
    return action(reply, accountId, async () => {
      await deps.reactivate(accountId, operatorOf(request))
      return `Reactivated ${accountId}: its keys work again.`
    })
  })
}
