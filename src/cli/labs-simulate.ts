// `printroute labs simulate`: the reference lab. A process of its own that acts as a print lab through the public
// lab API only (/labs/v1 over HTTP with a lab key, never the database), so a lab's developers can read how the
// protocol is meant to be used and an operator can run a Live order end to end without a real lab. Each pass
// lists the lab's jobs and takes every job one step further: check the files (sha256 and size against the job),
// acknowledge, in production, printed, shipped (in --parcels parcels), then the carrier's scans up to Delivered.
// One step per job per pass (--delay-ms before each pass: a slow lab), so a cancellation request or a change
// seen in the next listing applies before the next step. What it did is kept per shipment in a state file, and every time and tracking number it reports is
// decided and saved before it is sent: a restart repeats a step with exactly the same report, which the lab API
// answers Ok (a repeat), and never doubles a parcel or a scan. With --push-port it also takes pushed events on
// 127.0.0.1, verifies their Standard Webhooks signature, and looks at its jobs at once; it still polls, more
// slowly, so nothing is missed. docs/labs.md#the-reference-lab.
import { createHash, timingSafeEqual } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Command } from 'commander'
import { ITEM_REJECTION_REASONS, type ItemRejectionReason } from '../domain/allocation/model.ts'
import { isSigningSecret, signatureOf } from '../domain/webhook-signature.ts'
import { type BoundServer, bindServer } from '../http/bound-server.ts'
import {
  API_REQUEST_TIMEOUT_MS,
  ApiRequestError,
  BASE_URL_ENV,
  connectionOf,
  intervalMs,
  keyPrefixOf,
  pause,
  sendJson,
  stopSignal,
} from './api-connection.ts'
import { print, UsageError } from './command-support.ts'

export const LAB_KEY_ENV = 'PRINTROUTE_LAB_KEY'
export const PUSH_SECRET_ENV = 'PRINTROUTE_LAB_PUSH_SECRET'
/** The scans reported after the last parcel has left, in order: each is a step of its own. */
export const SIMULATED_SCANS = [
  { status: 'InTransit', description: 'Accepted by the carrier', location: 'Sorting centre' },
  { status: 'OutForDelivery', description: 'Out for delivery', location: 'Local depot' },
  { status: 'Delivered', description: 'Delivered to the recipient', location: null },
] as const
/** A pushed event whose webhook-timestamp is further than this from the clock is refused (Standard Webhooks). */
const PUSH_TOLERANCE_SECONDS = 5 * 60
/** The most of a pushed body read; a job with many items is far smaller. */
const PUSH_BODY_LIMIT_BYTES = 1024 * 1024
/** Pauses after a failed request before the next pass: 1 s, doubling, at most 30 s. */
const RETRY_FIRST_MS = 1000
const RETRY_MOST_MS = 30_000

/** A job as GET /labs/v1/jobs lists it (and a push carries it): the fields the simulator reads. */
export interface SimulatedJob {
  shipmentId: string
  orderId: string
  state: string
  carrier: { name: string; service: string }
  items: {
    itemId: string
    sku: string
    state?: string
    printFiles: { printArea: string; url: string; sha256?: string; bytes?: number }[]
  }[]
  packingSlipPdf: { url: string } | null
  cancellationRequested?: { at: string } | null
}

/** One parcel as planned: its items (empty: the whole shipment) and the report it is shipped with. */
interface PlannedParcel {
  itemIds: string[]
  trackingNumber: string
  dispatchDate: string
  /**
   * The carrier it is shipped with, kept with the rest: a report re-sent after a restart must be the same parcel to
   * the byte, or printroute refuses it (a different parcel once every item has shipped). Absent in state files
   * written before it was kept: then the job's carrier.
   */
  carrier?: { name: string; service: string }
  shipped: boolean
}

