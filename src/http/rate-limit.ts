// Rate limits (docs/api.md#rate-limits): every /v4.0 request authenticated by an API key, or by a dashboard session
// (which counts as the key it was made from), counts against that key's budget; requests refused for want of
// a valid key count against their client address's. @fastify/rate-limit keeps the counts: in this process's
// memory, or in the database's shared counters when several processes serve one PostgreSQL. The lab API's
// requests without a valid lab key and the dashboard's sign-ins with a key that is not valid count against the
// same address budget. The open routes (the OpenAPI document, health, metrics, samples, signed file links,
// payment pages) and the dashboard's own pages are not limited; the API calls a dashboard page makes count once
// per page.
import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RateLimitCounters } from '../adapters/rate-limit-counters.ts'
import { databaseUnavailableReason } from '../domain/database-unavailable.ts'
import { formatDurationSeconds } from '../domain/duration.ts'
import type { Environment } from '../domain/environment.ts'
import { ServiceError } from '../domain/outcomes.ts'
import type { RateLimit } from '../domain/rate-limit.ts'
import { sendError } from './errors.ts'

export interface RateLimitOptions {
  limit: RateLimit
  /** Counters shared by several processes; absent, each process counts in its own memory. */
  sharedCounters?: RateLimitCounters
}

/** The response headers of a limited request (the IETF RateLimit header fields draft, as the plugin names them). */
export const RATE_LIMIT_HEADERS = {
  limit: 'ratelimit-limit',
  remaining: 'ratelimit-remaining',
  reset: 'ratelimit-reset',
  retryAfter: 'retry-after',
} as const

/** Keys the in-memory counters hold before the least recently used is forgotten (a few hundred bytes each). */
export const IN_MEMORY_KEY_CAPACITY = 10_000

export interface RateLimits {
  /**
   * Answers a request whose authentication failed: with `refusal` (401), counted against the client's address,
   * or with 429 TooManyRequests once the address has used its budget.
   */
  refuseUnauthenticated(request: FastifyRequest, reply: FastifyReply, refusal: ServiceError): Promise<FastifyReply>
  /**
   * Counts a request without a valid key against the client's address and sets the rate limit headers; the
   * 429 TooManyRequests error once the address has used its budget, for callers that answer in their own way
   * (the dashboard's sign-in page).
   */
  countUnauthenticated(request: FastifyRequest, reply: FastifyReply): Promise<ServiceError | undefined>
}

/**
 * The dashboard page view whose in-process API call is being answered; undefined for every other request. Its
 * identity is the view: the limiter counts a view once and gives all of its calls that count's answer. The
 * dashboard keeps the views; the composition root hands this over, so that the HTTP layer does not import it.
 */
export type PageViewOfThisCall = () => object | undefined

type LimiterAnswer = Exclude<Awaited<ReturnType<ReturnType<FastifyInstance['createRateLimit']>>>, { isAllowed: true }>

/** The plugin's store interface (constructed by the plugin with its options), over shared counters. */
function storeOver(counters: RateLimitCounters) {
  type Done = (error: Error | null, result?: { current: number; ttl: number }) => void
  const answer = (done: Done) => (count: { requests: number; millisecondsLeft: number }) =>
    done(null, { current: count.requests, ttl: count.millisecondsLeft })
  return class SharedCountersStore {
    incr(key: string, done: Done, timeWindow: number): void {
      counters.increment(key, timeWindow).then(answer(done), done)
    }
    read(key: string, done: Done): void {
      counters.read(key).then(answer(done), done)
    }
    child(): SharedCountersStore {
      return this
    }
  }
}

/** Limiting off: failed authentications are answered as they are. */
const UNLIMITED: RateLimits = {
  refuseUnauthenticated: async (request, reply, refusal) => sendError(request, reply, refusal),
  countUnauthenticated: async () => undefined,
}

export async function installRateLimits(
  app: FastifyInstance,
  environment: Environment,
  options: RateLimitOptions | null | undefined,
  pageViewOfThisCall: PageViewOfThisCall = () => undefined,
): Promise<RateLimits> {
  if (!options) return UNLIMITED
  const { limit } = options
  const period = formatDurationSeconds(limit.windowMilliseconds / 1000)
  await app.register(rateLimit, {
    // Not on every route: the hooks below decide what counts and answer with the contract's error body.
    global: false,
    max: limit.max,
    timeWindow: limit.windowMilliseconds,
    cache: IN_MEMORY_KEY_CAPACITY,
    ...(options.sharedCounters ? { store: storeOver(options.sharedCounters) } : {}),
    // The key's visible prefix, never the key itself (counters are kept in memory and in the database). Keys
    // belong to one environment; the environment is in every counter's name all the same.
    keyGenerator: (request) =>
      request.caller
        ? `${environment}:key:${request.caller.keyPrefix}`
        : `${environment}:address:${normalizeIP(request.ip)}`,
  })
  const limiter = app.createRateLimit()

  async function count(request: FastifyRequest): Promise<LimiterAnswer | undefined> {
    try {
      const answer = await limiter(request)
      return answer.isAllowed ? undefined : answer
    } catch (error) {
      // The shared counters are unreachable (the database): the request goes on unlimited rather than failing.
      // While the whole database is away the process's outage log has said so once; not again per request.
      if (databaseUnavailableReason(error) === null) {
        request.log.warn({ err: error }, 'rate limit counters unavailable; request not limited')
      }
      return undefined
    }
  }

  function headersAndRefusal(reply: FastifyReply, answer: LimiterAnswer, whose: string): ServiceError | undefined {
    reply.header(RATE_LIMIT_HEADERS.limit, answer.max)
    reply.header(RATE_LIMIT_HEADERS.remaining, answer.isExceeded ? 0 : answer.remaining)
    reply.header(RATE_LIMIT_HEADERS.reset, answer.ttlInSeconds)
    if (!answer.isExceeded) return undefined
    reply.header(RATE_LIMIT_HEADERS.retryAfter, answer.ttlInSeconds)
    return new ServiceError(
      'TooManyRequests',
      `${whose} has made more than ${limit.max} requests in ${period}; retry in ${answer.ttlInSeconds} seconds`,
      { limit: limit.max, windowSeconds: limit.windowMilliseconds / 1000, retryAfterSeconds: answer.ttlInSeconds },
    )
  }

  // One count per dashboard page view, whose answer all of the view's calls share. The calls run at once: had
  // the others only read the count, a read could overtake the counting write on another connection and let a
  // part of a view through that its counted call was refused.
  const pageViewCounts = new WeakMap<object, Promise<LimiterAnswer | undefined>>()

  // preParsing: after every onRequest hook (the API key check sets request.caller), before the body is read.
  app.addHook('preParsing', async (request, reply) => {
    if (!request.caller) return
    const pageView = pageViewOfThisCall()
    let counting = pageView && pageViewCounts.get(pageView)
    if (!counting) {
      counting = count(request)
      if (pageView) pageViewCounts.set(pageView, counting)
    }
    const answer = await counting
    const refusal = answer && headersAndRefusal(reply, answer, 'This API key')
    if (refusal) throw refusal
  })

  const countUnauthenticated = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await count(request)
    return (answer && headersAndRefusal(reply, answer, 'This address, without a valid API key,')) ?? undefined
  }
  return {
    async refuseUnauthenticated(request, reply, refusal) {
      return sendError(request, reply, (await countUnauthenticated(request, reply)) ?? refusal)
    },
    countUnauthenticated,
  }
}
