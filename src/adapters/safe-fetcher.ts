// Downloads merchant-supplied asset URLs without letting them reach printroute's own network (SSRF): every
// connection, including each redirect hop, is checked against the address it actually connects to, at the
// moment it connects, so a DNS answer that changes between a check and the connection (rebinding) cannot
// slip through. Bodies stream to disk with a size cap, an md5 and a magic-byte check. Rules: docs/assets.md.
import { createHash } from 'node:crypto'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as dnsLookup } from 'node:dns/promises'
import { type FileHandle, open, rm } from 'node:fs/promises'
import { isIPv4, isIPv6, type LookupFunction } from 'node:net'
import { Agent, buildConnector, type Dispatcher } from 'undici'
import { SNIFF_BYTES, type SniffedContentType, sniffContentType } from '../domain/content-type.ts'

/** Redirects followed per download; a fourth is `TooManyRedirects` (issue 3, "Asset download"). */
export const MAX_REDIRECTS = 3
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
export const DEFAULT_TOTAL_TIMEOUT_MS = 120_000
/** 200 MiB: a 60x90 cm poster at 300 dpi is about 100 MiB as an uncompressed 8-bit RGB TIFF. */
export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024

export type DownloadErrorCode =
  | 'InvalidUrl'
  | 'ForbiddenAddress'
  | 'TooManyRedirects'
  | 'HttpStatus'
  | 'Timeout'
  | 'TooLarge'
  | 'UnsupportedContent'
  | 'Md5Mismatch'
  | 'Network'

/** Every way a download fails; `message` is written for the order's issue ("Download attempt n of 10 failed: ..."). */
export class DownloadError extends Error {
  override name = 'DownloadError'
  readonly code: DownloadErrorCode
  /** The HTTP status, for `HttpStatus` only. */
  readonly status: number | null

  constructor(code: DownloadErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = options.status ?? null
  }
}

/** Resolves a host name to every address it has, as `dns.lookup(name, { all: true })` does. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>

export interface SafeFetcherOptions {
  /** Lifts the address check (CLI `--allow-private-urls`) except for cloud metadata addresses. Default false. */
  allowPrivateAddresses?: boolean
  /** Time allowed for DNS, TCP and TLS together, per connection. Default 10 s. */
  connectTimeoutMs?: number
  /** Time allowed for the whole download, redirects and body included. Default 120 s. */
  totalTimeoutMs?: number
  /** The largest body accepted, in bytes. Default 200 MiB. */
  maxBytes?: number
  /** Host name resolution; default `dns.lookup` (the system resolver). Tests pass their own. */
  lookup?: ResolveHost
  userAgent?: string
}

export interface DownloadResult {
  bytes: number
  /** Lower-case hex. */
  md5: string
  contentType: SniffedContentType
  /** The URL the body came from, after redirects (host normalised, fragment dropped). */
  finalUrl: string
}

export interface DownloadOptions {
  /** The md5 the file must have (32 hex digits, any case); null or absent: not checked. */
  expectedMd5?: string | null
}

export interface SafeFetcher {
  /**
   * Streams the body of `url` into the file `destinationPath` (created or replaced). Every failure is a
   * `DownloadError` and removes the partial file; only errors writing the file itself (disk full, missing
   * directory) are thrown as they are, being no fault of the download.
   */
  download(url: string, destinationPath: string, options?: DownloadOptions): Promise<DownloadResult>
  /**
   * POSTs `body` to `url` (exactly as given, under the same address rules as downloads) and returns the HTTP
   * status with the start of the answer, whatever the status: redirects are not followed (a 3xx is an answer
   * like any other). No answer within `timeoutMs`, a refused address or a network failure is a `DownloadError`.
   */
  post(url: string, body: string, options: PostOptions): Promise<PostResult>
  /** Closes the kept-alive connections. */
  close(): Promise<void>
}

