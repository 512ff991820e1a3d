// What an application is built from (buildApplication's options) and the defaults it fills in.
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { PaymentProvider } from '../adapters/payment-provider.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { Environment } from '../domain/environment.ts'
import type { PaymentGateway } from '../domain/payment-gateway.ts'
import type { RateLimit } from '../domain/rate-limit.ts'
import type { BoundServer } from '../http/bound-server.ts'
import { ASSET_RETENTION_DAYS } from '../services/pipeline/expire-stored-files.ts'
import type { PipelineSettings } from '../services/pipeline/ports.ts'

/**
 * How often the due-job check runs (see ApplicationOptions.jobPollingSeconds): on PostgreSQL it finds the jobs
 * other processes enqueued to be due later; on PGlite it is a backstop.
 */
export const POSTGRES_JOB_CHECK_SECONDS = 2
export const PGLITE_JOB_CHECK_SECONDS = 30

/** How long a merchant's cancel waits for labs' answers by default (`--lab-cancel-wait`). */
export const DEFAULT_LAB_CANCEL_WAIT_SECONDS = 10

export const DEFAULT_PIPELINE_SETTINGS: PipelineSettings = {
  downloadRetryBaseSeconds: 30,
  simulatedLabStepSeconds: 2,
  simulateLiveLabs: false,
  simulatedUnavailableSkus: [],
  assetRetentionDays: ASSET_RETENTION_DAYS,
  simulatedRejectRate: 0,
  labRoomRetrySeconds: 300,
}

export interface ApplicationOptions {
  db: Database
  /** The PostgreSQL server's URL for pg-boss's own pool; null with PGlite. */
  databaseUrl: string | null
  /** Schema of the job tables (tests isolate themselves with their own). */
  jobSchema?: string
  /**
   * A catalogue to serve (`--catalogue FILE`, tests): stored as a version when its text is new, and activated
   * when the active version's text differs (docs/catalogue.md#versions). Absent: the active version, or the
   * bundled sample as version 1 of an empty database.
   */
  catalogue?: Catalogue
  /** The text `catalogue` was read from (`--catalogue FILE`), stored as it is; else `catalogue.fileText()`. */
  catalogueText?: string
  /** How often this process looks for a newly activated catalogue version; 2 s by default. */
  cataloguePollSeconds?: number
  clock?: Clock
  logger: FastifyBaseLogger | boolean
  requestTimeoutMs?: number
  /** Where downloaded assets, thumbnails and print files are kept. */
  filesDir: string
  /** An S3-compatible bucket instead (`s3://bucket/prefix?endpoint=...`), for several machines. */
  blobStoreUrl?: string | null
  /** Run the background jobs in this process. */
  workers: boolean
  /** Whether this process answers API requests (false for `printroute worker`); true by default. */
  answersRequests?: boolean
  /**
   * How often the job queue looks for due jobs that no wake-up announced (JobQueue.work): by default every
   * 2 s on PostgreSQL (other processes enqueue too) and every 30 s on PGlite (one process: its own enqueues
   * wake the workers; the check is a backstop).
   */
  jobPollingSeconds?: number
  pipeline?: Partial<PipelineSettings>
  allowPrivateUrls?: boolean
  /**
   * The Ghostscript executable (`--ghostscript`) that converts a CMYK lab's book PDFs to its colour; PDFs are
   * passed through as they are when absent or null (docs/print-files.md#pdfs-and-colour).
   */
  ghostscript?: string | null
  /** Largest asset download accepted, in bytes (the fetcher's default when absent). */
  maxDownloadBytes?: number
  /** Base URLs the files printroute serves are reachable at, per environment. */
  publicUrls?: Partial<Record<Environment, string>>
  renderConcurrency?: number
  /**
   * Requests allowed per API key (docs/api.md#rate-limits): the default of `--rate-limit` when absent, none when
   * null. Counted in the database on PostgreSQL (several processes share the limit), in memory on PGlite.
   */
  rateLimit?: RateLimit | null
  /** Count the rate limits in this process's memory even on PostgreSQL (benchmarks compare the two). */
  rateLimitInMemory?: boolean
  /** Takes the card payments of the payment page; the bundled simulated provider when absent. */
  paymentProvider?: PaymentProvider
  /**
   * The hosted-checkout card provider (Stripe) behind Live payments, top-ups, saved cards, refunds and disputes
   * (docs/billing.md#card-payments-through-stripe); null or absent: the simulated provider's page, as before.
   * `serve` builds it from `--payment-provider stripe` and the Stripe secrets.
   */
  paymentGateway?: PaymentGateway | null
  /** `<vendor>` in callback event types (`com.<vendor>.order...`); default `printroute`. */
  eventVendor?: string
  /** Delays of the callback delivery attempts (tests shorten them); the documented schedule by default. */
  callbackRetryScheduleSeconds?: readonly number[]
  /** Ports bound before the application was built (`serve`); they answer once it is ready. */
  servers?: Partial<Record<Environment | 'metrics' | 'admin', BoundServer>>
  /** How long finished callback deliveries, their attempts and unneeded events are kept; 30 days by default. */
  callbackRetentionSeconds?: number
  /**
   * How long a `/files/...` link works from the moment it is sent (in an order, a callback, a lab job);
   * 7 days by default (docs/assets.md, "File links").
   */
  fileLinkTtlSeconds?: number
  /** How long a quote's prices hold (its `expiresAt`); 7 days by default (docs/api.md#price-locked-quotes). */
  quoteLifetimeSeconds?: number
  /**
   * GET /metrics: on the Live server by default; with `port`, on `metricsServer` instead (the caller listens on
   * it). With `token`, scrapes must send `Authorization: Bearer <token>`.
   */
  metrics?: { port?: number | null; token?: string | null }
  /**
   * Serve the operator console (/admin/) on a server of its own (`--admin-port`) instead of on the Live server:
   * `adminServer` is then built, not listening (or on `servers.admin`).
   */
  adminOwnServer?: boolean
  /**
   * How long a merchant's cancel waits for the answers of labs asked to cancel shipments they hold; 10 s by default,
   * 0: it answers at once (docs/api.md#order-actions).
   */
  labCancelWaitSeconds?: number
  /** Days after a delivery a merchant may claim about it (`--claim-window-days`); 30 by default (docs/claims.md). */
  claimWindowDays?: number
  /** Days after which an undisputed claim is resolved as its merchant preferred (`--claim-auto-resolve-days`); 0: never. */
  claimAutoResolveDays?: number
  /** Days after its estimated delivery a parcel with no Delivered scan is reprinted (`--missing-parcel-reprint-days`); 0: never. */
  missingParcelReprintDays?: number
  /** The key storefront channels' secrets are sealed under (docs/channels.md#secrets-at-rest); made at first start when absent. */
  channelSecretsKey?: string | null
  /** Replaces `https://{shopDomain}` as the Shopify Admin API's origin (a stand-in); absent: the shop itself. */
  shopifyApiUrl?: string | null
  /** Delays of the fulfilment outbox's attempts (tests shorten it); the callbacks' schedule when absent. */
  channelRetryScheduleSeconds?: readonly number[]
  /** How long each readiness check (GET /readyz) may take; 2 s by default. */
  readinessTimeoutMs?: number
}
