// Merchant URLs split into origin and request target for undici, without re-encoding: the exact bytes a
// signed URL was signed over are the bytes sent. Redirect targets are resolved the same way.
import { DownloadError } from './download-error.ts'

export interface DownloadTarget {
  /** `http://host:port`, as undici wants it. */
  origin: string
  /** The request target exactly as given: path and query, fragment removed. */
  path: string
  /** Host (and port, if not the default) for messages: never the path or query, which may carry secrets. */
  host: string
}

// WHATWG URL parsing strips C0 controls and spaces from both ends and tabs and line breaks from inside;
// inside a URL any control character is refused here rather than silently dropped.
function isC0OrSpace(code: number): boolean {
  return code <= 0x20
}

function trimC0AndSpace(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && isC0OrSpace(text.charCodeAt(start))) start++
  while (end > start && isC0OrSpace(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x20 || code === 0x7f) return true
  }
  return false
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/
// Characters an HTTP request line cannot carry: percent-encoded (as UTF-8), the only change made.
const NOT_SENDABLE = /[\u0020\u0080-\u{10ffff}]/gu

function invalidUrl(message: string): DownloadError {
  return new DownloadError('InvalidUrl', message)
}

/**
 * Splits a URL into origin and request target without re-encoding anything: signed URLs (S3, GCS, CDNs)
 * sign the exact bytes of the path and query, and `%2F`, `+` or `=` rewritten by a URL library breaks the
 * signature. WHATWG URL parsing still validates the URL and supplies the host, so host and path always come
 * from the same reading of the authority.
 */
export function parseDownloadUrl(input: string): DownloadTarget {
  if (typeof input !== 'string') throw invalidUrl('the URL is not a string')
  const text = trimC0AndSpace(input)
  if (text === '') throw invalidUrl('the URL is empty')
  if (hasControlCharacter(text)) throw invalidUrl('the URL contains control characters (a tab or line break?)')
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  if (scheme === undefined) throw invalidUrl('not an absolute URL (it must start with https:// or http://)')
  if (scheme !== 'http' && scheme !== 'https')
    throw invalidUrl(`only http and https URLs are downloaded, not ${scheme}:`)
  const afterScheme = text.slice(scheme.length + 1)
  if (!afterScheme.startsWith('//')) throw invalidUrl(`not an absolute URL (${scheme}: must be followed by //)`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw invalidUrl('not a valid URL')
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidUrl('URLs with a user name or password are not supported')
  }
  if (url.hostname === '') throw invalidUrl('the URL has no host')
  // The authority ends where WHATWG ends it for http(s): at "/", "\", "?" or "#".
  const afterAuthority = afterScheme.slice(2).search(/[/\\?#]/)
  let path = afterAuthority === -1 ? '' : afterScheme.slice(2 + afterAuthority)
  const fragment = path.indexOf('#')
  if (fragment !== -1) path = path.slice(0, fragment) // never sent: fragments are the client's alone
  // A backslash in the path is a slash to WHATWG (and so to browsers) in http(s) URLs; in the query it stays.
  const query = path.indexOf('?')
  const pathPart = query === -1 ? path : path.slice(0, query)
  path = `${pathPart.replaceAll('\\', '/')}${query === -1 ? '' : path.slice(query)}`
  if (!path.startsWith('/')) path = `/${path}`
  path = path.replace(NOT_SENDABLE, (character) => encodeURIComponent(character))
  return { origin: url.origin, path, host: url.host }
}

// RFC 3986 section 5.2.4, on a path starting with "/".
function removeDotSegments(path: string): string {
  const segments = path.split('/').slice(1)
  const output: string[] = []
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1
    if (segment === '.' || segment === '..') {
      if (segment === '..') output.pop()
      if (last) output.push('')
    } else {
      output.push(segment)
    }
  })
  return `/${output.join('/')}`
}

/**
 * The target a Location header points to, resolved against the URL requested (RFC 3986 section 5.2) on the
 * raw text, so a redirect to a signed URL keeps its bytes just as a first URL does.
 */
export function resolveRedirect(location: string, from: DownloadTarget): DownloadTarget {
  const reference = trimC0AndSpace(location)
  if (SCHEME.test(reference)) return parseDownloadUrl(reference)
  const scheme = from.origin.slice(0, from.origin.indexOf(':'))
  // "//host/path" (backslashes count as slashes in http(s), as in browsers): same scheme, another host.
  if (/^[/\\]{2}/.test(reference)) return parseDownloadUrl(`${scheme}://${reference.replace(/^[/\\]+/, '')}`)
  const query = from.path.indexOf('?')
  const basePath = query === -1 ? from.path : from.path.slice(0, query)
  let target: string
  if (reference === '' || reference.startsWith('#')) target = from.path
  else if (reference.startsWith('?')) target = `${basePath}${reference}`
  else if (reference.startsWith('/') || reference.startsWith('\\')) target = reference
  else {
    const end = reference.search(/[?#]/)
    const relativePath = (end === -1 ? reference : reference.slice(0, end)).replaceAll('\\', '/')
    const rest = end === -1 ? '' : reference.slice(end)
    target = `${removeDotSegments(`${basePath.slice(0, basePath.lastIndexOf('/') + 1)}${relativePath}`)}${rest}`
  }
  return parseDownloadUrl(`${from.origin}${target}`)
}