export interface PostOptions {
  headers: Record<string, string>
  /** Time allowed for the whole exchange: connection, request and the answer's head and snippet. */
  timeoutMs: number
  /** How much of the answer's body is read (the rest is dropped). Default 2 KiB. */
  maxResponseBytes?: number
}

export interface PostResult {
  status: number
  /** The start of the answer's body, as UTF-8 text. */
  body: string
}

// ---------------------------------------------------------------------------------------------------------
// Address ranges. IANA IPv4/IPv6 Special-Purpose Address Registries (RFC 6890 and updates); the labels read
// in messages as "10.0.0.5 is <label>".

interface Ipv4Range {
  base: number
  bits: number
  label: string
}

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0)
}

function ipv4Range(cidr: string, label: string): Ipv4Range {
  const [base = '', bits = ''] = cidr.split('/')
  return { base: ipv4ToNumber(base), bits: Number(bits), label }
}

const CLOUD_METADATA = 'a cloud metadata address'
const NOT_AN_IP_ADDRESS = 'not an IP address'

// Checked in order: the first match names the reason.
const FORBIDDEN_IPV4: readonly Ipv4Range[] = [
  ipv4Range('169.254.169.254/32', CLOUD_METADATA), // AWS, GCP, Azure, OpenStack, DigitalOcean, ...
  ipv4Range('0.0.0.0/8', 'an unspecified ("this network") address'), // Linux connects 0.0.0.0 to itself
  ipv4Range('10.0.0.0/8', 'a private address (RFC 1918)'),
  ipv4Range('100.64.0.0/10', 'a carrier-grade NAT address (RFC 6598)'), // includes Alibaba's 100.100.100.200
  ipv4Range('127.0.0.0/8', 'a loopback address'),
  ipv4Range('169.254.0.0/16', 'a link-local address'),
  ipv4Range('172.16.0.0/12', 'a private address (RFC 1918)'),
  ipv4Range('192.0.0.0/24', 'a reserved address (IETF protocol assignments)'),
  ipv4Range('192.0.2.0/24', 'a documentation address'),
  ipv4Range('192.88.99.0/24', 'a reserved address (6to4 relay anycast)'),
  ipv4Range('192.168.0.0/16', 'a private address (RFC 1918)'),
  ipv4Range('198.18.0.0/15', 'a reserved address (benchmarking)'),
  ipv4Range('198.51.100.0/24', 'a documentation address'),
  ipv4Range('203.0.113.0/24', 'a documentation address'),
  ipv4Range('224.0.0.0/4', 'a multicast address'),
  ipv4Range('255.255.255.255/32', 'the broadcast address'),
  ipv4Range('240.0.0.0/4', 'a reserved address (240.0.0.0/4)'),
]

function ipv4Reason(value: number): string | null {
  for (const range of FORBIDDEN_IPV4) {
    const mask = range.bits === 0 ? 0 : (0xffffffff << (32 - range.bits)) >>> 0
    if ((value & mask) >>> 0 === range.base) return range.label
  }
  return null
}

