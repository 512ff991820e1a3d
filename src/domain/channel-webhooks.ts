// A Shopify channel's webhook subscriptions (docs/channels.md, step 5), made by printroute itself with the channel's
// Admin API token: the three topics a channel needs, what a subscription run found and did, and the state the
// channel shows. Pure: the calls to Shopify are the storefront adapter's, the runs are a job's.

/** The Admin API's topics a channel subscribes, in its WebhookSubscriptionTopic spelling. */
export const CHANNEL_WEBHOOK_TOPICS = ['ORDERS_CREATE', 'ORDERS_CANCELLED', 'APP_UNINSTALLED'] as const
export type ChannelWebhookTopic = (typeof CHANNEL_WEBHOOK_TOPICS)[number]

/** pending: a run is queued; subscribed: every topic reaches the channel's webhookUrl; failed: see reason. */
export const CHANNEL_WEBHOOK_STATES = ['subscribed', 'pending', 'failed'] as const
export type ChannelWebhookState = (typeof CHANNEL_WEBHOOK_STATES)[number]

/** An existing subscription as the store lists it. */
export interface StoreWebhookSubscription {
  readonly topic: string
  readonly uri: string
}

/** What the channel keeps of its subscriptions (the channels.webhook_subscription column, migration 0050). */
export interface ChannelWebhookSubscription {
  state: ChannelWebhookState
  /** The topics known to reach the channel's webhookUrl. */
  topics: ChannelWebhookTopic[]
  /** Why it failed, or what was left alone (a topic also subscribed to another address); null when nothing. */
  reason: string | null
  /** When the store was last asked; null while the first run is queued. */
  checkedAt: string | null
  /** Which run is current: a queued run of an older number finds itself replaced and does nothing. */
  attempt: number
  /** Subscriptions of the channel's topics to other addresses: left alone, reported. */
  elsewhere: StoreWebhookSubscription[]
  /**
   * Automatic retries of this run queued so far (absent: none, as before retries existed): the retry job numbered
   * the same is the only one that may run next, so a retry made once is not made again.
   */
  retries?: number
  /** When the queued automatic retry is due; absent or null when none is queued. */
  nextAttemptAt?: string | null
}

/**
 * Delays of the automatic retries of a run a store failed in passing (HTTP 5xx, 429, a timeout), counted from the
 * failure before: 1 min, 5 min, 30 min, 2 h; a 429's longer Retry-After is honoured. Then it stays failed until
 * "subscribe again" or new secrets.
 */
export const CHANNEL_WEBHOOK_RETRY_SCHEDULE_SECONDS: readonly number[] = [60, 300, 1800, 7200]

/** What one run has to do, from the store's subscriptions of the channel's topics. */
export interface SubscriptionPlan {
  /** Topics already subscribed to the channel's URI: nothing to create. */
  present: ChannelWebhookTopic[]
  /** Topics to create for the channel's URI. */
  missing: ChannelWebhookTopic[]
  /** The same topics subscribed to another URI (another channel, an old address): left alone. */
  elsewhere: StoreWebhookSubscription[]
}

/** Splits the channel's topics into those the store already sends to `uri` and those to create. */
export function planSubscriptions(existing: readonly StoreWebhookSubscription[], uri: string): SubscriptionPlan {
  const plan: SubscriptionPlan = { present: [], missing: [], elsewhere: [] }
  for (const topic of CHANNEL_WEBHOOK_TOPICS) {
    const ofTopic = existing.filter((subscription) => subscription.topic === topic)
    if (ofTopic.some((subscription) => subscription.uri === uri)) plan.present.push(topic)
    else plan.missing.push(topic)
    plan.elsewhere.push(...ofTopic.filter((subscription) => subscription.uri !== uri))
  }
  return plan
}

/** The sentence a channel shows for subscriptions it left alone; null when there are none. */
export function elsewhereReason(elsewhere: readonly StoreWebhookSubscription[]): string | null {
  if (elsewhere.length === 0) return null
  const each = elsewhere.map((subscription) => `${subscription.topic} to ${subscription.uri}`).join('; ')
  return `left alone: the app also sends ${each}`
}
