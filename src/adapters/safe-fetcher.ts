// Downloads merchant-supplied asset URLs without letting them reach printroute's own network (SSRF): every
// connection, including each redirect hop, is checked against the address it actually connects to, at the
// moment it connects, so a DNS answer that changes between a check and the connection (rebinding) cannot
// slip through. Bodies stream to disk with a size cap, an md5 and a magic-byte check. Rules: docs/assets.md.
// Which addresses are refused: address-policy.ts; how URLs are read: download-url.ts.
import { createHash } from 'node:crypto'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as dnsLookup } from 'node:dns/promises'
import { type FileHandle, open, rm } from 'node:fs/promises'
import { isIPv4, isIPv6, type LookupFunction } from 'node:net'
import { Agent, buildConnector, type Dispatcher } from 'undici'
import { SNIFF_BYTES, type SniffedContentType, sniffContentType } from '../domain/content-type.ts'
import { addressRefusalReason, callbackRefusalMessage, ForbiddenAddressError, refusal } from './address-policy.ts'
import { DownloadError } from './download-error.ts'
import { parseDownloadUrl, resolveRedirect } from './download-url.ts'

export { DownloadError, type DownloadErrorCode } from './download-error.ts'

/** Redirects followed per download; a fourth is `TooManyRedirects` (docs/assets.md#redirects). */
export const MAX_REDIRECTS = 3
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000
export const DEFAULT_TOTAL_TIMEOUT_MS = 120_000
/** 200 MiB: a 60x90 cm poster at 300 dpi is about 100 MiB as an uncompressed 8-bit RGB TIFF. */
export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024

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
  /** POST unless told otherwise (a storefront's REST API changes an order with PUT). */
  method?: 'POST' | 'PUT'
  headers: Record<string, string>
  /** Time allowed for the whole exchange: connection, request and the answer's head and snippet. */
  timeoutMs: number
  /** How much of the answer's body is read (the rest is dropped). Default 2 KiB. */
  maxResponseBytes?: number
}

export interface PostResult {
  status: number
  /** The answer's headers (names in lower case), e.g. a Retry-After. */
  headers: Record<string, string | string[] | undefined>
  /** The start of the answer's body, as UTF-8 text. */
  body: string
}

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

/** An abort signal that fires after `milliseconds`; `expired` tells a timeout from any other abort. */
function deadline(milliseconds: number, reason: string): { signal: AbortSignal; expired: boolean; clear(): void } {
  const controller = new AbortController()
  const timer = setTimeout(() => {
    state.expired = true
    controller.abort(new Error(reason))
  }, milliseconds)
  const state = { signal: controller.signal, expired: false, clear: () => clearTimeout(timer) }
  return state
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
    const timeout = deadline(totalTimeoutMs, 'total download timeout')
    let fileOpened = false
    try {
      for (let redirects = 0; ; redirects++) {
        const response = await agent.request({
          origin: target.origin,
          path: target.path,
          method: 'GET',
          headers: { accept: ACCEPT, 'accept-encoding': 'identity', 'user-agent': userAgent },
          signal: timeout.signal,
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
      throw asDownloadError(error, target.host, timeout.expired)
    } finally {
      timeout.clear()
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
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new DownloadError('Timeout', `${host} stopped responding`, { cause: error })
    }
    return connectionFailure(error, `could not download from ${host}`, host)
  }

  // What a download and a POST share: no connection in time, or the network's own error after `failure`.
  function connectionFailure(error: unknown, failure: string, host: string): DownloadError {
    const code = errorCode(error)
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new DownloadError('Timeout', `no connection to ${host} within ${formatSeconds(connectTimeoutMs)}`, {
        cause: error,
      })
    }
    const description = (code && NETWORK_DESCRIPTIONS[code]) ?? (error instanceof Error ? error.message : String(error))
    return new DownloadError('Network', `${failure}: ${description}${code ? ` (${code})` : ''}`, { cause: error })
  }

  async function post(url: string, body: string, postOptions: PostOptions): Promise<PostResult> {
    const target = parseDownloadUrl(url)
    const timeoutMs = positiveInteger(postOptions.timeoutMs, DEFAULT_TOTAL_TIMEOUT_MS, 'timeoutMs')
    const maxResponseBytes = positiveInteger(postOptions.maxResponseBytes, 2048, 'maxResponseBytes')
    const timeout = deadline(timeoutMs, 'request timeout')
    try {
      const response = await agent.request({
        origin: target.origin,
        path: target.path,
        method: postOptions.method ?? 'POST',
        headers: { 'user-agent': userAgent, ...postOptions.headers },
        body,
        signal: timeout.signal,
      })
      response.body.on('error', () => {})
      let head = Buffer.alloc(0)
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        head = Buffer.concat([head, chunk.subarray(0, maxResponseBytes - head.length)])
        if (head.length >= maxResponseBytes) break
      }
      if (head.length >= maxResponseBytes) discard(response.body)
      return { status: response.statusCode, headers: response.headers, body: head.toString('utf8') }
    } catch (error) {
      if (error instanceof DownloadError) throw error
      const forbidden = findForbidden(error)
      if (forbidden) {
        throw new DownloadError('ForbiddenAddress', callbackRefusalMessage(forbidden), {
          cause: error,
        })
      }
      if (timeout.expired) {
        throw new DownloadError('Timeout', `no answer from ${target.host} within ${formatSeconds(timeoutMs)}`, {
          cause: error,
        })
      }
      throw connectionFailure(error, `could not reach ${target.host}`, target.host)
    } finally {
      timeout.clear()
    }
  }

  return {
    download,
    post,
    close: () => agent.close(),
  }
}
