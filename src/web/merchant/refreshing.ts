// Parts of a page that refresh themselves (htmx polling) while the work they show is in progress.
import { type Html, html } from '../kit/html.ts'

/** How often a table or order page with work in progress asks for fresh data. */
export const REFRESH_SECONDS = 3

/** Polls `url` every few seconds and swaps in the element with the same id, while `active`. */
export function refreshing(id: string, url: string, active: boolean): Html {
  return active
    ? html` id="${id}" hx-get="${url}" hx-trigger="every ${REFRESH_SECONDS}s" hx-select="#${id}" hx-swap="outerHTML"`
    : html` id="${id}"`
}
