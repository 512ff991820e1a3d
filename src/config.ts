// Every setting of printroute, defined once in SETTINGS below: its flag, environment variable, default, help
// text and documentation row. The command line (src/cli/) makes its options from this table, readSettings()
// parses and validates values from it, and the settings table of docs/configuration.md is generated from it
// (`npm run docs:config`; a test fails when the page and this table disagree). Flags win over environment
// variables, which win over defaults.
import { resolve } from 'node:path'
import bytes from 'bytes-iec'
import { MAX_MISSING_PARCEL_REPRINT_DAYS } from './domain/claim-rules.ts'
import { parseDurationSeconds } from './domain/duration.ts'
import { DEFAULT_EVENT_VENDOR, EVENT_VENDOR_PATTERN } from './domain/order-events.ts'
import { DEFAULT_RATE_LIMIT_TEXT, parseRateLimit } from './domain/rate-limit.ts'

export class SettingsError extends Error {}

/** The commands that read or write data: each takes the database settings. */
/** The data commands that name a lab: they take the catalogue setting too, to check the lab against it. */
const LAB_COMMANDS = [
  'labs keys create',
  'labs keys list',
  'labs keys rotate',
  'labs keys revoke',
  'labs pause',
  'labs resume',
  'labs configure',
  'labs show',
  'labs statement',
] as const

/**
 * The operator's actions on an order (docs/admin.md#acting-on-an-order) and on its claims (docs/claims.md#resolutions):
 * they run the whole application, as a top-up.
 */
const ORDER_ACTION_COMMANDS = [
  'orders cancel',
  'orders refund',
  'orders retry',
  'orders release',
  'orders note',
  'orders move',
  'claims list',
  'claims show',
  'claims resolve',
] as const

const DATA_COMMANDS = [
  'serve',
  'worker',
  'migrate',
  'accounts create',
  'accounts list',
  'accounts update',
  'accounts top-up',
  'accounts statement',
  'invoices seller',
  'accounts suspend',
  'accounts reactivate',
  'accounts set-price-list',
  'accounts edit',
  'keys create',
  'keys list',
  'keys revoke',
  ...LAB_COMMANDS,
  'catalogue import',
  'catalogue list',
  'catalogue diff',
  'catalogue activate',
  'catalogue export',
  'audit list',
  'revenue',
  'operators create',
  'operators list',
  'operators revoke',
  ...ORDER_ACTION_COMMANDS,
] as const

/** The commands that take settings (their other options are their own, in src/cli/). */
export const SETTING_COMMANDS = [...DATA_COMMANDS, 'labs list'] as const
export type SettingCommand = (typeof SETTING_COMMANDS)[number]

interface SettingDefinition<T> {
  /**
   * The long flag without dashes; a boolean setting that defaults to on is turned off by `--<flag>`. For an
   * `envOnly` setting, only its name in messages: no such flag exists.
   */
  flag: string
  /**
   * A secret read from its environment variable only, never from a flag (which `ps` shows to every user of the
   * machine); a `...-file` setting beside it names a file holding it instead.
   */
  envOnly?: true
  /** The value's name in help (`--port PORT`); absent for boolean flags. */
  placeholder?: string
  env?: string
  /** The default as a user would write it, parsed like any value; null: no default. */
  default: string | null
  /** How the default reads in help and docs when it is not a plain value ("the bundled sample"). */
  defaultLabel?: string
  /** One line for `--help`. */
  help: string
  /** The docs table's "Meaning" (Markdown); the help line when absent. */
  docs?: string
  commands: readonly SettingCommand[]
  /** Turns the text of a flag, variable or default into the value; throws an Error saying what is wrong. */
  parse(text: string): T
}

// ---------------------------------------------------------------------------------------------------------
// Value parsers. Each throws a plain Error; readSettings() prefixes the flag or variable it came from.

function port(text: string): number {
  const number = Number(text)
  if (text.trim() === '' || !Number.isInteger(number) || number < 0 || number > 65535) {
    throw new Error(`must be a port number (0-65535), got "${text}"`)
  }
  return number
}

function optionalPort(text: string): number | null {
  return text === '' ? null : port(text)
}

function duration(minimumSeconds: number) {
  return (text: string): number => {
    const seconds = parseDurationSeconds(text)
    if (seconds < minimumSeconds) throw new Error(`must be at least ${minimumSeconds}s, got "${text}"`)
    return seconds
  }
}

function wholeDays(text: string): number {
  return Math.floor(duration(86_400)(text) / 86_400)
}