/** The eight 16-bit groups of an IPv6 address (zone index ignored), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address
  const zone = text.indexOf('%')
  if (zone !== -1) text = text.slice(0, zone)
  if (!isIPv6(text)) return null
  const lastColon = text.lastIndexOf(':')
  const tail = text.slice(lastColon + 1)
  if (tail.includes('.')) {
    const value = ipv4ToNumber(tail)
    text = `${text.slice(0, lastColon + 1)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
  }
  const halves = text.split('::')
  const left = halves[0] ? halves[0].split(':') : []
  const right = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const zeros: string[] = Array(8 - left.length - right.length).fill('0')
  return [...left, ...(halves.length === 2 ? zeros : []), ...right].map((group) => Number.parseInt(group, 16))
}

function ipv6Reason(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number]
  const embeddedIpv4 = ((g6 << 16) | g7) >>> 0
  const upperSixZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) {
    return CLOUD_METADATA // AWS's IPv6 instance metadata endpoint, fd00:ec2::254
  }
  if (upperSixZero && g5 === 0xffff) {
    const reason = ipv4Reason(embeddedIpv4)
    return reason && `${reason}, as an IPv4-mapped IPv6 address`
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    const reason = ipv4Reason(embeddedIpv4)
    return reason && `${reason}, through NAT64`
  }
  if (upperSixZero && g5 === 0 && g6 === 0 && g7 === 0) return 'the unspecified address'
  if (upperSixZero && g5 === 0 && g6 === 0 && g7 === 1) return 'a loopback address'
  if (g0 === 0x2002) {
    const reason = ipv4Reason(((g1 << 16) | g2) >>> 0)
    return reason && `${reason}, through 6to4`
  }
  // Globally routed unicast is 2000::/3; everything outside it that is not handled above is refused.
  if ((g0 & 0xe000) !== 0x2000) {
    if ((g0 & 0xfe00) === 0xfc00) return 'a private address (IPv6 unique local, fc00::/7)'
    if ((g0 & 0xffc0) === 0xfe80) return 'a link-local address'
    if ((g0 & 0xffc0) === 0xfec0) return 'a site-local address (deprecated)'
    if ((g0 & 0xff00) === 0xff00) return 'a multicast address'
    if (g0 === 0x64 && g1 === 0xff9b) return 'a local-use NAT64 address'
    return 'a reserved address (outside 2000::/3)' // ::/8 (IPv4-compatible), 100::/64 (discard), ...
  }
  if (g0 === 0x2001 && g1 === 0x0db8) return 'a documentation address'
  if (g0 === 0x3fff && g1 < 0x1000) return 'a documentation address' // 3fff::/20, RFC 9637
  if (g0 === 0x2001 && g1 < 0x0200) return 'a reserved address (IETF protocol assignments, Teredo)' // 2001::/23
  return null
}

/**
 * Why printroute refuses to connect to `address` (an IPv4 or IPv6 literal), e.g. "a loopback address", or
 * null when it may. Anything that is not an IP address is refused.
 */
export function forbiddenAddressReason(address: string): string | null {
  if (isIPv4(address)) return ipv4Reason(ipv4ToNumber(address))
  const groups = ipv6Groups(address)
  if (groups === null) return NOT_AN_IP_ADDRESS
  return ipv6Reason(groups)
}

/**
 * The reason to refuse `address` under the fetcher's policy, or null: with `allowPrivateAddresses` only
 * cloud metadata addresses are refused, in every spelling (IPv4-mapped, NAT64, 6to4 included).
 */
export function addressRefusalReason(address: string, allowPrivateAddresses: boolean): string | null {
  const reason = forbiddenAddressReason(address)
  if (reason === null || !allowPrivateAddresses) return reason
  // Embedded forms read "a cloud metadata address, as an IPv4-mapped IPv6 address": match the start.
  return reason.startsWith(CLOUD_METADATA) || reason === NOT_AN_IP_ADDRESS ? reason : null
}

// Raised inside the connection (lookup or connector) and turned into a `ForbiddenAddress` DownloadError.
class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError'
  readonly code = 'PRINTROUTE_FORBIDDEN_ADDRESS'
}

function refusal(hostname: string, address: string, reason: string): ForbiddenAddressError {
  const subject = hostname === address ? address : `${hostname} resolves to ${address}, which`
  return new ForbiddenAddressError(`${subject} is ${reason}; printroute does not download from such addresses`)
}

// ---------------------------------------------------------------------------------------------------------
// URLs

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

// ---------------------------------------------------------------------------------------------------------
// The fetcher

// An error writing the destination file: not the download's fault, so thrown to the caller unchanged.
class LocalFileError {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) {
    const { bytesWritten } = await handle.write(chunk, offset).catch((error: unknown) => {
      throw new LocalFileError(error)
    })
    offset += bytesWritten
  }
}

