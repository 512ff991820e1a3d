// A Shopify channel's webhook subscriptions, made by printroute with the channel's Admin API token
// (docs/channels.md, step 5): merchants who connect a shop do not write GraphQL. A run is a job
// (`subscribe-channel-webhooks`), queued in the transaction that creates the channel or gives it new secrets, or by
// "Subscribe again": the store's answer never slows or breaks the channel's create, and a store that fails (500, 429,
// a timeout) leaves the channel as it is, its subscriptions `failed` with the reason until a run succeeds. Such a
// passing failure queues the run's own retry on CHANNEL_WEBHOOK_RETRY_SCHEDULE_SECONDS (a 429's Retry-After
// honoured, as the fulfilment outbox does), a few times, then it stays failed; a refusal is not retried. A run asks
// the store for the app's subscriptions of the three topics and creates only the missing ones for the channel's
// webhookUrl, so runs repeat safely; a topic also subscribed to another address is left alone and reported.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import {
  CHANNEL_WEBHOOK_RETRY_SCHEDULE_SECONDS,
  CHANNEL_WEBHOOK_TOPICS,
  type ChannelWebhookState,
  type ChannelWebhookSubscription,
  type ChannelWebhookTopic,
  elsewhereReason,
  planSubscriptions,
  type StoreWebhookSubscription,
} from '../domain/channel-webhooks.ts'
import { openSecret } from '../domain/channels.ts'
import type { Environment } from '../domain/environment.ts'
import { formatId, parseRequestId } from '../domain/ids.ts'
import { jobRequest } from '../domain/jobs.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { nextAttemptAt } from '../domain/retry-schedule.ts'
import {
  type StorefrontAdapter,
  type StorefrontCredentials,
  StorefrontError,
  type StorefrontKind,
} from '../domain/storefronts.ts'
import {
  type ChannelRow,
  findChannel,
  recordWebhookSubscriptionRun,
  startWebhookSubscriptionRun,
} from '../repositories/channels.repository.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'

/** A channel's subscriptions as the API shows them (ChannelView.webhooks). */
export interface ChannelWebhooksView {
  state: ChannelWebhookState
  /** The topics known to reach the channel's webhookUrl. */
  topics: ChannelWebhookTopic[]
  /** Why they failed, or the subscriptions to other addresses that were left alone. */
  reason?: string
  /** When the store was last asked; null while the first run is queued. */
  checkedAt: string | null
  /** Subscriptions of the channel's topics to other addresses, left alone. */
  elsewhere?: StoreWebhookSubscription[]
  /** Failed in passing: when printroute tries again by itself; absent when it will not. */
  nextAttemptAt?: string
}

/** What the channel shows of its subscriptions; undefined when printroute never subscribed it (WooCommerce). */
export function channelWebhooksView(row: Pick<ChannelRow, 'webhookSubscription'>): ChannelWebhooksView | undefined {
  const kept = row.webhookSubscription
  if (!kept) return undefined
  return {
    state: kept.state,
    topics: kept.topics,
    ...(kept.reason ? { reason: kept.reason } : {}),
    checkedAt: kept.checkedAt,
    ...(kept.elsewhere.length > 0 ? { elsewhere: kept.elsewhere } : {}),
    ...(kept.state === 'failed' && kept.nextAttemptAt ? { nextAttemptAt: kept.nextAttemptAt } : {}),
  }
}

/**
 * Queues a subscription run of a Shopify channel in `tx` (the channel's create or its new secrets) and answers the
 * row as the run leaves it (`pending`); another store's channel is answered as it is: its webhooks are the merchant's.
 */
export async function queueWebhookSubscription(
  tx: Queryable,
  jobs: JobEnqueuer,
  channel: ChannelRow,
): Promise<ChannelRow> {
  if (channel.type !== 'shopify') return channel
  const subscription = await startWebhookSubscriptionRun(tx, channel.id)
  if (!subscription) return channel
  await jobs.enqueue(tx, [
    jobRequest('subscribe-channel-webhooks', { channelId: channel.id, attempt: subscription.attempt }),
  ])
  return { ...channel, webhookSubscription: subscription }
}

export interface ChannelWebhooksService {
  /**
   * The job: one run of the channel's subscriptions, or its automatic retry number `retry` (0: the run itself). A
   * run replaced by a newer one, or a try already recorded, does nothing.
   */
  subscribe(channelId: number, attempt: number, retry: number): Promise<void>
  /** "Subscribe again": a new run queued now; 400 naming channelId for a channel whose store has none. */
  subscribeAgain(caller: AccountScope, channelId: string): Promise<void>
}

export interface ChannelWebhooksDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  adapters: Partial<Record<StorefrontKind, StorefrontAdapter>>
  secretsKey: Buffer
  /** The webhook URL of a channel, on its environment's address: the `uri` subscribed. */
  webhookUrl: (environment: Environment, kind: StorefrontKind, channelId: string) => string
  log?: ServiceLogger
}

