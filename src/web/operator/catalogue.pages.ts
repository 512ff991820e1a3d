// The console's catalogue section (docs/admin.md, docs/catalogue.md#versions): the stored versions with the
// active one marked, what changed between two of them, activating one, and importing a file pasted into a form
// (a textarea rather than a file upload: the console takes no multipart bodies, and a catalogue is JSON text).
// Every change goes through the catalogue versions service, which validates, records the audit entry and
// serialises activations; this page only shows and asks.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ConsoleCatalogueRefusal } from '../../domain/admin-views.ts'
import { CATALOGUE_DIFF_SECTION_TITLES, type CatalogueDiff } from '../../domain/catalogue-diff.ts'
import type { CatalogueVersionView } from '../../domain/catalogue-versions.ts'
import type { ConsoleCatalogue } from '../../domain/console-sections.ts'
import { CATALOGUE_BODY_LIMIT_BYTES, MAX_CATALOGUE_BYTES } from '../../domain/limits.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole, operatorOf } from './admin-context.ts'

const PATH = `${ADMIN_PATH}/catalogue`

function isRefusal(value: object): value is ConsoleCatalogueRefusal {
  return 'refused' in value
}

/** A version number from a form or query: a whole number from 1, else undefined. */
function versionOf(value: unknown): number | undefined {
  return typeof value === 'string' && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : undefined
}

function versionOptions(versions: readonly CatalogueVersionView[], selected: number | undefined): Html[] {
  return versions.map(
    (version) =>
      html`<option value="${version.version}"${version.version === selected ? html` selected` : ''}>${version.version}${version.active ? ' (active)' : ''}</option>`,
  )
}

function versionsTable(versions: readonly CatalogueVersionView[]): Html {
  const rows = versions
    .slice()
    .reverse()
    .map(
      (version) => html`<tr>
<td>${version.version} ${version.active ? html`<span class="badge badge-ok">active</span>` : ''}</td>
<td>${version.sourceName}</td>
<td>${formatTime(version.importedAt)}<br><span class="muted">${version.importedBy}</span></td>
<td>${version.bytes} bytes<br><span class="muted">sha256 ${version.sha256.slice(0, 12)}</span></td>
<td>${
        version.active
          ? html`<span class="muted">since ${formatTime(version.activatedAt)}${version.activatedBy ? html`, by ${version.activatedBy}` : ''}</span>`
          : html`<form method="get" action="${PATH}/activate"><input type="hidden" name="version" value="${version.version}"><button type="submit" class="button-quiet">Activate version ${version.version}</button></form>`
      }</td>
</tr>`,
    )
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="versions-caption"><table class="table catalogue-versions">
<caption id="versions-caption">Catalogue versions, newest first</caption>
<thead><tr><th scope="col">Version</th><th scope="col">Source</th><th scope="col">Imported</th><th scope="col">Size</th><th scope="col">Active</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}

function compareForm(versions: readonly CatalogueVersionView[], from?: number, to?: number): Html {
  const active = versions.find((version) => version.active)?.version
  const last = versions.at(-1)?.version
  return html`<form method="get" action="${PATH}/diff" class="card stack">
<h2>Compare two versions</h2>
<label for="diff-from">From version</label><select id="diff-from" name="from">${versionOptions(versions, from ?? active)}</select>
<label for="diff-to">To version</label><select id="diff-to" name="to">${versionOptions(versions, to ?? last)}</select>
<button type="submit">Show the changes</button>
</form>`
}

function importForm(
  csrfToken: string,
  values: { content?: string; sourceName?: string; activate?: boolean } = {},
): Html {
  return html`<form method="post" action="${PATH}/import" class="card stack">${csrfField(csrfToken)}
<h2>Import a catalogue file</h2>
<p class="muted">Paste the file's JSON (at most ${Math.floor(MAX_CATALOGUE_BYTES / 1_048_576)} MiB). It is checked in full: on any problem nothing is stored and every problem is listed. The same text as a stored version is that version.</p>
<label for="import-name">Name <span class="muted">(where it came from, shown in the list)</span></label>
<input id="import-name" name="sourceName" maxlength="200" value="${values.sourceName ?? ''}">
<label for="import-content">Catalogue JSON</label>
<textarea id="import-content" name="content" rows="12" required spellcheck="false">${values.content ?? ''}</textarea>
<label class="option-line"><input type="checkbox" name="activate" value="1"${values.activate ? html` checked` : ''}> Make it the active version</label>
<button type="submit">Import</button>
</form>`
}

