// Every setting of printroute, read once from command-line flags and environment variables, validated,
// and documented in docs/configuration.md. Flags win over environment variables, which win over defaults.
import { resolve } from 'node:path'
import { parseByteSize } from './domain/byte-size.ts'
import { parseDurationSeconds } from './domain/duration.ts'
import { DEFAULT_EVENT_VENDOR, EVENT_VENDOR_PATTERN } from './domain/order-events.ts'

export interface DatabaseSettings {
  /** Directory of the embedded database and stored files. */
  dataDir: string
  /** An external PostgreSQL server instead of the embedded database. */
  databaseUrl: string | null
}

export interface WorkerSettings extends DatabaseSettings {
  catalogueFile: string | null
  logLevel: string
  /** Downloads may reach loopback and private addresses (local testing only). */
  allowPrivateUrls: boolean
  downloadRetryBaseSeconds: number
  simulatedLabStepSeconds: number
  simulateLiveLabs: boolean
  simulatedUnavailableSkus: string[]
  assetRetentionDays: number
  simulatedRejectRate: number
  maxDownloadBytes: number
  /** An S3-compatible bucket for stored files instead of the data directory. */
  blobStoreUrl: string | null
  /** Base URLs printroute's files are served under, per environment; null: the listening address. */
  livePublicUrl: string | null
  sandboxPublicUrl: string | null
  /** `<vendor>` in callback event types, `com.<vendor>.order...` (set it to what an existing client expects). */
  eventVendor: string
}

export interface ServeSettings extends WorkerSettings {
  host: string
  livePort: number
  sandboxPort: number
  requestTimeoutMs: number
  /** false: this process serves the API only and leaves the jobs to `printroute worker` processes. */
  workers: boolean
}

export class SettingsError extends Error {}

type Flags = Record<string, string | boolean | undefined>

function text(flags: Flags, flag: string, envName: string | null, fallback: string): string
function text(flags: Flags, flag: string, envName: string | null, fallback: null): string | null
function text(flags: Flags, flag: string, envName: string | null, fallback: string | null): string | null {
  const fromFlag = flags[flag]
  if (typeof fromFlag === 'string') return fromFlag
  const fromEnv = envName ? process.env[envName] : undefined
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  return fallback
}

function port(value: string, name: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 0 || number > 65535) {
    throw new SettingsError(`${name} must be a port number (0-65535), got "${value}"`)
  }
  return number
}

export function readDatabaseSettings(flags: Flags): DatabaseSettings {
  return {
    dataDir: resolve(text(flags, 'data-dir', 'PRINTROUTE_DATA_DIR', './data')),
    databaseUrl: text(flags, 'database-url', 'DATABASE_URL', null),
  }
}

function duration(flags: Flags, flag: string, envName: string, fallback: string, minimumSeconds: number): number {
  let seconds: number
  try {
    seconds = parseDurationSeconds(text(flags, flag, envName, fallback))
  } catch (error) {
    throw new SettingsError(`--${flag}: ${(error as Error).message}`)
  }
  if (seconds < minimumSeconds) throw new SettingsError(`--${flag} must be at least ${minimumSeconds}s`)
  return seconds
}

function flag(flags: Flags, name: string, envName: string): boolean {
  if (flags[name] === true) return true
  const fromEnv = process.env[envName]
  return fromEnv === '1' || fromEnv === 'true'
}

function publicUrl(value: string | null, name: string): string | null {
  if (value === null) return null
  if (!/^https?:\/\/[^/\s]+$/i.test(value.replace(/\/$/, ''))) {
    throw new SettingsError(`${name} must be a base URL such as https://printroute.example.com, got "${value}"`)
  }
  return value.replace(/\/$/, '')
}

function eventVendor(value: string): string {
  if (!EVENT_VENDOR_PATTERN.test(value)) {
    throw new SettingsError(
      `--event-vendor must be one DNS label (letters, digits, inner hyphens) such as prodigi, got "${value}"`,
    )
  }
  return value
}

function rate(value: string): number {
  const number = Number(value)
  if (!Number.isFinite(number) || number < 0 || number > 1) {
    throw new SettingsError(`--sim-lab-reject-rate must be a number from 0 to 1, got "${value}"`)
  }
  return number
}

function byteSize(value: string, name: string): number {
  try {
    const bytes = parseByteSize(value)
    if (bytes < 1) throw new Error('must be at least 1 byte')
    return bytes
  } catch (error) {
    throw new SettingsError(`${name}: ${(error as Error).message}`)
  }
}

export function readWorkerSettings(flags: Flags): WorkerSettings {
  const catalogue = text(flags, 'catalogue', 'PRINTROUTE_CATALOGUE', null)
  const skus = text(flags, 'sim-lab-unavailable-skus', 'PRINTROUTE_SIM_LAB_UNAVAILABLE_SKUS', '')
  return {
    ...readDatabaseSettings(flags),
    catalogueFile: catalogue ? resolve(catalogue) : null,
    logLevel: text(flags, 'log-level', 'PRINTROUTE_LOG_LEVEL', 'info'),
    allowPrivateUrls: flag(flags, 'allow-private-urls', 'PRINTROUTE_ALLOW_PRIVATE_URLS'),
    downloadRetryBaseSeconds: duration(flags, 'download-retry-base', 'PRINTROUTE_DOWNLOAD_RETRY_BASE', '30s', 0),
    simulatedLabStepSeconds: duration(flags, 'sim-lab-step', 'PRINTROUTE_SIM_LAB_STEP', '2s', 0),
    simulateLiveLabs: flag(flags, 'simulate-live-labs', 'PRINTROUTE_SIMULATE_LIVE_LABS'),
    simulatedUnavailableSkus: skus
      .split(',')
      .map((sku) => sku.trim())
      .filter((sku) => sku !== ''),
    simulatedRejectRate: rate(text(flags, 'sim-lab-reject-rate', 'PRINTROUTE_SIM_LAB_REJECT_RATE', '0')),
    maxDownloadBytes: byteSize(
      text(flags, 'max-download-size', 'PRINTROUTE_MAX_DOWNLOAD_SIZE', '200MiB'),
      '--max-download-size',
    ),
    assetRetentionDays: Math.floor(
      duration(flags, 'asset-retention', 'PRINTROUTE_ASSET_RETENTION', '30d', 86_400) / 86_400,
    ),
    blobStoreUrl: text(flags, 'blob-store', 'PRINTROUTE_BLOB_STORE', null),
    livePublicUrl: publicUrl(text(flags, 'public-url', 'PRINTROUTE_PUBLIC_URL', null), '--public-url'),
    sandboxPublicUrl: publicUrl(
      text(flags, 'sandbox-public-url', 'PRINTROUTE_SANDBOX_PUBLIC_URL', null),
      '--sandbox-public-url',
    ),
    eventVendor: eventVendor(text(flags, 'event-vendor', 'PRINTROUTE_EVENT_VENDOR', DEFAULT_EVENT_VENDOR)),
  }
}

export function readServeSettings(flags: Flags): ServeSettings {
  return {
    ...readWorkerSettings(flags),
    host: text(flags, 'host', 'PRINTROUTE_HOST', '127.0.0.1'),
    livePort: port(text(flags, 'port', 'PORT', '8080'), '--port'),
    sandboxPort: port(text(flags, 'sandbox-port', 'PRINTROUTE_SANDBOX_PORT', '8081'), '--sandbox-port'),
    requestTimeoutMs: duration(flags, 'request-timeout', 'PRINTROUTE_REQUEST_TIMEOUT', '60s', 1) * 1000,
    workers: flags['no-workers'] !== true,
  }
}
