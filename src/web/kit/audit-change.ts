// The change an audit entry records, as the merchant's Activity (developers.page.ts) and the console's audit trail
// (admin/audit.pages.ts) show it in a table cell.
import { type Html, html } from './html.ts'

/** Before and after as short JSON lines (the trail holds only what changed, so they stay short); a dash for none. */
export function auditChangeCell(entry: { before: unknown; after: unknown }): Html {
  const line = (label: string, value: unknown) =>
    value === null || value === undefined
      ? ''
      : html`<div><span class="muted">${label}</span> <code>${JSON.stringify(value)}</code></div>`
  const cell = html`${line('before', entry.before)}${line('after', entry.after)}`
  return cell.text === '' ? html`<span class="muted">—</span>` : cell
}