// Reads and drops a body not wanted (redirect, error page) so its connection can be reused; a large one is
// cut off instead. Errors are of no interest.
function discard(body: Dispatcher.ResponseData['body']): void {
  // A body dropped unread may still fail afterwards (the server closes, undici aborts it): that error
  // concerns nobody, and without a listener it would be an uncaught exception.
  body.on('error', () => {})
  body.dump({ limit: 64 * 1024 }).catch(() => {})
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const MD5_PATTERN = /^[0-9a-fA-F]{32}$/
const ACCEPT = 'image/jpeg, image/png, image/tiff, image/webp, application/pdf;q=0.9, */*;q=0.1'

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`)
  return value
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`
  return `${bytes} bytes`
}

function formatSeconds(milliseconds: number): string {
  return `${milliseconds / 1000} s`
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as NodeJS.ErrnoException).code
    if (typeof code === 'string') return code
  }
  return undefined
}

function findForbidden(error: unknown): ForbiddenAddressError | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof ForbiddenAddressError) return current
    // undici may wrap connection errors in an AggregateError (several addresses tried).
    if (current instanceof AggregateError) {
      for (const inner of current.errors) if (inner instanceof ForbiddenAddressError) return inner
    }
  }
  return null
}

const NETWORK_DESCRIPTIONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed before the response was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'body shorter or longer than its Content-Length',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is not valid for this host',
  CERT_HAS_EXPIRED: 'TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate could not be verified',
}

