// An application on a test database with one account and its keys, driven through Fastify's inject.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { ManualClock } from '../../src/adapters/clock.ts'
import { type Application, type ApplicationOptions, buildApplication } from '../../src/app.ts'
import { loadCatalogue, parseCatalogue, SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import type { PipelineSettings } from '../../src/services/pipeline/ports.ts'
import { TEST_ACTOR } from './audit-actor.ts'
import { openTestDatabase, type TestDatabase, type TestDatabaseKind } from './databases.ts'

export const catalogue = loadCatalogue()

/**
 * The bundled sample catalogue with `change` made to its JSON document, then read as any catalogue file is
 * (`name` says which in its errors): for a test that needs a price, print area or option of its own.
 */
export function changedSampleCatalogue(name: string, change: (file: any) => void): Catalogue {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
  change(file)
  return parseCatalogue(file, name)
}

export interface TestAccount {
  id: string
  sandboxKey: string
  liveKey: string
}

/** The real time, with the ManualClock's interface (advancing is not possible: it is the real clock). */
class SystemLikeClock extends ManualClock {
  override now(): Date {
    return new Date()
  }
  override advanceSeconds(): void {
    throw new Error('a real clock cannot be advanced')
  }
}

export interface AccountOptions {
  pauseWindowSeconds?: number
  billingCurrency?: string
  billingMode?: 'invoice' | 'prepaid'
}

export interface TestApp {
  app: Application
  database: TestDatabase
  /** Where the app keeps its files (blob keys are paths below it). */
  filesDir: string
  clock: ManualClock
  account: TestAccount
  createAccount(options?: AccountOptions): Promise<TestAccount>
  /** Sends a request to the Sandbox server with the account's Sandbox key unless headers say otherwise. */
  sandbox(options: InjectOptions, key?: string | null): Promise<LightMyRequestResponse>
  live(options: InjectOptions, key?: string | null): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

export interface TestAppOptions {
  kind?: TestDatabaseKind
  pauseWindowSeconds?: number
  requestTimeoutMs?: number
  maxConnections?: number
  /** Run the pipeline's jobs (off by default: most HTTP tests look at orders as created). */
  workers?: boolean
  pipeline?: Partial<PipelineSettings>
  /** A real clock for pipeline tests (the job queue schedules by the database's time). */
  realClock?: boolean
  publicUrls?: ApplicationOptions['publicUrls']
  /** Test servers listen on 127.0.0.1, so downloads may reach it unless a test says otherwise. */
  allowPrivateUrls?: boolean
  maxDownloadBytes?: number
  /** Callback delivery attempt delays (tests use short ones). */
  callbackRetryScheduleSeconds?: readonly number[]
  callbackRetentionSeconds?: number
  eventVendor?: string
  /** Lifetime of /files links (the application's default of 7 days when absent). */
  fileLinkTtlSeconds?: number
  /** The catalogue the application serves: the bundled sample when absent. */
  catalogue?: Catalogue
  /** An existing database to build the application on (a restart); `close` then leaves it open. */
  database?: TestDatabase
  /** An existing files directory (a restart, with `database`); `close` then leaves it. */
  filesDir?: string
  /** A logger (e.g. createLogger writing into a LogCapture); none by default. */
  logger?: ApplicationOptions['logger']
  metrics?: ApplicationOptions['metrics']
  readinessTimeoutMs?: number
  /** Requests allowed per API key: the application's default (600/1m) when absent, none when null. */
  rateLimit?: ApplicationOptions['rateLimit']
  /** How long quotes hold their prices (`--quote-lifetime`): the application's default (7 days) when absent. */
  quoteLifetimeSeconds?: number
  /** How long a merchant's cancel waits for labs' answers (`--lab-cancel-wait`): the application's 10 s when absent. */
  labCancelWaitSeconds?: number
  /** The Ghostscript executable (`--ghostscript`): CMYK labs' book PDFs converted; none by default. */
  ghostscript?: string | null
  /** Serve the operator console on a server of its own (`--admin-port`): `app.adminServer`. */
  adminOwnServer?: boolean
  /** The undisputed-claims rule's days (`--claim-auto-resolve-days`): off when absent. */
  claimAutoResolveDays?: number
  /** The missing-parcel rule's days (`--missing-parcel-reprint-days`): off when absent. */
  missingParcelReprintDays?: number
  /** The Shopify Admin API's origin (`--shopify-api-url`): a stand-in's. */
  shopifyApiUrl?: string
  /** The storefront fulfilment outbox's attempt delays (tests use short ones). */
  channelRetryScheduleSeconds?: readonly number[]
  /** The key channels' secrets are sealed under (`--channel-secrets-key`): one kept in the database when absent. */
  channelSecretsKey?: string
  /** The card payment gateway (a Stripe gateway on a stand-in): none by default, the simulated provider's page. */
  paymentGateway?: ApplicationOptions['paymentGateway']
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database =
    options.database ?? (await openTestDatabase(options.kind ?? 'pglite', { maxConnections: options.maxConnections }))
  const clock = options.realClock ? new SystemLikeClock() : new ManualClock(new Date('2026-03-01T09:00:00.000Z'))
  const filesDir = options.filesDir ?? mkdtempSync(join(tmpdir(), 'printroute-files-'))
  const app = await buildApplication({
    db: database.db,
    databaseUrl: database.connectionString,
    jobSchema: database.jobSchema,
    catalogue: options.catalogue ?? catalogue,
    clock,
    logger: options.logger ?? false,
    requestTimeoutMs: options.requestTimeoutMs,
    filesDir,
    workers: options.workers ?? false,
    jobPollingSeconds: 0.5,
    allowPrivateUrls: options.allowPrivateUrls ?? true,
    maxDownloadBytes: options.maxDownloadBytes,
    pipeline: options.pipeline,
    publicUrls: options.publicUrls,
    ...(options.callbackRetryScheduleSeconds
      ? { callbackRetryScheduleSeconds: options.callbackRetryScheduleSeconds }
      : {}),
    ...(options.eventVendor ? { eventVendor: options.eventVendor } : {}),
    ...(options.callbackRetentionSeconds ? { callbackRetentionSeconds: options.callbackRetentionSeconds } : {}),
    ...(options.fileLinkTtlSeconds ? { fileLinkTtlSeconds: options.fileLinkTtlSeconds } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.readinessTimeoutMs !== undefined ? { readinessTimeoutMs: options.readinessTimeoutMs } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.quoteLifetimeSeconds !== undefined ? { quoteLifetimeSeconds: options.quoteLifetimeSeconds } : {}),
    ...(options.labCancelWaitSeconds !== undefined ? { labCancelWaitSeconds: options.labCancelWaitSeconds } : {}),
    ...(options.adminOwnServer ? { adminOwnServer: true } : {}),
    ...(options.ghostscript ? { ghostscript: options.ghostscript } : {}),
    ...(options.claimAutoResolveDays ? { claimAutoResolveDays: options.claimAutoResolveDays } : {}),
    ...(options.missingParcelReprintDays ? { missingParcelReprintDays: options.missingParcelReprintDays } : {}),
    ...(options.shopifyApiUrl ? { shopifyApiUrl: options.shopifyApiUrl } : {}),
    ...(options.channelSecretsKey ? { channelSecretsKey: options.channelSecretsKey } : {}),
    ...(options.paymentGateway ? { paymentGateway: options.paymentGateway } : {}),
    ...(options.channelRetryScheduleSeconds
      ? { channelRetryScheduleSeconds: options.channelRetryScheduleSeconds }
      : {}),
    ...(options.paymentGateway ? { paymentGateway: options.paymentGateway } : {}),
  })
  const createAccount = async (accountOptions: AccountOptions = {}): Promise<TestAccount> => {
    const created = await app.services.accounts.createAccount(
      {
        name: 'Test merchant',
        billingCurrency: accountOptions.billingCurrency ?? 'GBP',
        billingMode: accountOptions.billingMode ?? 'invoice',
        pauseWindowSeconds: accountOptions.pauseWindowSeconds ?? 0,
        callbackUrl: null,
      },
      TEST_ACTOR,
    )
    return { id: created.account.id, sandboxKey: created.keys.sandbox.key, liveKey: created.keys.live.key }
  }
  const account = await createAccount({ pauseWindowSeconds: options.pauseWindowSeconds })
  const send = (server: 'sandbox' | 'live') => (request: InjectOptions, key?: string | null) => {
    const defaultKey = server === 'sandbox' ? account.sandboxKey : account.liveKey
    const headers: Record<string, string> = { ...(request.headers as Record<string, string>) }
    const chosen = key === undefined ? defaultKey : key
    if (chosen !== null && headers['x-api-key'] === undefined) headers['x-api-key'] = chosen
    return app[server].inject({ ...request, headers })
  }
  return {
    app,
    database,
    filesDir,
    clock,
    account,
    createAccount,
    sandbox: send('sandbox'),
    live: send('live'),
    async close() {
      await app.close()
      if (!options.database) await database.close()
      if (!options.filesDir) rmSync(filesDir, { recursive: true, force: true })
    },
  }
}

/** A valid order for the sample catalogue; override parts per test. */
export function sampleOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    merchantReference: 'MR-1001',
    shippingMethod: 'Standard',
    recipient: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phoneNumber: '+44 20 7946 0000',
      address: {
        line1: '14 Test Street',
        line2: null,
        postalOrZipCode: 'EC1A 1BB',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: null,
      },
    },
    items: [
      {
        merchantReference: 'item-1',
        sku: 'GLOBAL-CAN-10x10',
        copies: 2,
        sizing: 'fillPrintArea',
        attributes: { wrap: 'ImageWrap' },
        assets: [{ printArea: 'default', url: 'https://images.example.com/canvas.jpg' }],
      },
    ],
    metadata: { shopOrder: 5521 },
    ...overrides,
  }
}

export function json(response: LightMyRequestResponse): Record<string, any> {
  return JSON.parse(response.body)
}

/**
 * Starts both servers listening on 127.0.0.1 (ports chosen by the system), for tests that need the real
 * transport (raw sockets, fetch); their addresses become the public URLs (file links point at them).
 */
export async function listenOnLoopback(t: TestApp): Promise<{ live: string; sandbox: string }> {
  const live = await t.app.live.listen({ port: 0, host: '127.0.0.1' })
  const sandbox = await t.app.sandbox.listen({ port: 0, host: '127.0.0.1' })
  t.app.setPublicUrl('live', live)
  t.app.setPublicUrl('sandbox', sandbox)
  return { live, sandbox }
}