function diffView(diff: CatalogueDiff): Html {
  if (diff.total === 0) return html`<p>Versions ${diff.from} and ${diff.to} are the same.</p>`
  const sections = diff.sections
    .filter((section) => section.changes.length > 0)
    .map((section) => {
      const id = `diff-${section.section}`
      const rows = section.changes.map(
        (
          change,
        ) => html`<tr><td><span class="badge ${change.change === 'removed' ? 'badge-error' : change.change === 'added' ? 'badge-ok' : 'badge-pending'}">${change.change}</span></td>
<td data-label="Entry">${change.key}</td><td data-label="Version ${String(diff.from)}">${change.before ?? html`<span class="muted">—</span>`}</td><td data-label="Version ${String(diff.to)}">${change.after ?? html`<span class="muted">—</span>`}</td></tr>`,
      )
      return html`<h2 id="${id}">${CATALOGUE_DIFF_SECTION_TITLES[section.section]} <span class="muted">(${section.changes.length})</span></h2>
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="${id}"><table class="table catalogue-diff phone-cards">
<thead><tr><th scope="col">Change</th><th scope="col">Entry</th><th scope="col">Version ${diff.from}</th><th scope="col">Version ${diff.to}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    })
  return html`<p>${diff.total} change${diff.total === 1 ? '' : 's'} from version ${diff.from} to version ${diff.to}.</p>${sections}${priceListAccountsView(diff)}`
}

/** The accounts whose own price list the newer version takes away, and what prices them there instead. */
function priceListAccountsView(diff: CatalogueDiff): Html {
  if (diff.priceListAccounts.length === 0) return html``
  const rows = diff.priceListAccounts.map(
    (account) =>
      html`<tr><td data-label="Account"><a href="${ADMIN_PATH}/accounts/${account.accountId}">${account.accountId}</a></td><td data-label="Price list">${account.priceList}</td><td data-label="On version ${String(diff.to)}">${account.fallsBackTo === null ? "the labs' costs (no default list)" : html`the default list ${account.fallsBackTo}`}</td></tr>`,
  )
  return html`<h2 id="diff-price-list-accounts">Accounts whose price list version ${diff.to} does not have</h2>
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="diff-price-list-accounts"><table class="table catalogue-diff phone-cards">
<thead><tr><th scope="col">Account</th><th scope="col">Price list</th><th scope="col">Priced on version ${diff.to} by</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}

/**
 * The activation's confirmation: what the version changes from the active one (a link to the diff) and the
 * accounts whose own price list it does not have, before the operator confirms.
 */
function activationConfirmation(
  version: number,
  active: number | undefined,
  warnings: readonly string[],
  csrfToken: string,
): Html {
  const warned =
    warnings.length === 0
      ? html`<p>No account buys on a price list this version lacks.</p>`
      : html`<div class="card" role="alert"><h2>Price lists this version does not have</h2><ul class="problems">${warnings.map((warning) => html`<li>${warning}</li>`)}</ul><p>Those accounts' quotes and new orders are priced that way once it is active; an order already charged keeps its prices. Set another list on the account's page to choose otherwise.</p></div>`
  const compare =
    active === undefined || active === version
      ? ''
      : html`<p><a href="${PATH}/diff?from=${String(active)}&amp;to=${String(version)}">What changes from version ${active} to version ${version}</a></p>`
  return html`<h1>Activate catalogue version ${version}?</h1>
<p><a href="${PATH}">All versions</a></p>
${compare}
${warned}
<form method="post" action="${PATH}/activate" class="card stack">${csrfField(csrfToken)}<input type="hidden" name="version" value="${version}"><p>Every process switches to it within seconds; orders in flight and locked quotes keep the version they were made with.</p><button type="submit">Activate version ${version}</button></form>`
}

function problemsList(refusal: ConsoleCatalogueRefusal): Html {
  if (refusal.problems.length === 0) return html``
  return html`<div class="card"><h2>Problems found</h2><ul class="problems">${refusal.problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>`
}

async function sendVersionsPage(
  request: FastifyRequest,
  reply: FastifyReply,
  console: AdminConsole,
  deps: ConsoleCatalogue,
  extra: {
    status?: number
    notice?: Notice | null
    importValues?: Parameters<typeof importForm>[1]
    before?: Html
  } = {},
): Promise<FastifyReply> {
  const versions = await deps.list()
  const { csrfToken } = request.signedInOperator
  const served = deps.servedVersion()
  const active = versions.find((version) => version.active)
  const lag =
    active && active.version !== served
      ? html` <span class="muted">(this process still serves version ${served}; it switches within seconds)</span>`
      : ''
  return console.sendPage(request, reply, {
    section: 'catalogue',
    title: 'Catalogue',
    status: extra.status ?? 200,
    notice: extra.notice ?? null,
    content: html`<h1>Catalogue</h1>
<p>Active version: <strong>${active ? active.version : 'none'}</strong>${lag}. Every process serves the active version and switches to a newly activated one within seconds, without a restart; orders in flight and locked quotes keep the version they were made with.</p>
${extra.before ?? ''}
${versionsTable(versions)}
<div class="two-columns">${compareForm(versions)}${importForm(csrfToken, extra.importValues)}</div>`,
  })
}

export function registerCataloguePages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleCatalogue): void {
  pages.get('/catalogue', async (request, reply) => sendVersionsPage(request, reply, console, deps))

  pages.get<{ Querystring: { from?: string; to?: string } }>('/catalogue/diff', async (request, reply) => {
    const from = versionOf(request.query.from)
    const to = versionOf(request.query.to)
    const versions = await deps.list()
    const answer =
      from === undefined || to === undefined
        ? { refused: 'Choose two versions to compare (from and to: version numbers).', problems: [] }
        : await deps.diff(from, to)
    const refused = isRefusal(answer)
    return console.sendPage(request, reply, {
      section: 'catalogue',
      title: refused ? 'Compare catalogue versions' : `Catalogue versions ${answer.from} and ${answer.to}`,
      status: refused ? (from === undefined || to === undefined ? 400 : 404) : 200,
      notice: refused ? { kind: 'error', text: answer.refused } : null,
      content: html`<h1>Compare catalogue versions</h1>
<p><a href="${PATH}">All versions</a></p>
${refused ? '' : diffView(answer)}
${compareForm(versions, from, to)}`,
    })
  })

  pages.get<{ Querystring: { version?: string } }>('/catalogue/activate', async (request, reply) => {
    const version = versionOf(request.query.version)
    if (version === undefined) {
      return console.redirect(reply, PATH, { kind: 'error', text: 'version: must be a catalogue version number' })
    }
    const warnings = await deps.activationWarnings(version)
    if (isRefusal(warnings)) return console.redirect(reply, PATH, { kind: 'error', text: warnings.refused })
    const active = (await deps.list()).find((entry) => entry.active)?.version
    return console.sendPage(request, reply, {
      section: 'catalogue',
      title: `Activate catalogue version ${version}`,
      status: 200,
      notice: null,
      content: activationConfirmation(version, active, warnings, request.signedInOperator.csrfToken),
    })
  })

  pages.post<{ Body: { version?: string } }>('/catalogue/activate', async (request, reply) => {
    const version = versionOf(request.body?.version)
    if (version === undefined) {
      return console.redirect(reply, PATH, { kind: 'error', text: 'version: must be a catalogue version number' })
    }
    const result = await deps.activate(version, operatorOf(request))
    if (isRefusal(result)) return console.redirect(reply, PATH, { kind: 'error', text: result.refused })
    const text =
      result.previous === result.version
        ? `Version ${version} was already the active one.`
        : `Version ${version} is active (was ${result.previous ?? 'none'}). Every process switches to it within seconds.`
    const warned = result.warnings?.length ? ` Warning: ${result.warnings.join('; ')}.` : ''
    return console.redirect(reply, PATH, { kind: result.warnings?.length ? 'info' : 'success', text: text + warned })
  })

  pages.post<{ Body: { content?: string; sourceName?: string; activate?: string } }>(
    '/catalogue/import',
    // A catalogue is larger than the server's usual body limit (docs/catalogue.md#versions).
    { bodyLimit: CATALOGUE_BODY_LIMIT_BYTES },
    async (request, reply) => {
      const content = typeof request.body?.content === 'string' ? request.body.content : ''
      const sourceName =
        typeof request.body?.sourceName === 'string' && request.body.sourceName.trim() !== ''
          ? request.body.sourceName.trim().slice(0, 200)
          : 'console import'
      const activate = request.body?.activate === '1'
      if (content.trim() === '') {
        return sendVersionsPage(request, reply, console, deps, {
          status: 400,
          notice: { kind: 'error', text: 'content: paste the catalogue file' },
          importValues: { sourceName, activate },
        })
      }
      const result = await deps.import(content, sourceName, operatorOf(request), { activate })
      if (isRefusal(result)) {
        return sendVersionsPage(request, reply, console, deps, {
          status: 400,
          notice: { kind: 'error', text: result.refused },
          importValues: { content, sourceName, activate },
          before: problemsList(result),
        })
      }
      const what = result.created
        ? `Imported as version ${result.version}`
        : `Already stored as version ${result.version}`
      return console.redirect(reply, PATH, {
        kind: 'success',
        text: `${what}${result.active ? ' (active)' : ''}.`,
      })
    },
  )
}