export function createChannelWebhooksService(deps: ChannelWebhooksDeps): ChannelWebhooksService {
  const log = deps.log ?? silentLogger
  const schedule = CHANNEL_WEBHOOK_RETRY_SCHEDULE_SECONDS
  return {
    async subscribe(channelId, attempt, retry) {
      const channel = await findChannel(deps.db, channelId)
      const adapter = channel && deps.adapters[channel.type]
      const kept = channel?.webhookSubscription
      if (!channel || !adapter || kept?.attempt !== attempt || (kept.retries ?? 0) !== retry) return
      const { subscription, retryAfterSeconds } = await runSubscriptions(deps, channel, adapter, attempt)
      // A passing failure queues the next try of the same run; the page says failed meanwhile, with the reason.
      const next =
        retryAfterSeconds === undefined ? null : nextAttemptAt(schedule, retry, deps.clock.now(), retryAfterSeconds)
      const outcome: ChannelWebhookSubscription = {
        ...subscription,
        retries: next ? retry + 1 : retry,
        nextAttemptAt: next?.toISOString() ?? null,
      }
      const recorded = await deps.db.transaction(async (tx) => {
        if (!(await recordWebhookSubscriptionRun(tx, channel.id, outcome, retry))) return false
        if (next) {
          await deps.jobs.enqueue(tx, [
            jobRequest('subscribe-channel-webhooks', { channelId: channel.id, attempt, retry: retry + 1 }, next),
          ])
        }
        return true
      })
      if (!recorded) return
      const line = {
        step: 'channel-webhook-subscriptions',
        channelId: formatId('chn', channel.id),
        attempt,
        retry,
        maxRetries: schedule.length,
        nextAttemptAt: outcome.nextAttemptAt,
      }
      const message = `channel ${line.channelId} webhooks ${outcome.state}${outcome.reason ? `: ${outcome.reason}` : ''}${
        next ? `, tries again at ${outcome.nextAttemptAt}` : ''
      }`
      if (outcome.state === 'failed' && !next) log.warn(line, message)
      else log.info(line, message)
    },
    async subscribeAgain(caller, channelId) {
      const number = parseRequestId('chn', channelId, 'channelId')
      const channel = await findChannel(deps.db, number, caller)
      if (!channel) throw new ServiceError('EntityNotFound', `Channel ${channelId} was not found`)
      if (!deps.adapters[channel.type]?.createWebhookSubscription) {
        throw validationFailed(
          {
            channelId: [{ code: 'InvalidValue', providedValue: channelId, comparisonValue: 'a Shopify channel' }],
          },
          "printroute subscribes only a Shopify channel's webhooks: set this store's webhooks up in the store",
        )
      }
      await deps.db.transaction((tx) => queueWebhookSubscription(tx, deps.jobs, channel))
    },
  }
}

/**
 * What one try found; `retryAfterSeconds` is set (a number, or null when the store named no delay) only when the
 * store failed in passing and the try may be made again.
 */
interface RunOutcome {
  subscription: ChannelWebhookSubscription
  retryAfterSeconds?: number | null
}

/**
 * One run: the app's subscriptions of the topics, then one create per topic missing for the channel's URI. A store
 * that fails or refuses ends the run `failed` with its reason, the topics made so far kept; a database error is
 * thrown (the queue retries the job).
 */
async function runSubscriptions(
  deps: ChannelWebhooksDeps,
  channel: ChannelRow,
  adapter: StorefrontAdapter,
  attempt: number,
): Promise<RunOutcome> {
  const uri = deps.webhookUrl(channel.environment, channel.type, formatId('chn', channel.id))
  const topics: ChannelWebhookTopic[] = []
  const outcome = (
    state: ChannelWebhookState,
    reason: string | null,
    elsewhere: StoreWebhookSubscription[] = [],
  ): RunOutcome => ({
    subscription: {
      state,
      topics: CHANNEL_WEBHOOK_TOPICS.filter((topic) => topics.includes(topic)),
      reason,
      checkedAt: deps.clock.now().toISOString(),
      attempt,
      elsewhere,
    },
  })
  let credentials: StorefrontCredentials
  try {
    credentials = JSON.parse(openSecret(deps.secretsKey, channel.credentialsEncrypted)) as StorefrontCredentials
  } catch {
    return outcome('failed', "the channel's stored token cannot be opened: give it again with PATCH")
  }
  if (!adapter.listWebhookSubscriptions || !adapter.createWebhookSubscription) {
    return outcome('failed', "this store's webhooks are set up in the store")
  }
  try {
    const existing = await adapter.listWebhookSubscriptions(credentials, CHANNEL_WEBHOOK_TOPICS)
    const plan = planSubscriptions(existing, uri)
    topics.push(...plan.present)
    for (const topic of plan.missing) {
      await adapter.createWebhookSubscription(credentials, topic, uri)
      topics.push(topic)
    }
    return outcome('subscribed', elsewhereReason(plan.elsewhere), plan.elsewhere)
  } catch (error) {
    if (!(error instanceof StorefrontError)) throw error
    const failed = outcome('failed', error.message)
    return error.retryable ? { ...failed, retryAfterSeconds: error.retryAfterSeconds } : failed
  }
}
