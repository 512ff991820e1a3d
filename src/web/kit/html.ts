// HTML by tagged templates: every interpolated value is escaped unless it is already `Html` (made by `html`
// or `raw`), so a page cannot be broken, or scripted, by an order's text. Arrays are joined; null,
// undefined and false render nothing, so `${cond && html`...`}` reads naturally.

export class Html {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
  toString(): string {
    return this.text
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] as string)
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text
  if (value === null || value === undefined || value === false) return ''
  if (Array.isArray(value)) return value.map(render).join('')
  return escapeHtml(String(value))
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] as string
  for (let index = 0; index < values.length; index++) text += render(values[index]) + strings[index + 1]
  return new Html(text)
}

/** Markup that is trusted as it is (made by this code, never from input). */
export function raw(text: string): Html {
  return new Html(text)
}
