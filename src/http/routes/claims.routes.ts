// Claims about shipped work (docs/claims.md), printroute's own, additive to the Prodigi API:
//   GET  /v4.0/claims/categories         the categories and their rules;
//   POST /v4.0/claims/evidence           a photo (raw image/jpeg or image/png body), kept a day unless a claim uses it;
//   GET  /v4.0/claims/evidence/{id}/image      the photo as kept;
//   POST /v4.0/orders/{id}/claims        a claim on the order's shipped items, or its missing parcel;
//   GET  /v4.0/claims, /v4.0/claims/{id} the account's claims;
//   POST /v4.0/claims/{id}/retract  a Pending claim withdrawn (the path the claims API names).
// Reads need orders:read, changes orders:write; everything is scoped to the caller's account and environment.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { ClaimRequest } from '../../domain/claim-rules.ts'
import { MAX_EVIDENCE_BYTES } from '../../domain/claims.ts'
import { addFailure, type Failures, hasFailures } from '../../domain/failures.ts'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import type { ClaimsService } from '../../services/claims.service.ts'
import { nextCursorPageUrl } from '../paging.ts'
import { outcomeReply, sendOutcomeJson } from '../replies.ts'
import {
  ClaimCategoriesResponseSchema,
  ClaimIdParamsSchema,
  ClaimResponseSchema,
  CreateClaimRequestSchema,
  CreateClaimResponseSchema,
  EvidenceIdParamsSchema,
  EvidenceImageResponse,
  ListClaimsQuerySchema,
  ListClaimsResponseSchema,
  RetractClaimResponseSchema,
  UploadEvidenceResponseSchema,
} from '../schemas/claims.schema.ts'
import { ErrorResponseSchema, ErrorResponses } from '../schemas/common.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'

export const EVIDENCE_CONTENT_TYPES = ['image/jpeg', 'image/png'] as const

function wrongContentType(contentType: string | undefined): ServiceError {
  return new ServiceError(
    'InvalidContentType',
    `A photo must be sent as image/jpeg or image/png (got ${contentType ?? 'no Content-Type'})`,
    { field: 'Content-Type', validValues: EVIDENCE_CONTENT_TYPES },
  )
}

export function registerClaimRoutes(app: FastifyInstance, claims: ClaimsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/claims/categories',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listClaimCategories',
        tags: ['claims'],
        summary: 'The claim categories and their rules',
        response: { 200: ClaimCategoriesResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { categories: [...claims.categories()] }),
  )

  // The raw photo has parsers of its own, in a scope of its own: every other route takes JSON only.
  app.register(async (scoped) => registerEvidenceUpload(scoped, claims))

  api.get(
    '/claims/evidence/:evidenceId/image',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getClaimEvidence',
        tags: ['claims'],
        summary: 'An evidence photo',
        description: "The photo as kept (without its metadata). Another account's, or one deleted, is 404.",
        params: EvidenceIdParamsSchema,
        response: { 200: EvidenceImageResponse, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const image = await claims.evidenceImage(request.caller, request.params.evidenceId)
      return reply.type(image.contentType).header('cache-control', 'private, max-age=300').send(image.data)
    },
  )

  api.post(
    '/orders/:orderId/claims',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'createClaim',
        tags: ['claims'],
        summary: 'Make a claim about shipped items, or a missing parcel',
        description:
          'Items of shipments that shipped, within the claim window after delivery, each without an open claim, ' +
          'made by one lab, with the photos their category requires (upload them first: POST /claims/evidence); ' +
          'or `category: "PackageMissing"` with the `shipmentId` of a parcel past its estimated delivery and not ' +
          'delivered. Each refusal is 400 naming the field; nothing is written. Answers the claim, Pending; the ' +
          'claimChanged event (Created) goes to webhook endpoints and the events feed.',
        params: OrderIdParamsSchema,
        body: CreateClaimRequestSchema,
        response: { 201: CreateClaimResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const claim = await claims.createClaim(request.caller, request.params.orderId, request.body as ClaimRequest)
      reply.code(201)
      return outcomeReply(request, 'Created', { claim })
    },
  )

  registerClaimReads(app, claims)

  api.post(
    '/claims/:claimId/retract',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'retractClaim',
        tags: ['claims'],
        summary: 'Withdraw a Pending claim',
        description:
          'The claim becomes Retracted and its items may be claimed for again. A claim no longer Pending (resolved, ' +
          'rejected, retracted) is 400 on `status`.',
        params: ClaimIdParamsSchema,
        response: { 200: RetractClaimResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Updated', { claim: await claims.retractClaim(request.caller, request.params.claimId) }),
  )
}

