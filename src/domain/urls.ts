// The one check of every URL a merchant gives printroute to fetch or to call (asset, packing slip and branding
// URLs, order and account callback URLs): it refuses, at the request, URLs that can never be fetched at all,
// which would otherwise be accepted and fail ten download attempts or eight delivery attempts later. It says
// nothing about where a URL may point: which addresses may be reached is the safe fetcher's decision
// (adapters/safe-fetcher.ts), taken at connect time.

/** The longest URL accepted (docs/api.md "Limits"). */
export const MAX_URL_LENGTH = 2_048

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/
// Whitespace and control characters: WHATWG parsing would silently drop or re-encode them, so the URL
// fetched would not be the URL given.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/
// The authority's port: after the last colon outside an IPv6 literal's brackets.
const PORT = /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/

/**
 * Why `text` is not an absolute http(s) URL that could ever be fetched, as a short reason for the failure,
 * or undefined when it is one. Checked: at most 2,048 characters, no whitespace or control characters,
 * scheme http or https followed by `//`, a host, a port from 1 to 65535 when one is given, no user name or
 * password, and that WHATWG URL parsing (what the fetcher uses) accepts it.
 */
export function unfetchableUrlReason(text: string): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`
  if (SPACE_OR_CONTROL.test(text)) {
    return 'contains a space or a control character (percent-encode spaces as %20)'
  }
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  if (scheme === undefined) return 'not an absolute URL: it must start with https:// or http://'
  if (scheme !== 'http' && scheme !== 'https') return `the scheme must be http or https, not ${scheme}`
  const afterScheme = text.slice(scheme.length + 1)
  // WHATWG reads `http:host`, `http:/host` and `http:\\host` as `http://host/`; `http:///a` even as
  // `http://a/`. A URL meant for a program has its two slashes and its host right after them.
  if (!afterScheme.startsWith('//')) return `${scheme}: must be followed by //`
  const authority = afterScheme.slice(2).split(/[/\\?#]/, 1)[0] ?? ''
  if (authority === '') return 'the URL has no host'
  if (authority.includes('@')) return 'the URL carries a user name or password, which is not supported'
  if (authority.startsWith('[') && !authority.includes(']')) return 'the IPv6 address has no closing ]'
  const port = PORT.exec(authority)?.[1]
  if (port !== undefined && port !== '') {
    if (!/^[0-9]+$/.test(port)) return `the port "${port}" is not a number`
    const number = Number(port)
    if (number < 1 || number > 65_535) return `the port ${port} is outside 1 to 65535`
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'not a valid URL (the host cannot be read)'
  }
  if (url.hostname === '') return 'the URL has no host'
  return undefined
}
