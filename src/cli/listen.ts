// `printroute listen`: callbacks on a developer's laptop, which the server cannot reach. Follows the account's
// events feed (GET /v4.0/events, oldest first after a cursor) with an API key and POSTs each event to a local
// URL, signed with the environment's secret exactly as a callback is (Standard Webhooks headers), so the code
// under development verifies it as it will in production. One line per event. An event the local receiver
// does not take (no 2xx) is tried again, with a growing pause, never skipped; the last event forwarded is
// remembered in a state file, so a restart carries on after it, with no duplicate and no gap. SIGINT or
// SIGTERM stops it between two requests. With --webhook it stands in for one webhook endpoint: only the events its
// filters accept, signed with its secret (given: the API never shows an endpoint's secret again).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { type Command, Option } from 'commander'
import { isSigningSecret, webhookHeaders } from '../domain/webhook-signature.ts'
import {
  ApiRequestError,
  addConnectionOptions,
  connectionOf,
  createApiConnection,
  EVENTS_FEED_PAGE_SIZE,
  intervalMs,
  keyPrefixOf,
  lastEventIdOfFeed,
  pause,
  stopSignal,
} from './api-connection.ts'
import { print, UsageError } from './command-support.ts'

/** A local receiver has this long to answer. */
export const FORWARD_TIMEOUT_MS = 15_000
/** Pauses before trying an event (or the feed) again: 1 s, doubling, at most 30 s. */
const RETRY_FIRST_MS = 1000
const RETRY_MOST_MS = 30_000
/** The signing secret is read again this often, so a rotation is followed without a restart. */
const SECRET_REFRESH_MS = 60_000
/** Characters of a receiver's answer shown when it refuses an event. */
const ANSWER_SNIPPET_CHARACTERS = 120
/** Where --webhook-secret may come from instead, out of the shell's history. */
export const WEBHOOK_SECRET_ENV = 'PRINTROUTE_WEBHOOK_SECRET'

interface FeedEvent {
  id: string
  type: string
  time?: string
  subject?: string
  data?: { order?: { id?: string } }
}

interface ListenState {
  baseUrl: string
  keyPrefix: string
  /** The last event forwarded (a 2xx from the receiver). */
  lastEventId: string
  updated: string
}

/**
 * The default state file: one per server, key and webhook endpoint (if any), named by a hash of the base URL, the
 * key's visible prefix (never the key) and the endpoint's id, under $XDG_STATE_HOME (~/.local/state when unset).
 */
export function defaultStateFile(baseUrl: string, apiKey: string, webhookId?: string): string {
  const stateHome = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state')
  const name = createHash('sha256')
    .update(`${baseUrl}\n${keyPrefixOf(apiKey)}${webhookId === undefined ? '' : `\n${webhookId}`}`)
    .digest('hex')
    .slice(0, 16)
  return join(stateHome, 'printroute', 'listen', `${name}.json`)
}

function readState(file: string): ListenState | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const state = JSON.parse(text) as Partial<ListenState>
  if (typeof state.lastEventId !== 'string' || !/^evt_\d+$/.test(state.lastEventId)) {
    throw new UsageError(`the state file ${file} holds no event ID; remove it or give --events-after`)
  }
  return state as ListenState
}

/** Written whole to a new file, then renamed over the old one: a crash leaves the old state or the new. */
function writeState(file: string, state: ListenState): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  if (cause?.code) return cause.code
  if ((error as Error).name === 'TimeoutError') return 'no answer in time'
  return (error as Error).message
}