function registerEvidenceUpload(app: FastifyInstance, claims: ClaimsService): void {
  app.addContentTypeParser(
    [...EVIDENCE_CONTENT_TYPES],
    { parseAs: 'buffer', bodyLimit: MAX_EVIDENCE_BYTES },
    (_request, body, done) => done(null, body),
  )
  // Any other type is refused naming the two it takes (the server-wide answer would say JSON).
  app.addContentTypeParser('*', (request, _payload, done) => done(wrongContentType(request.headers['content-type'])))
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/claims/evidence',
    {
      config: { scope: 'orders:write' },
      bodyLimit: MAX_EVIDENCE_BYTES,
      schema: {
        operationId: 'uploadClaimEvidence',
        tags: ['claims'],
        summary: 'Upload a photo for a claim',
        description:
          `The photo itself as the body (image/jpeg or image/png, at most ${MAX_EVIDENCE_BYTES} bytes and 50 ` +
          'megapixels). It is decoded, turned upright and re-encoded without its metadata (GPS, camera). Name its ' +
          'evd_ id in a claim within a day; unused, it is deleted then. Not an image: 400 on `body`.',
        response: {
          201: UploadEvidenceResponseSchema,
          413: ErrorResponseSchema,
          415: ErrorResponseSchema,
          ...ErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const body = request.body
      if (!Buffer.isBuffer(body)) {
        if (body === undefined) throw validationFailed({ body: [{ code: 'Required', providedValue: null }] })
        throw wrongContentType(request.headers['content-type'])
      }
      const evidence = await claims.uploadEvidence(request.caller, body)
      reply.code(201)
      return outcomeReply(request, 'Created', { evidence })
    },
  )
}

/** A date-time filter (the schema checked its form). */
function dateFilter(value: string | undefined): Date | null {
  return value === undefined ? null : new Date(value)
}

function registerClaimReads(app: FastifyInstance, claims: ClaimsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/claims',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listClaims',
        tags: ['claims'],
        summary: "The account's claims, newest first",
        description: 'Filters: status, orderId, createdFrom, createdTo. nextUrl continues with older claims.',
        querystring: ListClaimsQuerySchema,
        response: { 200: ListClaimsResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const query = request.query
      const failures: Failures = {}
      const createdFrom = dateFilter(query.createdFrom)
      const createdTo = dateFilter(query.createdTo)
      if (createdFrom && createdTo && createdTo < createdFrom) {
        addFailure(failures, 'createdTo', {
          code: 'MustBeGreaterThanOrEqualTo',
          providedValue: query.createdTo,
          comparisonValue: query.createdFrom,
        })
      }
      if (hasFailures(failures)) throw validationFailed(failures)
      const page = await claims.listClaims(request.caller, {
        status: query.status ?? null,
        orderId: query.orderId ?? null,
        createdFrom,
        createdTo,
        before: query.before ?? null,
        top: query.top ?? 10,
      })
      const nextUrl = page.nextBefore === null ? null : nextCursorPageUrl(request, 'before', page.nextBefore)
      return sendOutcomeJson(reply, request, 'Ok', [
        ['claims', `[${page.claimsJson.join(',')}]`],
        ['hasMore', String(page.hasMore)],
        ['nextUrl', JSON.stringify(nextUrl)],
      ])
    },
  )

  api.get(
    '/claims/:claimId',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getClaim',
        tags: ['claims'],
        summary: 'One claim',
        params: ClaimIdParamsSchema,
        response: { 200: ClaimResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const json = await claims.getClaim(request.caller, request.params.claimId)
      return sendOutcomeJson(reply, request, 'Ok', [['claim', json]])
    },
  )
}
