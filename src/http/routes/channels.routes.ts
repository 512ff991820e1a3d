// Storefront channels (docs/channels.md):
//   GET    /v4.0/channels                                   the environment's channels;
//   POST   /v4.0/channels                                   a new channel (its secrets are never shown again);
//   GET    /v4.0/channels/{id}                              one channel;
//   PATCH  /v4.0/channels/{id}                              its name, approval, shipping method or new secrets;
//   DELETE /v4.0/channels/{id}                              deletes it (its webhooks are refused from then on);
//   POST   /v4.0/channels/{id}/webhooks/subscribe          Shopify: its webhook subscriptions made again (a job);
//   GET    /v4.0/channels/{id}/links                        its links of store variants or SKUs to products;
//   POST   /v4.0/channels/{id}/links                        a link (or an ignore), for this and later orders;
//   DELETE /v4.0/channels/{id}/links/{linkId}               deletes a link;
//   GET    /v4.0/channels/{id}/pending                      store orders waiting as "not connected";
//   POST   /v4.0/channels/{id}/pending/{externalOrderId}/release  creates a waiting order once all is linked;
//   GET    /v4.0/channels/{id}/cancellations            store orders the store cancelled, with what the cancel answered;
//   GET    /v4.0/channels/{id}/fulfilments                  shipments told to the store, newest first, with attempts;
//   POST   /v4.0/channels/{id}/fulfilments/{fulfilmentId}/retry  a fulfilment not yet delivered tried again now;
// and, without a key, the stores' webhooks: POST /channels/v1/{id}/{type} (signed by the store, raw body).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CHANNEL_LIMITS } from '../../domain/channels.ts'
import type { Environment } from '../../domain/environment.ts'
import type { StorefrontKind } from '../../domain/storefronts.ts'
import type { ChannelFulfilmentsService } from '../../services/channel-fulfilments.service.ts'
import type { ChannelsService } from '../../services/channels.service.ts'
import { API_VERSION_PREFIX } from '../errors.ts'
import { nextCursorPageUrl } from '../paging.ts'
import { outcomeReply } from '../replies.ts'
import {
  ChannelFulfilmentListResponseSchema,
  ChannelIdParamsSchema,
  ChannelLinkListResponseSchema,
  ChannelListResponseSchema,
  ChannelResponseSchema,
  CreateChannelBodySchema,
  CreatedChannelLinkResponseSchema,
  CreatedChannelResponseSchema,
  CreateLinkBodySchema,
  DeletedChannelLinkResponseSchema,
  DeletedChannelResponseSchema,
  FulfilmentParamsSchema,
  LinkParamsSchema,
  ListFulfilmentsQuerySchema,
  PendingOrderListResponseSchema,
  PendingOrderParamsSchema,
  ReleasedOrderResponseSchema,
  RetriedFulfilmentResponseSchema,
  StoreCancellationListResponseSchema,
  UpdateChannelBodySchema,
  UpdatedChannelResponseSchema,
} from '../schemas/channels.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { refuseBody } from '../validation.ts'

const tags = ['channels']

/** The API's channel routes under the API version's prefix, and the stores' webhooks at the root. */
export async function registerChannelRoutes(
  app: FastifyInstance,
  channels: ChannelsService,
  fulfilments: ChannelFulfilmentsService,
  environment: Environment,
): Promise<void> {
  await app.register(
    async (api) => {
      registerChannelCrud(api, channels)
      registerLinkRoutes(api, channels)
      registerPendingRoutes(api, channels)
      registerFulfilmentRoutes(api, fulfilments)
    },
    { prefix: API_VERSION_PREFIX },
  )
  await registerChannelWebhookRoutes(app, channels, environment)
}