/** What the simulator did for one shipment, kept so a restart goes on from there. */
export interface ShipmentRecord {
  orderId: string
  /** Steps done, in order: checked, acknowledged, inProduction, printed, cancellation. */
  done: string[]
  /** Items the simulator rejected (they leave the shipment). */
  rejectedItemIds: string[]
  parcels: PlannedParcel[]
  /** The scans reported so far, each with the time it was decided (and sent) with. */
  scans: { status: string; time: string; reported: boolean }[]
  /** Set once nothing is left to do: delivered, rejected, cancelled, or gone (no longer the lab's). */
  finished?: 'delivered' | 'rejected' | 'cancelled' | 'gone'
}

export interface SimulatorState {
  baseUrl: string
  keyPrefix: string
  shipments: Record<string, ShipmentRecord>
  updated: string
}

export interface SimulateOptions {
  apiKey: string
  baseUrl: string
  pollMs: number
  delayMs: number
  parcels: number
  rejectItems: { sku: string | 'all'; reason: ItemRejectionReason } | null
  push: { port: number; secret: string } | null
  once: boolean
  stateFile: string
}

/** The default state file: one per server and lab key, named by a hash of the URL and the key's visible prefix. */
export function defaultSimulatorStateFile(baseUrl: string, apiKey: string): string {
  const stateHome = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state')
  const name = createHash('sha256')
    .update(`${baseUrl}\n${keyPrefixOf(apiKey)}`)
    .digest('hex')
    .slice(0, 16)
  return join(stateHome, 'printroute', 'labs-simulate', `${name}.json`)
}

function readState(file: string, baseUrl: string, apiKey: string): SimulatorState {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as SimulatorState
    if (typeof state.shipments !== 'object' || state.shipments === null) {
      throw new UsageError(`the state file ${file} holds no shipments; remove it or give another --state-file`)
    }
    return state
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    return { baseUrl, keyPrefix: keyPrefixOf(apiKey), shipments: {}, updated: new Date().toISOString() }
  }
}

/** Written whole to a new file, then renamed over the old one: a crash leaves the old state or the new. */
function writeState(file: string, state: SimulatorState): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.tmp`
  state.updated = new Date().toISOString()
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
}

/**
 * Verifies a pushed event's Standard Webhooks headers against the secret: the signature of
 * `<webhook-id>.<webhook-timestamp>.<body>` must be among those sent (several during a secret's rotation) and
 * the timestamp within five minutes of the clock. The reason it is refused, or null.
 */
export function pushRefusal(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  now: Date,
): string | null {
  const header = (name: string) => {
    const value = headers[name]
    return typeof value === 'string' ? value : undefined
  }
  const id = header('webhook-id')
  const timestamp = header('webhook-timestamp')
  const signatures = header('webhook-signature')
  if (!id || !timestamp || !signatures)
    return 'the webhook-id, webhook-timestamp and webhook-signature headers are required'
  if (!/^\d{1,12}$/.test(timestamp)) return 'webhook-timestamp is not Unix seconds'
  const seconds = Number(timestamp)
  if (Math.abs(now.getTime() / 1000 - seconds) > PUSH_TOLERANCE_SECONDS)
    return 'webhook-timestamp is too old or too new'
  const expected = Buffer.from(signatureOf(secret, id, seconds, body))
  const matches = signatures
    .split(' ')
    .map((candidate) => Buffer.from(candidate))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))
  return matches ? null : 'no signature matches the push secret'
}

/** The options of `labs simulate` as the command line gives them, checked. */
export function simulateOptionsOf(values: Record<string, unknown>): SimulateOptions {
  const connection = connectionOf(values)
  if (!connection.apiKey.startsWith('pr_lab_')) {
    throw new UsageError('--api-key must be a lab key (pr_lab_...): printroute labs keys create --lab CODE')
  }
  const count = (flag: string, value: unknown, least: number, most: number): number => {
    const text = String(value ?? '')
    const number = Number(text)
    if (!/^\d+$/.test(text) || number < least || number > most) {
      throw new UsageError(`${flag}: "${text}" must be a whole number from ${least} to ${most}`)
    }
    return number
  }
  let rejectItems: SimulateOptions['rejectItems'] = null
  if (values.rejectItems !== undefined) {
    const reason = values.rejectReason ?? 'CannotProduce'
    if (!ITEM_REJECTION_REASONS.includes(reason as ItemRejectionReason)) {
      throw new UsageError(
        `--reject-reason must be one of ${ITEM_REJECTION_REASONS.join(', ')}, got "${String(reason)}"`,
      )
    }
    const sku = String(values.rejectItems).trim()
    if (sku === '') throw new UsageError('--reject-items: give a SKU or all')
    rejectItems = { sku: sku.toLowerCase() === 'all' ? 'all' : sku, reason: reason as ItemRejectionReason }
  } else if (values.rejectReason !== undefined) {
    throw new UsageError('--reject-reason needs --reject-items')
  }
  let push: SimulateOptions['push'] = null
  if (values.pushPort !== undefined) {
    const secret = typeof values.pushSecret === 'string' ? values.pushSecret.trim() : ''
    if (!isSigningSecret(secret)) {
      throw new UsageError(`--push-secret (or ${PUSH_SECRET_ENV}) must be the lab's push signing secret (whsec_...)`)
    }
    push = { port: count('--push-port', values.pushPort, 0, 65_535), secret }
  }
  const pollDefault = push ? '30s' : '2s'
  return {
    ...connection,
    pollMs: intervalMs(values.pollInterval ?? pollDefault, '--poll-interval'),
    delayMs: count('--delay-ms', values.delayMs ?? '0', 0, 3_600_000),
    parcels: count('--parcels', values.parcels ?? '1', 1, 100),
    rejectItems,
    push,
    once: values.once === true,
    stateFile:
      typeof values.stateFile === 'string'
        ? values.stateFile
        : defaultSimulatorStateFile(connection.baseUrl, connection.apiKey),
  }
}

