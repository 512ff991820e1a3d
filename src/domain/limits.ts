// Limits that both the services enforce and the API's wire schemas (http/schemas/) publish: defined here so the
// schemas need not import a service for a number, and the two can never disagree.

/**
 * GET /v4.0/callbacks' page size when `top` is absent, and the largest page it and the events feed accept (the
 * feed's default).
 */
export const CALLBACK_LIST_DEFAULT_TOP = 10
export const CALLBACK_LIST_MAX_TOP = 100

/** GET /v4.0/products (printroute's addition): the page size when `top` is absent, and the largest accepted. */
export const PRODUCT_LIST_DEFAULT_TOP = 20
export const PRODUCT_LIST_MAX_TOP = 100

/** Longest pause window an account may set (ours; the specification gives none): 30 days. */
export const MAX_PAUSE_WINDOW_SECONDS = 30 * 86_400
/** After a rotation the old signing secret keeps signing this long unless told otherwise: 24 hours. */
export const DEFAULT_SIGNING_OVERLAP_SECONDS = 86_400
/** The longest overlap accepted: 30 days. */
export const MAX_SIGNING_OVERLAP_SECONDS = 30 * 86_400
/** Whether an overlap (seconds) is accepted: whole seconds from 0 to MAX_SIGNING_OVERLAP_SECONDS. */
export function isSigningOverlap(seconds: number): boolean {
  return Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_SIGNING_OVERLAP_SECONDS
}

/**
 * The lab API's tracking report (POST /labs/v1/jobs/{shipmentId}/tracking, docs/pipeline.md#tracking-reports): how
 * many scans one report carries, the longest text of each field, and how far in the future of the service's clock
 * a scan's time may be (the lab's clock may run a little ahead; a scan further ahead is a mistake).
 */
export const TRACKING_REPORT_LIMITS = {
  maxEvents: 100,
  maxTimeLength: 40,
  maxDescriptionLength: 500,
  maxLocationLength: 200,
  clockSkewSeconds: 300,
} as const

/**
 * The most jobs a day a lab's capacity may name, whether the lab reports it (PUT /labs/v1/capacity `jobsToday`)
 * or the catalogue sets it (`dailyJobLimit`): far above any one lab's day, low enough to catch a typo.
 */
export const MAX_LAB_JOBS_PER_DAY = 10_000

/**
 * The largest catalogue file a version may be (docs/catalogue.md#versions), in bytes: 8 MiB, over 30 times the
 * bundled sample. The admin channel and the console's import form take bodies big enough for a file this size
 * (`CATALOGUE_BODY_LIMIT_BYTES`).
 */
export const MAX_CATALOGUE_BYTES = 8 * 1_048_576
/**
 * The body limit of the requests that carry a catalogue file (the admin channel, the console's import form):
 * three times the file's, as JSON or form encoding can escape each byte into several.
 */
export const CATALOGUE_BODY_LIMIT_BYTES = 3 * MAX_CATALOGUE_BYTES
/** GET /v4.0/account/audit (and the console's audit page): the page size when `top` is absent, and the largest. */
export const AUDIT_LIST_DEFAULT_TOP = 20
export const AUDIT_LIST_MAX_TOP = 100

/**
 * The instants a date-time may name, and the days a date may: years 0001 to 9999, in UTC (docs/errors.md). Year 0 and
 * years past 9999 are refused by the embedded database (PGlite sends a Date as its ISO text, which PostgreSQL reads
 * only for years 1 to 9999), so one rule at the validator keeps both databases answering the same 400 rather than
 * one of them a 500. .NET's DateTime.MinValue and MaxValue, which clients send for "no bound", fit.
 */
export const DATE_TIME_RANGE = {
  earliest: '0001-01-01T00:00:00Z',
  latest: '9999-12-31T23:59:59.999Z',
  earliestDate: '0001-01-01',
  latestDate: '9999-12-31',
} as const
const EARLIEST_MS = Date.parse(DATE_TIME_RANGE.earliest)
const LATEST_MS = Date.parse(DATE_TIME_RANGE.latest)

/** Which bound an instant (milliseconds since 1970) is beyond: `earliest`, `latest`, or undefined when within. */
export function dateTimeBeyondRange(ms: number): 'earliest' | 'latest' | undefined {
  if (ms < EARLIEST_MS) return 'earliest'
  if (ms > LATEST_MS) return 'latest'
  return undefined
}

/**
 * The lab portal's history of closed jobs: jobs per page, the farthest a page may start (jobs skipped), and the
 * longest search used (characters; a longer one is cut).
 */
export const LAB_JOB_HISTORY_LIMITS = { pageSize: 25, maxSkip: 100_000, searchMaxLength: 100 } as const

/**
 * The preflight inspector's bounds (docs/print-files.md, "Preflight limits"): whatever a customer's file holds, its
 * inspection ends within these, in a child process of its own that is killed when it overruns, and answers
 * `unreadable` with the bound it hit. Above any real photo book or photo: the benchmark's 200-page, 345 MB book
 * peaked at 440 MB (the file plus about 95 MB) and took 34 s on a heavily shared machine (docs/benchmarks.md).
 */
export const PREFLIGHT_LIMITS = {
  /** Largest file inspected: 512 MiB (a 200-page book of full-page 300 dpi photos is about 300 MB). */
  maxBytes: 512 * 1_048_576,
  /** Most PDF pages measured; a longer file is answered by its page count alone. */
  maxPages: 2_000,
  /** Wall-clock time one inspection may take, start of its process included. */
  timeoutMs: 60_000,
  /** Resident memory the inspecting process may reach (its V8 heap is capped at the same figure). */
  maxMemoryMb: 1_024,
  /** Largest image (width x height) measured; larger is `tooLarge`, read from the header without decoding. */
  maxPixels: 150_000_000,
  /** Inspections running at once; further ones wait their turn (each is a process of its own). */
  concurrency: 2,
} as const
export type PreflightLimits = { readonly [K in keyof typeof PREFLIGHT_LIMITS]: number }

/**
 * Draft orders and per-order holds (docs/api.md#drafts-and-holds): a draft not confirmed within 30 days is
 * cancelled; a `holdUntil` may name at most 14 days ahead of the create.
 */
export const DRAFT_LIFETIME_DAYS = 30
export const MAX_HOLD_DAYS = 14