/** Sizes in decimal (kB, MB, GB: powers of 1000) or binary (KiB, MiB, GiB: powers of 1024) units. */
export function parseByteSize(text: string): number {
  const parsed = bytes.parse(text.trim())
  if (parsed === null || !Number.isFinite(parsed) || parsed < 1) {
    throw new Error(`"${text}" is not a size (use e.g. 200MB, 1GiB or a number of bytes)`)
  }
  return Math.floor(parsed)
}

function rate(text: string): number {
  const number = Number(text)
  if (text.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) {
    throw new Error(`must be a number from 0 to 1, got "${text}"`)
  }
  return number
}

function optionalText(text: string): string | null {
  return text === '' ? null : text
}

function path(text: string): string {
  return resolve(text)
}

function optionalPath(text: string): string | null {
  return text === '' ? null : resolve(text)
}

/** A program: a path (resolved) or a bare name, looked up on PATH when run. */
function optionalProgram(text: string): string | null {
  if (text === '') return null
  return text.includes('/') ? resolve(text) : text
}

function baseUrl(text: string): string | null {
  if (text === '') return null
  const trimmed = text.replace(/\/$/, '')
  if (!/^https?:\/\/[^/\s]+$/i.test(trimmed)) {
    throw new Error(`must be a base URL such as https://printroute.example.com, got "${text}"`)
  }
  return trimmed
}

function eventVendor(text: string): string {
  if (!EVENT_VENDOR_PATTERN.test(text)) {
    throw new Error(`must be one DNS label (letters, digits, inner hyphens) such as prodigi, got "${text}"`)
  }
  return text
}

function skuList(text: string): string[] {
  return text
    .split(',')
    .map((sku) => sku.trim())
    .filter((sku) => sku !== '')
}

function oneOf<const T extends string>(values: readonly T[]) {
  return (text: string): T => {
    const value = values.find((candidate) => candidate === text.toLowerCase())
    if (!value) throw new Error(`must be one of ${values.join(', ')}, got "${text}"`)
    return value
  }
}

/** Booleans: a flag says true; a variable says 1/true/yes or 0/false/no (anything else is refused). */
export function parseBoolean(text: string): boolean {
  const value = text.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(value)) return true
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false
  throw new Error(`must be 1 or 0 (true or false), got "${text}"`)
}

// ---------------------------------------------------------------------------------------------------------
// The table.

const PROCESS_COMMANDS = ['serve', 'worker'] as const satisfies readonly SettingCommand[]

export const PAYMENT_PROVIDERS = ['simulated', 'stripe'] as const
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number]