export function registerLabSimulateCommand(labs: Command): void {
  labs
    .command('simulate')
    .summary('run a reference lab against a printroute server, through the lab API only')
    .description(
      'Acts as the lab whose key is given: lists its jobs (GET /labs/v1/jobs), downloads and checks every print ' +
        'file and packing slip, acknowledges, reports in production and printed, ships (in --parcels parcels, ' +
        'each with its own tracking number) and reports the carrier scans up to Delivered, one line per step. ' +
        'Answers cancellation requests. What it did is kept in a state file, so a restart doubles nothing. With ' +
        '--push-port it takes pushed jobs on 127.0.0.1, signed with --push-secret. Stops on Ctrl-C or SIGTERM ' +
        '(docs/labs.md#the-reference-lab).',
    )
    .option('--api-key <KEY>', `the lab key, pr_lab_... (or set ${LAB_KEY_ENV})`)
    .option('--base-url <URL>', `the Live address of the printroute server (or set ${BASE_URL_ENV})`)
    .option('--push-port <N>', 'take pushed events on 127.0.0.1:N (0: any free port)')
    .option('--push-secret <SECRET>', `the push signing secret, whsec_... (or set ${PUSH_SECRET_ENV})`)
    .option('--reject-items <SKU|all>', 'reject the items of this SKU (or every item) instead of making them')
    .option('--reject-reason <REASON>', `why: ${ITEM_REJECTION_REASONS.join(', ')} (default CannotProduce)`)
    .option('--delay-ms <N>', "wait this long before each pass (each job's next step): a slow lab", '0')
    .option('--parcels <N>', 'ship each shipment in this many parcels (at most one per item)', '1')
    .option('--poll-interval <DUR>', 'how often to list the jobs when idle (default 2s; 30s with --push-port)')
    .option('--state-file <FILE>', 'where what was done is kept (default: under $XDG_STATE_HOME)')
    .option('--once', 'take every job as far as it goes, then exit')
    .action(async (values: Record<string, unknown>) => {
      const options = simulateOptionsOf({
        ...values,
        apiKey: values.apiKey ?? process.env[LAB_KEY_ENV],
        baseUrl: values.baseUrl ?? process.env[BASE_URL_ENV],
        pushSecret: values.pushSecret ?? process.env[PUSH_SECRET_ENV],
      })
      await runLabSimulator(options)
    })
}

