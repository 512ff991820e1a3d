// The look printroute's PDFs share (the packing slip, invoices and statements, the commercial invoice): A4
// portrait, the same margin, type sizes and grey, and the standard fonts' text made drawable and cut to a width,
// so every document a lab or a merchant receives reads as one family and a long text never runs off the page.
import { PageSizes, type PDFFont, rgb } from 'pdf-lib'

/** A4 portrait, in PDF points. */
export const A4_PORTRAIT = { width: PageSizes.A4[0], height: PageSizes.A4[1] } as const
export const MARGIN = 40
export const TITLE_SIZE = 18
export const TEXT_SIZE = 10
export const LINE_HEIGHT = 13
export const GREY = rgb(0.35, 0.35, 0.35)
const ELLIPSIS = '...'

/**
 * `text` in what the standard fonts can draw (WinAnsi): control characters become spaces, anything else the
 * font has no glyph for becomes `?`, so a name in another script is marked rather than refused.
 */
export function drawable(supported: Set<number>, text: string): string {
  let result = ''
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) result += ' '
    else result += supported.has(code) ? character : '?'
  }
  return result
}

/** `text` cut to `maxWidth` points at `size`, with an ellipsis when anything was cut. */
export function fitted(font: PDFFont, text: string, size: number, maxWidth: number): string {
  if (font.widthOfTextAtSize(text, size) <= maxWidth) return text
  const characters = [...text]
  let low = 0
  let high = characters.length
  // The longest prefix that fits with the ellipsis after it.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    const candidate = `${characters.slice(0, middle).join('')}${ELLIPSIS}`
    if (font.widthOfTextAtSize(candidate, size) <= maxWidth) low = middle
    else high = middle - 1
  }
  return `${characters.slice(0, low).join('').trimEnd()}${ELLIPSIS}`
}
