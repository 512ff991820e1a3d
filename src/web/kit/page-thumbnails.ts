// A preflighted PDF's page thumbnails (docs/print-files.md#page-thumbnails) with the legend of the lines drawn on
// them: shown under the report on the dashboard's order page, its Check a file page and the console's order page.
// The lines are burned into the PNG by the renderer, in THUMBNAIL_OVERLAY's colours, which the legend's classes
// (dashboard.css: key-bleed, key-trim, key-safe) repeat; each key names its colour in data-colour.
import { THUMBNAIL_OVERLAY } from '../../domain/preflight-thumbnails.ts'
import { type Html, html } from './html.ts'

export interface PageThumbnail {
  readonly page: number
  readonly width: number
  readonly height: number
}

/** The thumbnails in a list that wraps (a phone shows two a row), the legend under them; nothing without any. */
export function pageThumbnails(
  thumbnails: readonly PageThumbnail[],
  urlOf: (page: number) => string,
  pageCount: number | null,
): Html {
  if (thumbnails.length === 0) return html``
  const shown = thumbnails.length === pageCount ? '' : ` (${thumbnails.length} of ${pageCount ?? '?'} pages)`
  const key = (name: keyof typeof THUMBNAIL_OVERLAY, words: string, meaning: string) =>
    html`<span class="thumbnail-key key-${name}" data-colour="${THUMBNAIL_OVERLAY[name].colour}">${words}</span> ${meaning}`
  return html`<figure class="page-thumbnails"><ul class="thumbnail-list">${thumbnails.map(
    (thumbnail) =>
      html`<li><a href="${urlOf(thumbnail.page)}"><img src="${urlOf(thumbnail.page)}" width="${thumbnail.width}" height="${thumbnail.height}" alt="Page ${thumbnail.page} with its trim, bleed and safe lines" loading="lazy"></a><span class="small muted">Page ${thumbnail.page}</span></li>`,
  )}</ul><figcaption class="small guides-key">Page thumbnails${shown}. Lines: ${key('bleed', 'bleed', '(blue, dashed: cut off)')}, ${key('trim', 'trim', '(red: where the page is cut)')}, ${key('safe', 'safe area', '(green, dotted: keep text inside)')}.</figcaption></figure>`
}