function registerChannelCrud(app: FastifyInstance, channels: ChannelsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const read = { scope: 'account:read' } as const
  const manage = { scope: 'account:manage' } as const
  api.get(
    '/channels',
    {
      config: read,
      schema: {
        operationId: 'listChannels',
        tags,
        summary: "The environment's storefront channels, oldest first",
        response: { 200: ChannelListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { channels: await channels.list(request.caller) }),
  )
  api.post(
    '/channels',
    {
      config: manage,
      schema: {
        operationId: 'createChannel',
        tags,
        summary: 'Connect a store (Shopify: a custom app of the shop); its secrets are stored encrypted, never shown',
        body: CreateChannelBodySchema,
        response: { 201: CreatedChannelResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const channel = await channels.create(request.caller, request.body)
      reply.code(201)
      return outcomeReply(request, 'Created', { channel })
    },
  )
  api.get(
    '/channels/:channelId',
    {
      config: read,
      schema: {
        operationId: 'getChannel',
        tags,
        summary: 'One storefront channel',
        params: ChannelIdParamsSchema,
        response: { 200: ChannelResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { channel: await channels.get(request.caller, request.params.channelId) }),
  )
  api.patch(
    '/channels/:channelId',
    {
      config: manage,
      schema: {
        operationId: 'updateChannel',
        tags,
        summary: 'Rename a channel or give it new secrets (which make a failing channel active again)',
        description:
          'After a change of the channel secrets key the stored secrets cannot be read: a PATCH must give every ' +
          "secret of the channel's type (Shopify: adminAccessToken, webhookSecret; WooCommerce: consumerKey, " +
          'consumerSecret, webhookSecret), else it is 400 ValidationFailed naming each one missing.',
        params: ChannelIdParamsSchema,
        body: UpdateChannelBodySchema,
        response: { 200: UpdatedChannelResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const channel = await channels.update(request.caller, request.params.channelId, request.body)
      return outcomeReply(request, 'Updated', { channel })
    },
  )
  api.post(
    '/channels/:channelId/webhooks/subscribe',
    {
      config: manage,
      schema: {
        operationId: 'subscribeChannelWebhooks',
        tags,
        summary: "Shopify: subscribe the app's webhooks again (only the missing ones are made); the channel, pending",
        description:
          'The subscriptions are made by a job: GET the channel for its webhooks.state (subscribed or failed). A ' +
          'WooCommerce channel is 400 naming channelId: its webhook is set up in the store.',
        params: ChannelIdParamsSchema,
        response: { 200: ChannelResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      refuseBody(request.body, 'The subscribe takes no body')
      const channel = await channels.subscribeWebhooksAgain(request.caller, request.params.channelId)
      return outcomeReply(request, 'Ok', { channel })
    },
  )
  api.delete(
    '/channels/:channelId',
    {
      config: manage,
      schema: {
        operationId: 'deleteChannel',
        tags,
        summary: 'Delete a channel: its webhooks are refused from now on; orders it created stay',
        params: ChannelIdParamsSchema,
        response: { 200: DeletedChannelResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const channel = await channels.delete(request.caller, request.params.channelId)
      return outcomeReply(request, 'Deleted', { channel })
    },
  )
}

function registerLinkRoutes(app: FastifyInstance, channels: ChannelsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/channels/:channelId/links',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listChannelLinks',
        tags,
        summary: "The channel's links of store variants and SKUs to products",
        params: ChannelIdParamsSchema,
        response: { 200: ChannelLinkListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { links: await channels.listLinks(request.caller, request.params.channelId) }),
  )
  api.post(
    '/channels/:channelId/links',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'createChannelLink',
        tags,
        summary: 'Link a store variant or SKU to a product with its files, or mark it ignored, for every later order',
        params: ChannelIdParamsSchema,
        body: CreateLinkBodySchema,
        response: { 201: CreatedChannelLinkResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const link = await channels.createLink(request.caller, request.params.channelId, request.body)
      reply.code(201)
      return outcomeReply(request, 'Created', { link })
    },
  )
  api.delete(
    '/channels/:channelId/links/:linkId',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'deleteChannelLink',
        tags,
        summary: 'Delete a link: later orders with that variant wait as not connected',
        params: LinkParamsSchema,
        response: { 200: DeletedChannelLinkResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      await channels.deleteLink(request.caller, request.params.channelId, request.params.linkId)
      return outcomeReply(request, 'Deleted', {})
    },
  )
}

function registerPendingRoutes(app: FastifyInstance, channels: ChannelsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/channels/:channelId/pending',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listChannelPendingOrders',
        tags,
        summary: `Store orders waiting as not connected, with their unlinked items (the oldest ${CHANNEL_LIMITS.pendingPage})`,
        params: ChannelIdParamsSchema,
        response: { 200: PendingOrderListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', { orders: await channels.listPending(request.caller, request.params.channelId) }),
  )
  api.get(
    '/channels/:channelId/cancellations',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listChannelStoreCancellations',
        tags,
        summary: `Store orders the store cancelled, each with what cancelling its printroute order answered (the latest ${CHANNEL_LIMITS.cancellationsPage})`,
        params: ChannelIdParamsSchema,
        response: { 200: StoreCancellationListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        cancellations: await channels.listCancellations(request.caller, request.params.channelId),
      }),
  )
  api.post(
    '/channels/:channelId/pending/:externalOrderId/release',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'releaseChannelPendingOrder',
        tags,
        summary: 'Create a waiting store order now that every item is linked or ignored',
        params: PendingOrderParamsSchema,
        response: { 201: ReleasedOrderResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      refuseBody(request.body, 'The release takes no body')
      const released = await channels.release(request.caller, request.params.channelId, request.params.externalOrderId)
      reply.code(201)
      return outcomeReply(request, 'Created', released)
    },
  )
}

function registerFulfilmentRoutes(app: FastifyInstance, fulfilments: ChannelFulfilmentsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/channels/:channelId/fulfilments',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listChannelFulfilments',
        tags,
        summary: 'Shipments told to the store (the fulfilment outbox), newest first, each with its attempts',
        description: 'nextUrl continues with older fulfilments (the `before` cursor).',
        params: ChannelIdParamsSchema,
        querystring: ListFulfilmentsQuerySchema,
        response: { 200: ChannelFulfilmentListResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const page = await fulfilments.list(request.caller, request.params.channelId, {
        before: request.query.before ?? null,
        top: request.query.top ?? 20,
      })
      const nextUrl = page.nextBefore === null ? null : nextCursorPageUrl(request, 'before', page.nextBefore)
      return outcomeReply(request, 'Ok', { fulfilments: page.fulfilments, hasMore: page.hasMore, nextUrl })
    },
  )
  api.post(
    '/channels/:channelId/fulfilments/:fulfilmentId/retry',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'retryChannelFulfilment',
        tags,
        summary: 'Try a fulfilment not yet delivered again now (one already delivered is 400 naming fulfilmentId)',
        params: FulfilmentParamsSchema,
        response: { 200: RetriedFulfilmentResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      refuseBody(request.body, 'The retry takes no body')
      const fulfilment = await fulfilments.retryNow(
        request.caller,
        request.params.channelId,
        request.params.fulfilmentId,
      )
      return outcomeReply(request, 'Ok', { fulfilment })
    },
  )
}

/**
 * The stores' webhooks, on each environment's port without a key: the raw body (any content type, at most
 * CHANNEL_LIMITS.webhookBodyBytes) is what the store signed. 200 once kept (or dropped as a redelivery), 401 for a
 * wrong signature, 404 for no such channel, 503 while the channel's webhook secret was sealed under another channel
 * secrets key (the store sends it again later).
 */
async function registerChannelWebhookRoutes(
  app: FastifyInstance,
  channels: ChannelsService,
  environment: Environment,
): Promise<void> {
  await app.register(async (hooks) => {
    hooks.removeAllContentTypeParsers()
    hooks.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: CHANNEL_LIMITS.webhookBodyBytes },
      (_r, body, done) => done(null, body),
    )
    for (const kind of ['shopify', 'woocommerce'] as const satisfies readonly StorefrontKind[]) {
      hooks.post(
        `/channels/v1/:channelId/${kind}`,
        { config: { auth: false }, bodyLimit: CHANNEL_LIMITS.webhookBodyBytes, schema: { hide: true } },
        async (request) => {
          const { channelId } = request.params as { channelId: string }
          const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
          const headers = request.headers as Record<string, string | undefined>
          const receipt = await channels.receiveWebhook(kind, environment, channelId, body, headers)
          return outcomeReply(request, 'Ok', { received: receipt })
        },
      )
    }
  })
}