/** The lab API over HTTP with the lab key: the JSON body of a 2xx answer; ApiRequestError for any other. */
function labApi(options: { apiKey: string; baseUrl: string }, signal: AbortSignal) {
  return <T>(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<T> =>
    sendJson<T>(options, method, `/labs/v1${path}`, payload, signal)
}

/** The failures of a refusal as `field: code` pairs, for its log line. */
function refusalText(error: ApiRequestError): string {
  const failures = error.body?.failures as Record<string, { code?: string }[]> | undefined
  const fields = failures
    ? Object.entries(failures).map(([field, list]) => `${field}: ${list.map((one) => one.code).join(', ')}`)
    : []
  const outcome = typeof error.body?.outcome === 'string' ? error.body.outcome : `HTTP ${error.status}`
  return [outcome, ...fields].join('; ')
}

function describeError(error: unknown): string {
  if (error instanceof ApiRequestError) return refusalText(error)
  const cause = (error as { cause?: { code?: string } }).cause
  if (cause?.code) return cause.code
  if ((error as Error).name === 'TimeoutError') return 'no answer in time'
  return (error as Error).message
}

/** The server has no such route (an older printroute): the report is skipped rather than failed. */
function endpointMissing(error: unknown): boolean {
  return error instanceof ApiRequestError && error.status === 404 && error.body?.outcome === 'EndpointDoesNotExist'
}

/** The shipment is no longer this lab's (rejected, cancelled, re-allocated): nothing more to do for it. */
function shipmentGone(error: unknown): boolean {
  return error instanceof ApiRequestError && error.status === 404 && error.body?.outcome === 'EntityNotFound'
}

/** What a downloaded file's bytes say against what the job says of it: the defect, or null. */
export function fileDefect(
  bytes: Uint8Array,
  expected: { sha256?: string; bytes?: number },
  what: string,
): string | null {
  if (expected.bytes !== undefined && bytes.byteLength !== expected.bytes) {
    return `${what} is ${bytes.byteLength} bytes, the job says ${expected.bytes}`
  }
  if (expected.sha256 !== undefined) {
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    if (sha256 !== expected.sha256) return `${what} has sha256 ${sha256}, the job says ${expected.sha256}`
  }
  return null
}

/** The items of the job still to make: not rejected by the simulator, not shipped or rejected as the job says. */
function openItems(job: SimulatedJob, record: ShipmentRecord) {
  return job.items.filter(
    (item) =>
      !record.rejectedItemIds.includes(item.itemId) &&
      (item.state === undefined || item.state === 'open' || item.state === 'printed'),
  )
}

/** `count` parcels of the items, dealt round robin; one parcel names no items (the whole shipment). */
export function parcelsOf(itemIds: string[], count: number): string[][] {
  const parcels = Math.min(count, itemIds.length)
  if (parcels <= 1) return [[]]
  const groups: string[][] = Array.from({ length: parcels }, () => [])
  for (const [index, itemId] of itemIds.entries()) groups[index % parcels]?.push(itemId)
  return groups
}

/** A job as GET /labs/v1/jobs/{shipmentId} answers it, in any state: what picking a shipment up again reads. */
export interface ReadJob {
  state: string
  parcels?: { tracking: { number: string } | null; dispatchDate: string }[]
}

/**
 * Brings the record of a shipment the simulator had in hand, and no longer finds among the open jobs, up to what
 * printroute says of it (`job`, read by its id; undefined: it is not the lab's any more). Shipped: a report sent
 * before a stop went through, so every planned parcel has left and the carrier's scans follow; rejected, cancelled
 * or gone: nothing more to do. The line to log, or null when the job is still open (the next listing shows it).
 */
export function recoverShipment(record: ShipmentRecord, job: ReadJob | undefined): string | null {
  if (!job) {
    record.finished = 'gone'
    return 'no longer with this lab (cancelled, rejected or moved); left alone'
  }
  switch (job.state) {
    case 'shipped': {
      const parcels = job.parcels ?? []
      if (record.parcels.length === 0) {
        // Shipped by someone else (the lab portal): its last parcel stands for the shipment's scans.
        const last = parcels.at(-1)
        record.parcels = [
          {
            itemIds: [],
            trackingNumber: last?.tracking?.number ?? '',
            dispatchDate: last?.dispatchDate ?? new Date().toISOString(),
            shipped: true,
          },
        ]
      }
      const resent = record.parcels.filter((parcel) => !parcel.shipped).length
      for (const parcel of record.parcels) parcel.shipped = true
      return (
        `shipped, as printroute says (${parcels.length} parcel${parcels.length === 1 ? '' : 's'}` +
        `${resent > 0 ? `; the last report before the stop went through` : ''}): on to the carrier's scans`
      )
    }
    case 'rejected':
    case 'cancelled':
      record.finished = job.state
      return `${job.state}, as printroute says; left alone`
    default:
      return null
  }
}

/** A tracking number of the simulator's own, the same for the same parcel on every run. */
export function trackingNumberOf(shipmentId: string, parcel: number): string {
  const digits = shipmentId.replace(/\D/g, '')
  return `SIM${digits}P${parcel}`
}

export async function runLabSimulator(options: SimulateOptions): Promise<void> {
  const stop = stopSignal()
  const { signal } = stop
  const call = labApi(options, signal)
  const state = readState(options.stateFile, options.baseUrl, options.apiKey)
  const save = () => writeState(options.stateFile, state)
  const log = (shipmentId: string, text: string) => print(`${new Date().toISOString()}  ${shipmentId}  ${text}`)
  // A push (or a stop) ends the pause between passes early.
  let wake: () => void = () => {}
  let pushServer: BoundServer | null = null
  try {
    if (options.push) {
      pushServer = await startPushReceiver(options.push, (event) => {
        log(event.shipmentId ?? '-', `push ${event.type} ${event.id} -> accepted`)
        wake()
      })
      print(`taking pushed events at ${pushServer.address}/ (signed with the push secret)`)
    }
    const mode = options.once ? 'once' : `every ${options.pollMs / 1000}s when idle`
    print(
      `simulating the lab of ${keyPrefixOf(options.apiKey)} at ${options.baseUrl} (${mode}; state ${options.stateFile})`,
    )

    /** One step of one job: reported to the lab API, its outcome logged. */
    async function step(shipmentId: string, name: string, path: string, payload?: unknown): Promise<string> {
      if (signal.aborted) throw signal.reason
      const answer = await call<{ outcome: string }>('POST', `/jobs/${shipmentId}${path}`, payload)
      log(shipmentId, `${name} -> ${answer.outcome}${answer.outcome === 'Ok' ? ' (a repeat)' : ''}`)
      return answer.outcome
    }

    /** The job's next step; false when nothing was left to do for it. */
    async function advance(job: SimulatedJob): Promise<boolean> {
      const id = job.shipmentId
      state.shipments[id] ??= { orderId: job.orderId, done: [], rejectedItemIds: [], parcels: [], scans: [] }
      const record = state.shipments[id]
      if (record.finished) return false
      const did = (name: string) => record.done.includes(name)
      const mark = (name: string) => {
        record.done.push(name)
        save()
      }

      if (job.cancellationRequested && !did('cancellation')) {
        // Production has started once the simulator said so (or the job says so): too late to cancel.
        const started = did('inProduction') || job.state === 'inProduction'
        const answer = started ? 'tooLate' : 'cancelled'
        await step(id, `cancellation ${answer}`, '/cancellation', { answer })
        mark('cancellation')
        if (answer === 'cancelled') {
          record.finished = 'cancelled'
          save()
        }
        return true
      }

      if (!did('checked')) {
        const defects = await checkFiles(job, signal)
        const chosen = options.rejectItems
        const refused = new Map<string, { reason: ItemRejectionReason; description: string }>()
        for (const [itemId, description] of defects.items) refused.set(itemId, { reason: 'FileDefect', description })
        for (const item of openItems(job, record)) {
          if (!chosen || refused.has(item.itemId)) continue
          if (chosen.sku === 'all' || chosen.sku.toLowerCase() === item.sku.toLowerCase()) {
            refused.set(item.itemId, {
              reason: chosen.reason,
              description: `simulated: ${chosen.reason} for ${item.sku}`,
            })
          }
        }
        if (defects.shipment || (refused.size > 0 && refused.size === openItems(job, record).length)) {
          // Nothing of it can be made: the whole shipment goes back to printroute.
          const first = [...refused.values()][0]
          const reason = defects.shipment ?? `${first?.reason}: ${first?.description}`
          const unavailableItemIds = first?.reason === 'FileDefect' || defects.shipment ? [] : [...refused.keys()]
          await step(id, `reject (${reason})`, '/reject', { reason, unavailableItemIds })
          record.rejectedItemIds.push(...job.items.map((item) => item.itemId))
          record.finished = 'rejected'
          save()
          return true
        }
        if (refused.size > 0) {
          const items = [...refused].map(([itemId, { reason, description }]) => ({ itemId, reason, description }))
          const summary = items.map((item) => `${item.itemId} ${item.reason}`).join(', ')
          await step(id, `reject items ${summary}`, '/reject', { reason: items[0]?.reason, items })
          record.rejectedItemIds.push(...refused.keys())
        } else {
          log(
            id,
            `files checked: ${job.items.flatMap((item) => item.printFiles).length} print files, sha256 and size as the job says`,
          )
        }
        mark('checked')
        return true
      }

      if (!did('acknowledged')) {
        if (job.state === 'submitted') await step(id, 'acknowledge', '/acknowledge')
        mark('acknowledged')
        return true
      }
      if (!did('inProduction')) {
        await step(id, 'in production', '/in-production')
        mark('inProduction')
        return true
      }
      if (!did('printed')) {
        const itemIds = openItems(job, record).map((item) => item.itemId)
        try {
          await step(id, `printed ${itemIds.join(', ')}`, '/printed', { itemIds })
        } catch (error) {
          if (!endpointMissing(error)) throw error
          log(id, 'printed: this server has no item-by-item reports; skipped')
        }
        mark('printed')
        return true
      }
      return shipNextParcel(job, record)
    }

    /** Plans the parcels once (saved before the first is sent), then ships the next one not yet shipped. */
    async function shipNextParcel(job: SimulatedJob, record: ShipmentRecord): Promise<boolean> {
      const id = job.shipmentId
      if (record.parcels.length === 0) {
        const groups = parcelsOf(
          openItems(job, record).map((item) => item.itemId),
          options.parcels,
        )
        record.parcels = groups.map((itemIds, index) => ({
          itemIds,
          trackingNumber: trackingNumberOf(id, index + 1),
          dispatchDate: new Date().toISOString(),
          carrier: { ...job.carrier },
          shipped: false,
        }))
        save()
      }
      const index = record.parcels.findIndex((parcel) => !parcel.shipped)
      const parcel = record.parcels[index]
      if (!parcel) return false
      const carrier = parcel.carrier ?? job.carrier
      const body = {
        carrier,
        tracking: { number: parcel.trackingNumber, url: `https://tracking.example/${parcel.trackingNumber}` },
        dispatchDate: parcel.dispatchDate,
        ...(parcel.itemIds.length > 0 ? { itemIds: parcel.itemIds } : {}),
      }
      const what = parcel.itemIds.length > 0 ? ` items ${parcel.itemIds.join(', ')}` : ''
      await step(
        id,
        `shipped parcel ${index + 1}/${record.parcels.length}${what} (${carrier.name}, ${parcel.trackingNumber})`,
        '/shipped',
        body,
      )
      parcel.shipped = true
      save()
      return true
    }

    /** The next carrier scan of a shipment whose parcels have all left; false when it is delivered. */
    async function scanNext(shipmentId: string, record: ShipmentRecord): Promise<boolean> {
      const next = SIMULATED_SCANS[record.scans.filter((scan) => scan.reported).length]
      if (!next) {
        record.finished = 'delivered'
        save()
        return false
      }
      let planned = record.scans.find((scan) => scan.status === next.status)
      if (!planned) {
        planned = { status: next.status, time: new Date().toISOString(), reported: false }
        record.scans.push(planned)
        save()
      }
      const event = { time: planned.time, status: next.status, description: next.description, location: next.location }
      await step(shipmentId, `tracking ${next.status}`, '/tracking', { events: [event] })
      planned.reported = true
      if (next.status === 'Delivered') record.finished = 'delivered'
      save()
      return true
    }

    /** One pass: every listed job one step further, then every shipped shipment's next scan. */
    async function pass(): Promise<boolean> {
      const { jobs } = await call<{ jobs: SimulatedJob[] }>('GET', '/jobs')
      let moved = false
      const listed = new Set<string>()
      for (const job of jobs) {
        if (signal.aborted) return moved
        listed.add(job.shipmentId)
        try {
          if (await advance(job)) moved = true
        } catch (error) {
          if (signal.aborted) return moved
          if (shipmentGone(error)) {
            markGone(job.shipmentId)
            continue
          }
          log(job.shipmentId, `failed: ${describeError(error)}; trying again on the next pass`)
          if (!(error instanceof ApiRequestError) || error.status >= 500) throw error
        }
      }
      for (const [shipmentId, record] of Object.entries(state.shipments)) {
        if (signal.aborted || record.finished) continue
        const shipped = record.parcels.length > 0 && record.parcels.every((parcel) => parcel.shipped)
        if (!shipped) {
          // Not listed and not shipped as far as the simulator knows: read the job itself. Shipped (a report sent
          // just before a stop went through), rejected, cancelled or no longer the lab's.
          if (!listed.has(shipmentId) && (await pickUp(shipmentId, record))) moved = true
          continue
        }
        try {
          if (await scanNext(shipmentId, record)) moved = true
        } catch (error) {
          if (signal.aborted) return moved
          if (shipmentGone(error)) {
            markGone(shipmentId)
            continue
          }
          log(shipmentId, `failed: ${describeError(error)}; trying again on the next pass`)
        }
      }
      return moved
    }
    /** A shipment in hand that left the listing, brought up to date from GET /jobs/{id}; whether it moved on. */
    async function pickUp(shipmentId: string, record: ShipmentRecord): Promise<boolean> {
      let job: ReadJob | undefined
      try {
        job = (await call<{ job: ReadJob }>('GET', `/jobs/${shipmentId}`)).job
      } catch (error) {
        if (signal.aborted) return false
        // An older server cannot read one job: as before, a job that left the listing is left alone.
        if (endpointMissing(error)) {
          markGone(shipmentId)
          return false
        }
        if (!shipmentGone(error)) {
          log(shipmentId, `failed to read the job: ${describeError(error)}; trying again on the next pass`)
          return false
        }
      }
      const line = recoverShipment(record, job)
      if (line === null) return false
      save()
      log(shipmentId, line)
      return !record.finished
    }
    function markGone(shipmentId: string) {
      const record = state.shipments[shipmentId]
      if (!record || record.finished) return
      record.finished = 'gone'
      save()
      log(shipmentId, 'no longer with this lab (cancelled, rejected or moved); left alone')
    }

    let retryMs = RETRY_FIRST_MS
    while (!signal.aborted) {
      let moved: boolean
      try {
        // The slow lab's pause comes before the listing, so the step after it is taken on what the job is now
        // (a cancellation requested during the pause is answered instead of the next step).
        if (options.delayMs > 0) await pause(options.delayMs, signal)
        if (signal.aborted) break
        moved = await pass()
        retryMs = RETRY_FIRST_MS
      } catch (error) {
        if (signal.aborted) break
        // A refused key will not get better by waiting.
        if (error instanceof ApiRequestError && (error.status === 401 || error.status === 403)) throw error
        print(`${new Date().toISOString()}  -  lab API: ${describeError(error)}; trying again in ${retryMs / 1000}s`)
        if (options.once) throw error
        await pause(retryMs, signal)
        retryMs = Math.min(retryMs * 2, RETRY_MOST_MS)
        continue
      }
      if (moved) continue
      if (options.once) break
      const woken = new AbortController()
      wake = () => woken.abort()
      await pause(options.pollMs, AbortSignal.any([signal, woken.signal]))
      wake = () => {}
    }
    const open = Object.values(state.shipments).filter((record) => !record.finished).length
    print(`stopped; ${open} shipment${open === 1 ? '' : 's'} in hand (state ${options.stateFile})`)
  } finally {
    await pushServer?.close()
    stop.dispose()
  }
}

/**
 * Downloads every print file and the packing slip PDF of the job and checks them: each print file's size and
 * sha256 against the job, the packing slip's first bytes. A print file that differs is a defect of its item; a
 * packing slip that is no PDF, of the shipment. A download that fails is an error (tried again on the next pass).
 */
async function checkFiles(
  job: SimulatedJob,
  signal: AbortSignal,
): Promise<{ items: Map<string, string>; shipment: string | null }> {
  const download = async (url: string, what: string): Promise<Uint8Array> => {
    const response = await fetch(url, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(API_REQUEST_TIMEOUT_MS)]),
    })
    if (!response.ok) throw new Error(`${what}: HTTP ${response.status}`)
    return new Uint8Array(await response.arrayBuffer())
  }
  const items = new Map<string, string>()
  for (const item of job.items) {
    if (item.state !== undefined && item.state !== 'open') continue
    for (const file of item.printFiles) {
      const what = `the ${file.printArea} print file of ${item.itemId}`
      const defect = fileDefect(await download(file.url, what), file, what)
      if (defect && !items.has(item.itemId)) items.set(item.itemId, defect)
    }
  }
  let shipment: string | null = null
  if (job.packingSlipPdf) {
    const slip = await download(job.packingSlipPdf.url, 'the packing slip')
    if (Buffer.from(slip.subarray(0, 5)).toString('latin1') !== '%PDF-')
      shipment = 'FileDefect: the packing slip is no PDF'
  }
  return { items, shipment }
}