export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const allowPrivateAddresses = options.allowPrivateAddresses === true
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs')
  const totalTimeoutMs = positiveInteger(options.totalTimeoutMs, DEFAULT_TOTAL_TIMEOUT_MS, 'totalTimeoutMs')
  const maxBytes = positiveInteger(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes')
  const resolveHost: ResolveHost = options.lookup ?? ((hostname) => dnsLookup(hostname, { all: true }))
  const userAgent = options.userAgent ?? 'printroute (asset download)'

  // Node's socket calls this for a host name and connects only to the addresses it returns, so the check
  // is on the very addresses connected to. All are checked: with several (Happy Eyeballs tries each), one
  // forbidden address refuses the host, rather than hoping the connection picks another.
  const checkedLookup: LookupFunction = (hostname, lookupOptions: LookupOptions, callback) => {
    Promise.resolve(hostname)
      .then(resolveHost)
      .then(
        (resolved) => {
          const wanted = lookupOptions.family
          const family = wanted === 4 || wanted === 'IPv4' ? 4 : wanted === 6 || wanted === 'IPv6' ? 6 : null
          const addresses = family === null ? resolved : resolved.filter((entry) => entry.family === family)
          const first = addresses[0]
          if (first === undefined) {
            const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
            error.code = 'ENOTFOUND'
            callback(error, lookupOptions.all ? [] : '')
            return
          }
          for (const { address } of addresses) {
            const reason = addressRefusalReason(address, allowPrivateAddresses)
            if (reason !== null) {
              callback(refusal(hostname, address, reason), lookupOptions.all ? [] : '')
              return
            }
          }
          if (lookupOptions.all) callback(null, addresses)
          else callback(null, first.address, first.family)
        },
        (error: NodeJS.ErrnoException) => callback(error, lookupOptions.all ? [] : ''),
      )
  }

  const connectWithLookup = buildConnector({ timeout: connectTimeoutMs, lookup: checkedLookup })
  const connector: buildConnector.connector = (connectOptions, callback) => {
    // A literal IP host never reaches `lookup` (Node connects to it directly), so it is checked here,
    // before the socket exists.
    const hostname = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1')
    if (isIPv4(hostname) || isIPv6(hostname)) {
      const reason = addressRefusalReason(hostname, allowPrivateAddresses)
      if (reason !== null) {
        process.nextTick(callback, refusal(hostname, hostname, reason), null)
        return
      }
    }
    connectWithLookup(connectOptions, callback)
  }
  const agent = new Agent({
    connect: connector,
    // The total timeout governs; these per-phase limits must not cut in before it.
    headersTimeout: totalTimeoutMs,
    bodyTimeout: totalTimeoutMs,
  })

  async function download(
    url: string,
    destinationPath: string,
    downloadOptions: DownloadOptions = {},
  ): Promise<DownloadResult> {
    const expectedMd5 = downloadOptions.expectedMd5 ?? null
    if (expectedMd5 !== null && !MD5_PATTERN.test(expectedMd5)) {
      throw new DownloadError('Md5Mismatch', `the expected md5 "${expectedMd5}" is not 32 hexadecimal digits`)
    }
    let target = parseDownloadUrl(url)
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('total download timeout'))
    }, totalTimeoutMs)
    let fileOpened = false
    try {
      for (let redirects = 0; ; redirects++) {
        const response = await agent.request({
          origin: target.origin,
          path: target.path,
          method: 'GET',
          headers: { accept: ACCEPT, 'accept-encoding': 'identity', 'user-agent': userAgent },
          signal: controller.signal,
        })
        const { statusCode, headers, body } = response
        if (REDIRECT_STATUSES.has(statusCode)) {
          discard(body)
          const location = Array.isArray(headers.location) ? headers.location[0] : headers.location
          if (!location) {
            throw new DownloadError('HttpStatus', `HTTP ${statusCode} without a Location from ${target.host}`, {
              status: statusCode,
            })
          }
          if (redirects === MAX_REDIRECTS) {
            throw new DownloadError(
              'TooManyRedirects',
              `more than ${MAX_REDIRECTS} redirects (the last from ${target.host})`,
            )
          }
          // Downgrades from https to http are followed: plain http is accepted as a first URL too, printroute
          // sends no credentials or cookies a downgrade could expose, and the address check and the md5 apply
          // to every hop alike.
          target = resolveRedirect(location, target)
          continue
        }
        if (statusCode < 200 || statusCode > 299) {
          discard(body)
          throw new DownloadError('HttpStatus', `HTTP ${statusCode} from ${target.host}`, { status: statusCode })
        }
        const declaredLength = Number(headers['content-length'])
        if (headers['content-length'] !== undefined && Number.isFinite(declaredLength) && declaredLength > maxBytes) {
          discard(body)
          throw new DownloadError(
            'TooLarge',
            `${target.host} announced ${formatBytes(declaredLength)}, more than the ${formatBytes(maxBytes)} limit`,
          )
        }

        const hash = createHash('md5')
        let bytes = 0
        let head = Buffer.alloc(0)
        let contentType: SniffedContentType | null | undefined // undefined: not enough bytes seen yet
        const claimed = headers['content-type']
        const said = claimed
          ? `the server called it ${String(claimed).split(';', 1)[0]?.trim()}`
          : 'no Content-Type given'
        const unsupported = () =>
          new DownloadError(
            'UnsupportedContent',
            `the file from ${target.host} is not a JPEG, PNG, TIFF, WebP or PDF file (${said})`,
          )
        let handle: FileHandle
        try {
          handle = await open(destinationPath, 'w')
        } catch (error) {
          discard(body)
          throw new LocalFileError(error)
        }
        fileOpened = true
        body.on('error', () => {}) // errors reach the loop below; this keeps a late one from going uncaught
        try {
          for await (const chunk of body as AsyncIterable<Buffer>) {
            bytes += chunk.length
            if (bytes > maxBytes) {
              throw new DownloadError('TooLarge', `${target.host} sent more than the ${formatBytes(maxBytes)} limit`)
            }
            if (contentType === undefined) {
              head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)])
              if (head.length === SNIFF_BYTES) {
                contentType = sniffContentType(head)
                if (contentType === null) throw unsupported() // early: no need to fetch the rest of a web page
              }
            }
            hash.update(chunk)
            // One chunk at a time: the next is read only once this one is on disk (back-pressure), so memory
            // holds a chunk, never the file.
            await writeAll(handle, chunk)
          }
        } finally {
          await handle.close()
        }
        if (contentType === undefined) contentType = sniffContentType(head)
        if (contentType === null) {
          if (bytes === 0) throw new DownloadError('UnsupportedContent', `${target.host} sent an empty body`)
          throw unsupported()
        }
        const md5 = hash.digest('hex')
        if (expectedMd5 !== null && md5 !== expectedMd5.toLowerCase()) {
          throw new DownloadError('Md5Mismatch', `md5 mismatch: expected ${expectedMd5.toLowerCase()}, got ${md5}`)
        }
        return { bytes, md5, contentType, finalUrl: `${target.origin}${target.path}` }
      }
    } catch (error) {
      if (fileOpened) await rm(destinationPath, { force: true })
      if (error instanceof LocalFileError) throw error.error
      throw asDownloadError(error, target.host, timedOut)
    } finally {
      clearTimeout(timer)
    }
  }

  function asDownloadError(error: unknown, host: string, timedOut: boolean): DownloadError {
    if (error instanceof DownloadError) return error
    const forbidden = findForbidden(error)
    if (forbidden) return new DownloadError('ForbiddenAddress', forbidden.message, { cause: error })
    if (timedOut) {
      return new DownloadError(
        'Timeout',
        `the download from ${host} did not finish within ${formatSeconds(totalTimeoutMs)}`,
        { cause: error },
      )
    }
    const code = errorCode(error)
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new DownloadError('Timeout', `no connection to ${host} within ${formatSeconds(connectTimeoutMs)}`, {
        cause: error,
      })
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new DownloadError('Timeout', `${host} stopped responding`, { cause: error })
    }
    const description = (code && NETWORK_DESCRIPTIONS[code]) ?? (error instanceof Error ? error.message : String(error))
    return new DownloadError('Network', `could not download from ${host}: ${description}${code ? ` (${code})` : ''}`, {
      cause: error,
    })
  }

  async function post(url: string, body: string, postOptions: PostOptions): Promise<PostResult> {
    const target = parseDownloadUrl(url)
    const timeoutMs = positiveInteger(postOptions.timeoutMs, DEFAULT_TOTAL_TIMEOUT_MS, 'timeoutMs')
    const maxResponseBytes = positiveInteger(postOptions.maxResponseBytes, 2048, 'maxResponseBytes')
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort(new Error('request timeout'))
    }, timeoutMs)
    try {
      const response = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { 'user-agent': userAgent, ...postOptions.headers },
        body,
        signal: controller.signal,
      })
      response.body.on('error', () => {})
      let head = Buffer.alloc(0)
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        head = Buffer.concat([head, chunk.subarray(0, maxResponseBytes - head.length)])
        if (head.length >= maxResponseBytes) break
      }
      if (head.length >= maxResponseBytes) discard(response.body)
      return { status: response.statusCode, body: head.toString('utf8') }
    } catch (error) {
      if (error instanceof DownloadError) throw error
      const forbidden = findForbidden(error)
      if (forbidden) {
        throw new DownloadError('ForbiddenAddress', forbidden.message.replace('download from', 'call'), {
          cause: error,
        })
      }
      if (timedOut) {
        throw new DownloadError('Timeout', `no answer from ${target.host} within ${formatSeconds(timeoutMs)}`, {
          cause: error,
        })
      }
      const code = errorCode(error)
      if (code === 'UND_ERR_CONNECT_TIMEOUT') {
        throw new DownloadError(
          'Timeout',
          `no connection to ${target.host} within ${formatSeconds(connectTimeoutMs)}`,
          {
            cause: error,
          },
        )
      }
      const description =
        (code && NETWORK_DESCRIPTIONS[code]) ?? (error instanceof Error ? error.message : String(error))
      throw new DownloadError('Network', `could not reach ${target.host}: ${description}${code ? ` (${code})` : ''}`, {
        cause: error,
      })
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    download,
    post,
    close: () => agent.close(),
  }
}