export const LOG_FORMATS = ['pretty', 'json'] as const
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export const SETTINGS = {
  dataDir: {
    flag: 'data-dir',
    placeholder: 'DIR',
    env: 'PRINTROUTE_DATA_DIR',
    default: './data',
    help: 'embedded database and stored files',
    docs:
      'Embedded database (`DIR/pgdata`) and stored files. One process opens it; the CLI commands reach a ' +
      'running `serve` through its admin channel (`DIR/run/admin.sock`, [operations.md](operations.md)).',
    commands: DATA_COMMANDS,
    parse: path,
  },
  databaseUrl: {
    flag: 'database-url',
    placeholder: 'URL',
    env: 'DATABASE_URL',
    default: null,
    defaultLabel: 'none',
    help: 'use this PostgreSQL server instead of the embedded database',
    docs:
      'Use this PostgreSQL server instead of the embedded database, e.g. ' + '`postgres://user@host:5432/printroute`.',
    commands: DATA_COMMANDS,
    parse: optionalText,
  },
  livePort: {
    flag: 'port',
    placeholder: 'PORT',
    env: 'PORT',
    default: '8080',
    help: 'Live API port',
    docs: 'Live API port (0: any free port). Bound before anything is written.',
    commands: ['serve'],
    parse: port,
  },
  sandboxPort: {
    flag: 'sandbox-port',
    placeholder: 'PORT',
    env: 'PRINTROUTE_SANDBOX_PORT',
    default: '8081',
    help: 'Sandbox API port',
    docs: 'Sandbox API port (0: any free port).',
    commands: ['serve'],
    parse: port,
  },
  host: {
    flag: 'host',
    placeholder: 'HOST',
    env: 'PRINTROUTE_HOST',
    default: '127.0.0.1',
    help: 'address to listen on',
    docs: 'Address to listen on (`0.0.0.0` for every interface); for `worker`, that of `--metrics-port`.',
    commands: PROCESS_COMMANDS,
    parse: (text: string) => text,
  },
  requestTimeoutSeconds: {
    flag: 'request-timeout',
    placeholder: 'DUR',
    env: 'PRINTROUTE_REQUEST_TIMEOUT',
    default: '60s',
    help: 'abort requests not answered within this time',
    docs: 'Requests not answered in this time get 500 `TimedOut`.',
    commands: ['serve'],
    parse: duration(0.001),
  },
  labCancelWaitSeconds: {
    flag: 'lab-cancel-wait',
    placeholder: 'DUR',
    env: 'PRINTROUTE_LAB_CANCEL_WAIT',
    default: '10s',
    help: "how long a cancel waits for labs' answers to cancelling shipments they hold (0: not at all)",
    docs:
      "How long a merchant's cancel waits for the answers of labs asked to cancel shipments they hold, before it " +
      'answers `FailedToCancel` (a later `cancelled` answer still cancels and refunds: ' +
      '[api.md](api.md#order-actions)); `0` answers at once. At most 5 minutes, and keep it below ' +
      '`--request-timeout`.',
    commands: ['serve'],
    parse: (text: string) => {
      const seconds = duration(0)(text)
      if (seconds > 300) throw new Error(`must be at most 5m, got "${text}"`)
      return seconds
    },
  },
  channelSecretsKey: {
    flag: 'channel-secrets-key',
    placeholder: 'KEY',
    env: 'PRINTROUTE_CHANNEL_SECRETS_KEY',
    default: null,
    defaultLabel: 'a key made at first start, kept in the database',
    help: "the AES-256 key (64 hex digits) the storefront channels' tokens and secrets are encrypted under",
    docs:
      "The key (64 hex digits, or base64 of 32 bytes) that storefront channels' access tokens and webhook secrets are " +
      'encrypted under with AES-256-GCM ([channels.md](channels.md#secrets-at-rest)). Without it, a key is made at ' +
      'first start and kept in the database beside the ciphertexts, which protects a copy of the channel rows but ' +
      'not of the whole database: set this to keep the key elsewhere. The key cannot be rotated in place: secrets ' +
      'sealed under another key are refused, so after a change each channel needs all its secrets again (PATCH; ' +
      '[channels.md](channels.md#after-a-change-of-key)).',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  shopifyApiUrl: {
    flag: 'shopify-api-url',
    placeholder: 'URL',
    env: 'PRINTROUTE_SHOPIFY_API_URL',
    default: null,
    defaultLabel: 'https://{shopDomain}',
    help: "replace each shop's own address as the Shopify Admin API's origin (a stand-in)",
    docs:
      'The origin the Shopify Admin API is called at instead of `https://{shopDomain}` ([channels.md](channels.md)): ' +
      'for a local stand-in in tests and demonstrations. Leave it unset in production.',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  paymentProvider: {
    flag: 'payment-provider',
    placeholder: 'PROVIDER',
    env: 'PRINTROUTE_PAYMENT_PROVIDER',
    default: 'simulated',
    help: 'who takes Live card payments: simulated (the bundled page) or stripe (Stripe Checkout)',
    docs:
      'Who takes the Live card payments of held orders and top-ups: `simulated`, the bundled payment page that ' +
      'approves any valid test card (no money moves), or `stripe`, Stripe Checkout with its webhooks ' +
      '([billing.md](billing.md#card-payments-through-stripe)); `stripe` needs the secret key and the webhook ' +
      'secret below, or `serve` refuses to start. The Sandbox never bills, whichever is chosen.',
    commands: PROCESS_COMMANDS,
    parse: oneOf(PAYMENT_PROVIDERS),
  },
  stripeApiUrl: {
    flag: 'stripe-api-url',
    placeholder: 'URL',
    env: 'PRINTROUTE_STRIPE_API_URL',
    default: null,
    defaultLabel: "Stripe's own (https://api.stripe.com)",
    help: "replace Stripe's API address (a stand-in); only its protocol, host and port are used",
    docs:
      "The address Stripe's API is called at instead of Stripe's own: a local stand-in in tests and demonstrations " +
      '(`http://127.0.0.1:12111`; only its protocol, host and port are used). Leave it unset in production.',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  stripeSecretKey: {
    flag: 'stripe-secret-key',
    envOnly: true,
    env: 'PRINTROUTE_STRIPE_SECRET_KEY',
    default: null,
    help: "Stripe's secret key (sk_live_..., sk_test_... or a restricted rk_...)",
    docs:
      "Stripe's secret key (`sk_live_...`, `sk_test_...`, or a restricted `rk_...` key), from the environment only: " +
      'never a flag, which `ps` shows. Or a file: `--stripe-secret-key-file`. Never logged.',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  stripeSecretKeyFile: {
    flag: 'stripe-secret-key-file',
    placeholder: 'FILE',
    env: 'PRINTROUTE_STRIPE_SECRET_KEY_FILE',
    default: null,
    help: "a file holding Stripe's secret key (its trimmed content), instead of PRINTROUTE_STRIPE_SECRET_KEY",
    docs:
      "A file holding Stripe's secret key (its content, trimmed), instead of `PRINTROUTE_STRIPE_SECRET_KEY` " +
      '(which wins when both are set): for a secret mounted as a file (systemd credentials, Docker or Kubernetes ' +
      'secrets).',
    commands: PROCESS_COMMANDS,
    parse: optionalPath,
  },
  stripeWebhookSecret: {
    flag: 'stripe-webhook-secret',
    envOnly: true,
    env: 'PRINTROUTE_STRIPE_WEBHOOK_SECRET',
    default: null,
    help: "the signing secret (whsec_...) of Stripe's webhook endpoint",
    docs:
      'The signing secret (`whsec_...`) of the Stripe webhook endpoint that sends to this instance, from the ' +
      'environment only (or a file: `--stripe-webhook-secret-file`). Never logged.',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  stripeWebhookSecretFile: {
    flag: 'stripe-webhook-secret-file',
    placeholder: 'FILE',
    env: 'PRINTROUTE_STRIPE_WEBHOOK_SECRET_FILE',
    default: null,
    help: "a file holding the webhook endpoint's signing secret, instead of PRINTROUTE_STRIPE_WEBHOOK_SECRET",
    docs:
      "A file holding the Stripe webhook endpoint's signing secret (its content, trimmed), instead of " +
      '`PRINTROUTE_STRIPE_WEBHOOK_SECRET` (which wins when both are set).',
    commands: PROCESS_COMMANDS,
    parse: optionalPath,
  },
  claimAutoResolveDays: {
    flag: 'claim-auto-resolve-days',
    placeholder: 'DAYS',
    env: 'PRINTROUTE_CLAIM_AUTO_RESOLVE_DAYS',
    default: '0',
    help: 'resolve a claim its lab has not disputed after DAYS as its merchant preferred (0: never)',
    docs:
      'The undisputed-claims rule ([claims.md](claims.md#automatic-rules)): a Pending claim whose lab has not ' +
      'disputed it this many days after it was made, and whose merchant named a `preferredResolution`, is resolved ' +
      'that way by printroute itself (audit actor `system`), hourly. `0` (the default) leaves every claim to the ' +
      'operator; 3 is the usual choice. 0 to 30.',
    commands: PROCESS_COMMANDS,
    parse: (text: string) => {
      const days = Number(text)
      if (!/^[0-9]{1,2}$/.test(text) || days > 30) throw new Error(`must be 0 to 30 days, got "${text}"`)
      return days
    },
  },
  missingParcelReprintDays: {
    flag: 'missing-parcel-reprint-days',
    placeholder: 'DAYS',
    env: 'PRINTROUTE_MISSING_PARCEL_REPRINT_DAYS',
    default: '0',
    help: 'reprint a parcel with no Delivered scan DAYS after its estimated delivery, without review (0: never)',
    docs:
      'The missing-parcel rule ([claims.md](claims.md#automatic-rules)): a shipment that shipped with tracking and ' +
      'has no `Delivered` scan this many days after its estimated delivery is reported missing by printroute itself ' +
      '(a `PackageMissing` claim, audit actor `system`) and reprinted without review, hourly, in both environments. ' +
      "`0` (the default) leaves missing parcels to merchants' claims; 10 is the usual choice. 0 to 60; a parcel " +
      'whose claim window (`--claim-window-days`) has closed is left alone.',
    commands: PROCESS_COMMANDS,
    parse: (text: string) => {
      const days = Number(text)
      if (!/^[0-9]{1,2}$/.test(text) || days > MAX_MISSING_PARCEL_REPRINT_DAYS) {
        throw new Error(`must be 0 to ${MAX_MISSING_PARCEL_REPRINT_DAYS} days, got "${text}"`)
      }
      return days
    },
  },
  claimWindowDays: {
    flag: 'claim-window-days',
    placeholder: 'DAYS',
    env: 'PRINTROUTE_CLAIM_WINDOW_DAYS',
    default: '30',
    help: 'days after a delivery a merchant may claim about it',
    docs:
      'Days after a shipment was delivered (dispatched, when never delivered; after its estimated delivery, for a ' +
      'parcel reported missing) within which a merchant may make a claim about it: 1 to 365 ' +
      '([claims.md](claims.md#rules)).',
    commands: PROCESS_COMMANDS,
    parse: (text: string) => {
      const days = Number(text)
      if (!/^[0-9]{1,3}$/.test(text) || days < 1 || days > 365) throw new Error(`must be 1 to 365 days, got "${text}"`)
      return days
    },
  },
  rateLimit: {
    flag: 'rate-limit',
    placeholder: 'N/PERIOD',
    env: 'PRINTROUTE_RATE_LIMIT',
    default: DEFAULT_RATE_LIMIT_TEXT,
    help: 'requests allowed per API key and period (600/1m, 10/1s; 0: no limit)',
    docs:
      'Requests allowed per API key in each period, e.g. `600/1m`, `10/1s`, `5000/1h`; `0` turns the limit ' +
      'off. Requests without a valid key get the same budget per client address. Shared through PostgreSQL ' +
      'by every `serve` process on it ([api.md](api.md#rate-limits), [operations.md](operations.md#rate-limits)).',
    commands: ['serve'],
    parse: parseRateLimit,
  },
  workers: {
    flag: 'no-workers',
    default: null,
    defaultLabel: 'off',
    help: 'serve the API only; run `printroute worker` processes for the jobs',
    docs: 'Serve the API only; `printroute worker` processes run the jobs.',
    commands: ['serve'],
    parse: parseBoolean,
  },
  demoAccount: {
    flag: 'demo-account',
    env: 'PRINTROUTE_DEMO_ACCOUNT',
    default: null,
    defaultLabel: 'on with the embedded database, off with PostgreSQL',
    help: 'on a first start with no account, make a demo account (always with the embedded database)',
    docs:
      'On a start with no account yet, make a demo account and give its keys and a first order (at a ' +
      'terminal, printed once; otherwise in files in the data directory). The embedded database always ' +
      'gets one; on PostgreSQL, a production database, only with this flag: create accounts with ' +
      '`printroute accounts create` instead.',
    commands: ['serve'],
    parse: parseBoolean,
  },
  catalogueFile: {
    flag: 'catalogue',
    placeholder: 'FILE',
    env: 'PRINTROUTE_CATALOGUE',
    default: null,
    defaultLabel: 'the active version',
    help: 'product catalogue to serve (imported as a version when it differs from the active one)',
    docs:
      'Product catalogue to serve: validated at start, stored as a catalogue version when its text is new and ' +
      'activated when the active version differs ([catalogue.md](catalogue.md#versions)). Without it, the ' +
      'active version is served (the bundled sample on a new database). The data commands check labs and ' +
      'currencies against it (`accounts top-up` and `orders move` serve it, as serve would); `labs list` lists its labs, those ' +
      'of the bundled sample without it.',
    commands: [
      'serve',
      'worker',
      'accounts create',
      'accounts top-up',
      'labs list',
      ...LAB_COMMANDS,
      ...ORDER_ACTION_COMMANDS,
    ],
    parse: optionalPath,
  },
  logLevel: {
    flag: 'log-level',
    placeholder: 'LEVEL',
    env: 'PRINTROUTE_LOG_LEVEL',
    default: 'info',
    help: `least severe log lines written: ${LOG_LEVELS.join(', ')}`,
    docs: `pino level: ${LOG_LEVELS.map((level) => `\`${level}\``).join(', ')}.`,
    commands: PROCESS_COMMANDS,
    parse: oneOf(LOG_LEVELS),
  },
  logFormat: {
    flag: 'log-format',
    placeholder: 'FORMAT',
    env: 'PRINTROUTE_LOG_FORMAT',
    default: null,
    defaultLabel: 'pretty on a terminal, else json',
    help: 'pretty (readable) or json (one JSON object a line)',
    docs:
      '`pretty`: readable lines; `json`: one JSON object a line. By default pretty when stdout is a ' +
      'terminal, JSON otherwise ([operations.md](operations.md#logs-and-signals)).',
    commands: PROCESS_COMMANDS,
    parse: (text: string) => (text === '' ? null : oneOf(LOG_FORMATS)(text)),
  },
  metricsPort: {
    flag: 'metrics-port',
    placeholder: 'PORT',
    env: 'PRINTROUTE_METRICS_PORT',
    default: null,
    defaultLabel: 'the Live port',
    help: 'serve /metrics on this port instead of the Live port',
    docs:
      'Serve `GET /metrics` (Prometheus) on a port of its own instead of the Live port; `worker` processes ' +
      'serve metrics only when it is set.',
    commands: PROCESS_COMMANDS,
    parse: optionalPort,
  },
  adminPort: {
    flag: 'admin-port',
    placeholder: 'PORT',
    env: 'PRINTROUTE_ADMIN_PORT',
    default: null,
    defaultLabel: 'the Live port, under /admin/',
    help: 'serve the operator console (/admin/) only on this port, not on the Live port',
    docs:
      'Serve the operator console (`/admin/`) on a port of its own, and not on the Live port, so that a firewall ' +
      'can keep it off the public internet ([admin.md](admin.md#keeping-the-console-private)).',
    commands: ['serve'],
    parse: optionalPort,
  },
  metricsToken: {
    flag: 'metrics-token',
    placeholder: 'TOKEN',
    env: 'PRINTROUTE_METRICS_TOKEN',
    default: null,
    defaultLabel: 'none',
    help: 'require Authorization: Bearer TOKEN on /metrics',
    docs: '`GET /metrics` then requires `Authorization: Bearer TOKEN`.',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  allowPrivateUrls: {
    flag: 'allow-private-urls',
    env: 'PRINTROUTE_ALLOW_PRIVATE_URLS',
    default: null,
    defaultLabel: 'off',
    help: 'let downloads and callbacks reach loopback and private addresses (local testing only)',
    docs:
      'Let asset downloads and callbacks reach loopback and private addresses (local testing). Cloud ' +
      "metadata addresses stay refused. Not needed for printroute's own sample images.",
    commands: PROCESS_COMMANDS,
    parse: parseBoolean,
  },
  ghostscript: {
    flag: 'ghostscript',
    placeholder: 'PATH',
    env: 'PRINTROUTE_GHOSTSCRIPT',
    default: null,
    defaultLabel: 'none',
    help: "Ghostscript's gs executable: converts a CMYK lab's book PDFs to its colour",
    docs:
      "Ghostscript's `gs` executable (a path, or a name on `PATH` such as `gs`): a book's PDF for a lab whose colour is CMYK is converted " +
      "to the lab's profile and intent ([print-files.md](print-files.md#pdfs-and-colour)). Without it, or when a " +
      'conversion fails, PDFs are passed through as they are. Ghostscript is AGPL: printroute runs it as a separate ' +
      'program, never links or ships it.',
    commands: PROCESS_COMMANDS,
    parse: optionalProgram,
  },
  downloadRetryBaseSeconds: {
    flag: 'download-retry-base',
    placeholder: 'DUR',
    env: 'PRINTROUTE_DOWNLOAD_RETRY_BASE',
    default: '30s',
    help: 'delay before the 2nd download attempt, doubling for each further one',
    docs: 'Delay before the second download attempt; it doubles for each further attempt (10 in all).',
    commands: PROCESS_COMMANDS,
    parse: duration(0),
  },
  simulatedLabStepSeconds: {
    flag: 'sim-lab-step',
    placeholder: 'DUR',
    env: 'PRINTROUTE_SIM_LAB_STEP',
    default: '2s',
    help: 'pace of the simulated labs',
    docs: 'Pace of the simulated labs (acknowledge, produce, ship: one step each).',
    commands: PROCESS_COMMANDS,
    parse: duration(0),
  },
  simulateLiveLabs: {
    flag: 'simulate-live-labs',
    env: 'PRINTROUTE_SIMULATE_LIVE_LABS',
    default: null,
    defaultLabel: 'off',
    help: 'Live orders use the simulated labs too (demos); Sandbox always does',
    docs: 'Live orders go to the simulated labs too (demos). Sandbox always does.',
    commands: PROCESS_COMMANDS,
    parse: parseBoolean,
  },
  simulatedUnavailableSkus: {
    flag: 'sim-lab-unavailable-skus',
    placeholder: 'SKUS',
    env: 'PRINTROUTE_SIM_LAB_UNAVAILABLE_SKUS',
    default: null,
    defaultLabel: 'none',
    help: 'simulated labs report these SKUs out of stock (comma-separated)',
    docs: 'Simulated labs report these SKUs (comma-separated) out of stock.',
    commands: PROCESS_COMMANDS,
    parse: skuList,
  },
  simulatedRejectRate: {
    flag: 'sim-lab-reject-rate',
    placeholder: 'R',
    env: 'PRINTROUTE_SIM_LAB_REJECT_RATE',
    default: '0',
    help: 'share of shipments (0 to 1) the simulated labs reject',
    docs:
      'Share of shipments (0 to 1) the simulated labs reject, chosen by shipment id (repeatable); the work ' +
      'moves to the next-best lab.',
    commands: PROCESS_COMMANDS,
    parse: rate,
  },
  maxDownloadBytes: {
    flag: 'max-download-size',
    placeholder: 'SIZE',
    env: 'PRINTROUTE_MAX_DOWNLOAD_SIZE',
    default: '200MiB',
    help: 'largest asset download accepted',
    docs:
      'Largest asset, packing slip or branding file accepted: `200MB` (powers of 1000), `200MiB` (powers ' +
      'of 1024), or bytes.',
    commands: PROCESS_COMMANDS,
    parse: parseByteSize,
  },
  assetRetentionDays: {
    flag: 'asset-retention',
    placeholder: 'DUR',
    env: 'PRINTROUTE_ASSET_RETENTION',
    default: '30d',
    help: 'keep downloaded asset copies and print files this long (whole days)',
    docs: 'Kept copies of assets and print files are deleted after this long (whole days).',
    commands: PROCESS_COMMANDS,
    parse: wholeDays,
  },
  fileLinkTtlSeconds: {
    flag: 'file-link-ttl',
    placeholder: 'DUR',
    env: 'PRINTROUTE_FILE_LINK_TTL',
    default: '7d',
    help: 'how long a /files link works from the moment it is sent',
    docs:
      'How long a `/files/...` link (thumbnail, print file) works from the moment it is sent in an order, a ' +
      'callback or a lab job; then 410 `LinkExpired` ([assets.md](assets.md)).',
    commands: PROCESS_COMMANDS,
    parse: duration(1),
  },
  callbackRetentionSeconds: {
    flag: 'callback-retention',
    placeholder: 'DUR',
    env: 'PRINTROUTE_CALLBACK_RETENTION',
    default: '30d',
    help: 'keep finished callback deliveries, their attempts and past events this long',
    docs:
      'Finished callback deliveries, their attempts and events no delivery needs are deleted after this long ' +
      '([callbacks.md](callbacks.md)).',
    commands: PROCESS_COMMANDS,
    parse: duration(1),
  },
  quoteLifetimeSeconds: {
    flag: 'quote-lifetime',
    placeholder: 'DUR',
    env: 'PRINTROUTE_QUOTE_LIFETIME',
    default: '7d',
    help: 'how long the prices of a quote hold for an order that names it',
    docs:
      'How long a quote (its `expiresAt`) holds its prices for an order created with its `quoteId` ' +
      '([api.md](api.md#price-locked-quotes)).',
    commands: PROCESS_COMMANDS,
    parse: duration(1),
  },
  blobStoreUrl: {
    flag: 'blob-store',
    placeholder: 'URL',
    env: 'PRINTROUTE_BLOB_STORE',
    default: null,
    defaultLabel: "the data directory's files/",
    help: 'keep files in an S3-compatible bucket: s3://bucket/prefix?endpoint=URL&region=R',
    docs:
      'Keep stored files in an S3-compatible bucket, `s3://bucket/prefix?endpoint=URL&region=R` ' +
      '(credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`), for several machines.',
    commands: PROCESS_COMMANDS,
    parse: optionalText,
  },
  livePublicUrl: {
    flag: 'public-url',
    placeholder: 'URL',
    env: 'PRINTROUTE_PUBLIC_URL',
    default: null,
    defaultLabel: 'the listening address',
    help: 'base URL of the Live server in file and payment links',
    docs:
      'Base URL of the Live server in file links (thumbnails, print files for labs) and payment page links ' +
      '(`authorisationUrl`). Set it behind a proxy and on `worker` processes.',
    commands: [...PROCESS_COMMANDS, 'accounts top-up', ...ORDER_ACTION_COMMANDS],
    parse: baseUrl,
  },
  sandboxPublicUrl: {
    flag: 'sandbox-public-url',
    placeholder: 'URL',
    env: 'PRINTROUTE_SANDBOX_PUBLIC_URL',
    default: null,
    defaultLabel: 'the listening address',
    help: 'same for the Sandbox server',
    docs: 'Same for Sandbox.',
    commands: [...PROCESS_COMMANDS, 'accounts top-up', ...ORDER_ACTION_COMMANDS],
    parse: baseUrl,
  },
  eventVendor: {
    flag: 'event-vendor',
    placeholder: 'NAME',
    env: 'PRINTROUTE_EVENT_VENDOR',
    default: DEFAULT_EVENT_VENDOR,
    help: 'callback event types are com.NAME.order...',
    docs:
      'Callback event types are `com.NAME.order...` ([callbacks.md](callbacks.md)); set it to the vendor an ' +
      'existing client expects (e.g. `prodigi`). One DNS label: letters, digits, inner hyphens.',
    commands: [...PROCESS_COMMANDS, 'accounts top-up', ...ORDER_ACTION_COMMANDS],
    parse: eventVendor,
  },
} as const satisfies Record<string, SettingDefinition<unknown>>

export type SettingName = keyof typeof SETTINGS
export type Settings = { [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> }

export type DatabaseSettings = Pick<Settings, 'dataDir' | 'databaseUrl'>

type AnySetting = SettingDefinition<unknown>

function definition(name: SettingName): AnySetting {
  return SETTINGS[name] as AnySetting
}

/** The names of the settings a command takes, as a type. */
export type SettingsOf<C extends SettingCommand> = {
  [K in SettingName]: C extends (typeof SETTINGS)[K]['commands'][number] ? K : never
}[SettingName]

/** The settings a command takes, in table order. */
export function settingsOf<C extends SettingCommand>(command: C): SettingsOf<C>[] {
  return (Object.keys(SETTINGS) as SettingName[]).filter((name) =>
    (definition(name).commands as readonly string[]).includes(command),
  ) as SettingsOf<C>[]
}

/** A secret read from its environment variable only: no command-line option is made for it. */
export function isEnvOnly(name: SettingName): boolean {
  return definition(name).envOnly === true
}

/** `--no-workers`-style flags turn a setting that is on by default off. */
export function isNegatedFlag(name: SettingName): boolean {
  return definition(name).flag.startsWith('no-')
}

/** The help line of a setting's option, with where else it can come from. */
export function settingHelp(name: SettingName): string {
  const setting = definition(name)
  // Boolean flags are off unless given: saying so adds nothing.
  const fallback = setting.default ?? (setting.placeholder ? setting.defaultLabel : undefined)
  const sources = [setting.env ? `env ${setting.env}` : null, fallback ? `default ${fallback}` : null].filter(
    (part) => part !== null,
  )
  return sources.length > 0 ? `${setting.help} (${sources.join(', ')})` : setting.help
}

export function settingFlag(name: SettingName): string {
  const setting = definition(name)
  return setting.placeholder ? `--${setting.flag} <${setting.placeholder}>` : `--${setting.flag}`
}

/** Flag values as the command line parsed them: strings for valued flags, true for boolean ones given. */
export type FlagValues = Partial<Record<SettingName, string | boolean>>

/**
 * Reads the named settings: the flag, else the environment variable (an empty one counts as unset), else the
 * default. A bad value throws a SettingsError naming the flag or variable it came from.
 */
export function readSettings<K extends SettingName>(
  names: readonly K[],
  flags: FlagValues,
  env: NodeJS.ProcessEnv = process.env,
): Pick<Settings, K> {
  const result = {} as Record<K, unknown>
  for (const name of names) {
    const setting = definition(name)
    // A secret setting has no flag: whatever the command line holds, only its variable counts.
    const fromFlag = setting.envOnly ? undefined : flags[name]
    const fromEnv = setting.env ? env[setting.env] : undefined
    let text: string | null
    let source: string
    if (fromFlag !== undefined) {
      // A boolean flag given on the command line; `--no-x` flags arrive as false.
      text = typeof fromFlag === 'string' ? fromFlag : 'true'
      source = `--${setting.flag}`
    } else if (fromEnv !== undefined && fromEnv !== '') {
      text = fromEnv
      source = setting.env as string
    } else {
      text = setting.default
      source = `the default of --${setting.flag}`
    }
    try {
      const value = text === null ? setting.parse('') : setting.parse(text)
      // A negated flag names the opposite of its setting: `--no-workers` given means workers: false.
      result[name] = isNegatedFlag(name) ? !value : value
    } catch (error) {
      throw new SettingsError(`${source}: ${(error as Error).message}`)
    }
  }
  return result as Pick<Settings, K>
}

// ---------------------------------------------------------------------------------------------------------
// The docs table, generated.

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|')
}

/** The settings table of docs/configuration.md, exactly as the page holds it. */
export function settingsDocsTable(): string {
  const rows = (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const setting = definition(name)
    const flag = setting.envOnly
      ? '(environment only)'
      : `\`--${setting.flag}${setting.placeholder ? ` ${setting.placeholder}` : ''}\``
    const env = setting.env ? `\`${setting.env}\`` : ''
    const fallback = setting.default !== null ? `\`${setting.default}\`` : (setting.defaultLabel ?? 'none')
    const commands =
      setting.commands.length === DATA_COMMANDS.length ? 'all that use data' : setting.commands.join(', ')
    return `| ${escapeCell(flag)} | ${env} | ${escapeCell(fallback)} | ${commands} | ${escapeCell(setting.docs ?? setting.help)} |`
  })
  return ['| Flag | Environment | Default | Commands | Meaning |', '|---|---|---|---|---|', ...rows].join('\n')
}

export const SETTINGS_TABLE_START = '<!-- settings table: generated from src/config.ts by `npm run docs:config` -->'
export const SETTINGS_TABLE_END = '<!-- end of settings table -->'

/** The page with its settings table (between the two markers) replaced by the generated one. */
export function replaceSettingsTable(page: string): string {
  const start = page.indexOf(SETTINGS_TABLE_START)
  const end = page.indexOf(SETTINGS_TABLE_END)
  if (start === -1 || end < start) throw new Error('the page has no settings table markers')
  return `${page.slice(0, start + SETTINGS_TABLE_START.length)}\n\n${settingsDocsTable()}\n\n${page.slice(end)}`
}