export function registerListenCommand(program: Command): void {
  const listen = program
    .command('listen')
    .summary("forward an account's events to a local URL, signed like callbacks")
    .description(
      "Follows the events feed of the key's account and environment and POSTs each event to --forward-to, " +
        "signed with the environment's callback secret (Standard Webhooks), printing one line per event. An " +
        'event the receiver does not answer with a 2xx is tried again until it does. The last event forwarded ' +
        'is kept in a state file, so a restart carries on after it; the first run starts with the events ' +
        'that come after it started (docs/callbacks.md#listen). Stops on Ctrl-C.',
    )
    .option('--forward-to <URL>', 'where to POST each event, e.g. http://localhost:3000/hook (required)')
    .option('--events-after <EVENT>', 'start after this event instead (evt_123; evt_0 for every event kept)')
    .option('--state-file <FILE>', 'where the last forwarded event is kept (default: under $XDG_STATE_HOME)')
    .option('--webhook <ID>', "forward only the events this webhook endpoint's filters accept (whk_12)")
    .addOption(
      new Option('--webhook-secret <SECRET>', "the endpoint's signing secret (whsec_...), to sign with it").env(
        WEBHOOK_SECRET_ENV,
      ),
    )
  addConnectionOptions(listen, '2s').action(async (values: Record<string, unknown>) => {
    const connection = connectionOf(values)
    const forwardTo = typeof values.forwardTo === 'string' ? values.forwardTo : ''
    if (forwardTo === '') throw new UsageError('--forward-to is required')
    if (!/^https?:\/\//i.test(forwardTo) || !URL.canParse(forwardTo)) {
      throw new UsageError(`--forward-to: "${forwardTo}" is not an http(s) URL`)
    }
    const after = typeof values.eventsAfter === 'string' ? values.eventsAfter : undefined
    if (after !== undefined && !/^evt_\d{1,15}$/.test(after)) {
      throw new UsageError(`--events-after: "${after}" is not an event ID (evt_123)`)
    }
    const pollMs = intervalMs(values.pollInterval, '--poll-interval')
    const webhook = webhookOptionsOf(values)
    const stateFile =
      typeof values.stateFile === 'string'
        ? values.stateFile
        : defaultStateFile(connection.baseUrl, connection.apiKey, webhook?.id)
    await runListen({ ...connection, forwardTo, after, pollMs, stateFile, webhook })
  })
}

/** --webhook with its secret, checked; undefined without --webhook. */
function webhookOptionsOf(values: Record<string, unknown>): { id: string; secret: string } | undefined {
  const id = typeof values.webhook === 'string' ? values.webhook : undefined
  const secret = typeof values.webhookSecret === 'string' ? values.webhookSecret : undefined
  if (id === undefined) {
    // From the environment only, it may be meant for another use of listen: a flag without --webhook is a mistake.
    if (secret !== undefined && process.env[WEBHOOK_SECRET_ENV] !== secret) {
      throw new UsageError('--webhook-secret goes with --webhook: the endpoint whose secret it is')
    }
    return undefined
  }
  if (!/^whk_\d{1,15}$/.test(id)) throw new UsageError(`--webhook: "${id}" is not a webhook endpoint ID (whk_12)`)
  if (secret === undefined || secret === '') {
    throw new UsageError(
      `--webhook-secret is required with --webhook (or set ${WEBHOOK_SECRET_ENV}): the events are signed with the ` +
        "endpoint's own secret, which the API shows only when the endpoint is created or its secret rotated",
    )
  }
  if (!isSigningSecret(secret)) {
    throw new UsageError('--webhook-secret: not a signing secret (whsec_ followed by base64)')
  }
  return { id, secret }
}

/** The endpoint as GET /v4.0/webhooks/{id} shows it: what listen prints of it. */
interface WebhookEndpointAnswer {
  webhook: { id: string; url: string; eventTypes: string[]; metadataFilter: Record<string, unknown>; enabled: boolean }
}

