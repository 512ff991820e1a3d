// Which characters request text may carry (docs/api.md "Limits", docs/errors.md `InvalidCharacter`).
// PostgreSQL text cannot hold U+0000 at all (the insert fails with "invalid byte sequence"), and control
// characters in a name, an idempotency key or a URL are never what the sender meant: they come from broken
// encodings or from someone probing. One rule, applied by the request validator to every string:
// - free text (names, address lines, metadata, notes): no control character (Unicode category Cc:
//   U+0000-U+001F, U+007F-U+009F) except tab, line feed and carriage return;
// - single-line text (identifiers, references, codes, URLs, and every query and path value): no control
//   character at all;
// - anywhere: no lone surrogate (`\ud800` in JSON), which no database encoding can store as sent.

// Cc without tab (U+0009), line feed (U+000A) and carriage return (U+000D).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this rule's purpose.
const FREE_TEXT_REFUSED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this rule's purpose.
const SINGLE_LINE_REFUSED = /[\u0000-\u001f\u007f-\u009f]/

/** `U+0000`: how a refused character is named in failures. */
function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`
}

/**
 * The first character `text` may not carry, named as `U+XXXX` (a lone surrogate as `U+D800`), or undefined
 * when the text is acceptable. `singleLine` refuses tab, line feed and carriage return too.
 */
export function refusedCharacter(text: string, singleLine: boolean): string | undefined {
  const found = (singleLine ? SINGLE_LINE_REFUSED : FREE_TEXT_REFUSED).exec(text)
  if (found) return codePointName(found[0].charCodeAt(0))
  if (!text.isWellFormed()) {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index)
      if (code < 0xd800 || code > 0xdfff) continue
      const next = text.charCodeAt(index + 1)
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        index++
        continue
      }
      return codePointName(code)
    }
  }
  return undefined
}