/** A pushed event as the receiver passes it on: its type, id and the shipment it is about. */
interface PushedEvent {
  id: string
  type: string
  shipmentId: string | undefined
}

/** What the push receiver reads of a request and writes of an answer (node:http's, through bound-server.ts). */
interface PushRequest extends AsyncIterable<Buffer> {
  method?: string
  headers: Record<string, string | string[] | undefined>
}
interface PushAnswer {
  writeHead(status: number, headers: Record<string, string>): unknown
  end(body: string): unknown
}

/**
 * Listens on 127.0.0.1:port for pushed events: a POST whose signature verifies with the push secret is
 * answered 204 and handed on; a bad or missing signature 401, anything else 400 or 405.
 */
async function startPushReceiver(
  push: { port: number; secret: string },
  onEvent: (event: PushedEvent) => void,
): Promise<BoundServer> {
  const bound = await bindServer('127.0.0.1', push.port)
  const answer = (response: PushAnswer, status: number, text = '') => {
    response.writeHead(status, text ? { 'content-type': 'text/plain; charset=utf-8' } : {})
    response.end(text)
  }
  const handle = async (request: PushRequest, response: PushAnswer) => {
    if (request.method !== 'POST') return answer(response, 405, 'POST only\n')
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of request) {
      size += chunk.length
      if (size > PUSH_BODY_LIMIT_BYTES) return answer(response, 413, 'too large\n')
      chunks.push(chunk)
    }
    const body = Buffer.concat(chunks).toString('utf8')
    const refusal = pushRefusal(push.secret, request.headers, body, new Date())
    if (refusal) {
      print(`${new Date().toISOString()}  -  push refused (401): ${refusal}`)
      return answer(response, 401, `${refusal}\n`)
    }
    let event: { id?: unknown; type?: unknown; data?: { job?: { shipmentId?: unknown } } }
    try {
      event = JSON.parse(body)
    } catch {
      return answer(response, 400, 'not JSON\n')
    }
    if (typeof event.type !== 'string' || typeof event.id !== 'string') {
      return answer(response, 400, 'not a CloudEvent\n')
    }
    const shipmentId = event.data?.job?.shipmentId
    answer(response, 204)
    onEvent({ id: event.id, type: event.type, shipmentId: typeof shipmentId === 'string' ? shipmentId : undefined })
  }
  bound.serverFactory(
    ((request: PushRequest, response: PushAnswer) => {
      handle(request, response).catch(() => answer(response, 400, 'unreadable\n'))
    }) as never,
    {},
  )
  bound.open()
  return bound
}