export async function runListen(options: {
  apiKey: string
  baseUrl: string
  forwardTo: string
  after: string | undefined
  pollMs: number
  stateFile: string
  /** Stand in for this webhook endpoint: its filters, its secret. */
  webhook?: { id: string; secret: string } | undefined
}): Promise<void> {
  const api = createApiConnection(options)
  const stop = stopSignal()
  const { signal } = stop
  const { webhook } = options
  const filter = webhook === undefined ? {} : { webhookId: webhook.id }
  try {
    if (webhook !== undefined) {
      const { webhook: endpoint } = await api.get<WebhookEndpointAnswer>(`/webhooks/${webhook.id}`, {}, signal)
      const types = endpoint.eventTypes.length === 0 ? 'every event type' : endpoint.eventTypes.join(', ')
      const metadata =
        Object.keys(endpoint.metadataFilter).length === 0
          ? ''
          : ` with metadata ${JSON.stringify(endpoint.metadataFilter)}`
      print(
        `webhook endpoint ${endpoint.id} (${endpoint.url}${endpoint.enabled ? '' : ', disabled'}): ${types}${metadata}`,
      )
    }
    let secret = webhook?.secret ?? ''
    // An endpoint's secret is the one given; the environment's is read again now and then (it may be rotated).
    let secretReadAt = webhook === undefined ? 0 : Number.POSITIVE_INFINITY
    const signingSecret = async (): Promise<string> => {
      if (Date.now() - secretReadAt > SECRET_REFRESH_MS) {
        const answer = await api.get<{ settings: { signingSecret: string; environment?: string } }>(
          '/account/settings',
          {},
          signal,
        )
        secret = answer.settings.signingSecret
        secretReadAt = Date.now()
      }
      return secret
    }
    await signingSecret()
    const saved = options.after === undefined ? readState(options.stateFile) : undefined
    // evt_0 means before every event: the feed's start, which takes no cursor. A first run starts after the
    // feed's last event, to forward new events.
    let cursor: string | null =
      options.after !== undefined
        ? options.after === 'evt_0'
          ? null
          : options.after
        : (saved?.lastEventId ?? (await lastEventIdOfFeed(api, filter, signal)))
    const from = options.after ? 'as asked' : saved ? `where the last run stopped (${options.stateFile})` : 'now'
    const position = cursor === null ? 'from the first event' : `from after ${cursor}`
    print(`listening to ${options.baseUrl} ${position} (${from}); forwarding to ${options.forwardTo}`)

    let feedRetryMs = RETRY_FIRST_MS
    while (!signal.aborted) {
      let page: { events: FeedEvent[]; hasMore: boolean }
      try {
        page = await api.get('/events', { ...filter, after: cursor ?? undefined, top: EVENTS_FEED_PAGE_SIZE }, signal)
        feedRetryMs = RETRY_FIRST_MS
      } catch (error) {
        if (signal.aborted) break
        // A refused key or cursor will not get better by waiting.
        if (error instanceof ApiRequestError && error.status >= 400 && error.status < 500) throw error
        print(
          `${new Date().toISOString()}  events feed: ${describeError(error)}; trying again in ${feedRetryMs / 1000}s`,
        )
        await pause(feedRetryMs, signal)
        feedRetryMs = Math.min(feedRetryMs * 2, RETRY_MOST_MS)
        continue
      }
      for (const event of page.events) {
        if (!(await forwardUntilTaken(event, options.forwardTo, signingSecret, signal))) break
        cursor = event.id
        writeState(options.stateFile, {
          baseUrl: options.baseUrl,
          keyPrefix: keyPrefixOf(options.apiKey),
          lastEventId: cursor,
          updated: new Date().toISOString(),
        })
      }
      if (!page.hasMore) await pause(options.pollMs, signal)
    }
    print(cursor === null ? 'stopped; no event forwarded yet' : `stopped; the last event forwarded is ${cursor}`)
  } finally {
    stop.dispose()
  }
}

/**
 * POSTs one event until the receiver answers 2xx, printing a line per try; false when stopped first. Each try
 * is signed afresh (a new `webhook-timestamp`), with the same `webhook-id` (the event's), as callbacks are.
 */
async function forwardUntilTaken(
  event: FeedEvent,
  forwardTo: string,
  signingSecret: () => Promise<string>,
  signal: AbortSignal,
): Promise<boolean> {
  const body = JSON.stringify(event)
  const orderId = event.data?.order?.id ?? event.subject ?? '-'
  let retryMs = RETRY_FIRST_MS
  while (!signal.aborted) {
    const now = new Date()
    const started = performance.now()
    let outcome: string
    let taken = false
    try {
      const headers = {
        'content-type': 'application/json',
        ...webhookHeaders([await signingSecret()], event.id, now, body),
      }
      const response = await fetch(forwardTo, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
      })
      const answer = (await response.text()).replace(/\s+/g, ' ').trim().slice(0, ANSWER_SNIPPET_CHARACTERS)
      taken = response.status >= 200 && response.status <= 299
      outcome = `${response.status}${taken || answer === '' ? '' : ` ${answer}`}`
    } catch (error) {
      if (signal.aborted) return false
      outcome = `failed: ${describeError(error)}`
    }
    const latency = Math.round(performance.now() - started)
    const retry = taken ? '' : `; trying again in ${retryMs / 1000}s`
    print(`${now.toISOString()}  ${event.type}  ${orderId}  ${event.id}  -> ${outcome} (${latency} ms)${retry}`)
    if (taken) return true
    await pause(retryMs, signal)
    retryMs = Math.min(retryMs * 2, RETRY_MOST_MS)
  }
  return false
}
