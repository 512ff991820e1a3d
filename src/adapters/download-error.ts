// The one error a download or callback POST fails with; its message is written for the order's issue.
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
  /** A URL under printroute's own /samples/ that names no bundled sample: not fetched, not worth retrying. */
  | 'UnknownSample'

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
