// The lab API's claims (docs/labs.md#claims): a lab lists the claims against its jobs, reads one, fetches their
// photos, uploads its own and answers once (accept or dispute). Registered inside the lab API's scope
// (labs.routes.ts), behind its lab key check: `request.labCode` is the calling lab.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { MAX_EVIDENCE_BYTES } from '../../domain/claims.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import type { LabClaimsService } from '../../services/labs/lab-claims.service.ts'
import { nextCursorPageUrl } from '../paging.ts'
import { publicUrlOf } from '../public-url.ts'
import { outcomeReply } from '../replies.ts'
import { EvidenceImageResponse } from '../schemas/claims.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import {
  LabClaimAnswerBody,
  LabClaimAnsweredResponseSchema,
  LabClaimParams,
  LabClaimResponseSchema,
  LabClaimsQuery,
  LabClaimsResponseSchema,
  LabEvidenceParams,
  LabEvidenceResponseSchema,
} from '../schemas/lab-claims.schema.ts'

/** The photo types a lab uploads, read as raw bytes (the lab API's other bodies are JSON). */
const PHOTO_TYPES = ['image/jpeg', 'image/png']

export function registerLabClaimRoutes(app: FastifyInstance, claims: LabClaimsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const send = <T extends object>(reply: FastifyReply, body: T) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(body) as never)
  const route = (operationId: string, summary: string) => ({ operationId, summary, tags: ['labs'] })
  // Photo links on this server's public address, as the lab called it.
  const photoUrlFor = (request: Parameters<typeof publicUrlOf>[0]) => (evidenceId: string) =>
    publicUrlOf(request, `/labs/v1/claims/evidence/${evidenceId}`)

  app.addContentTypeParser(PHOTO_TYPES, { parseAs: 'buffer', bodyLimit: MAX_EVIDENCE_BYTES }, (_request, body, done) =>
    done(null, body),
  )

  api.get(
    '/claims',
    {
      schema: {
        ...route('listLabClaims', "The claims against this lab's jobs, newest first, a page at a time"),
        querystring: LabClaimsQuery,
        response: { 200: LabClaimsResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) => {
      const { status, before, top } = request.query
      const page = await claims.list(
        request.labCode,
        { ...(status ? { status } : {}), ...(before ? { before } : {}), ...(top ? { top } : {}) },
        photoUrlFor(request),
      )
      return send(
        reply,
        outcomeReply(request, 'Ok', {
          claims: page.claims,
          hasMore: page.hasMore,
          nextUrl: page.nextBefore === null ? null : nextCursorPageUrl(request, 'before', page.nextBefore),
        }),
      )
    },
  )
  api.post(
    '/claims/evidence',
    {
      schema: {
        ...route(
          'uploadLabClaimEvidence',
          "A photo for the lab's answer to a claim: the raw JPEG or PNG as the body, at most 10 MB",
        ),
        response: { 200: LabEvidenceResponseSchema, ...ErrorResponses },
      },
      bodyLimit: MAX_EVIDENCE_BYTES,
      config: { auth: false },
    },
    async (request, reply) => {
      const body = request.body
      if (!Buffer.isBuffer(body) || body.length === 0) {
        throw new ServiceError(
          'InvalidContentType',
          'Send the photo as the raw body, with Content-Type image/jpeg or image/png',
        )
      }
      const evidence = await claims.uploadEvidence(request.labCode, body)
      return send(
        reply,
        outcomeReply(request, 'Created', { evidence: { ...evidence, url: photoUrlFor(request)(evidence.id) } }),
      )
    },
  )
  api.get(
    '/claims/evidence/:evidenceId',
    {
      schema: {
        ...route('getLabClaimEvidence', "A photo of a claim against this lab, or one of the lab's own (JPEG or PNG)"),
        params: LabEvidenceParams,
        response: { 200: EvidenceImageResponse, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) => {
      const photo = await claims.evidence(request.labCode, request.params.evidenceId)
      return reply
        .type(photo.contentType)
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .send(photo.data as never)
    },
  )
  api.get(
    '/claims/:claimId',
    {
      schema: {
        ...route('getLabClaim', "One claim against this lab's jobs"),
        params: LabClaimParams,
        response: { 200: LabClaimResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) =>
      send(
        reply,
        outcomeReply(request, 'Ok', {
          claim: await claims.get(request.labCode, request.params.claimId, photoUrlFor(request)),
        }),
      ),
  )
  api.post(
    '/claims/:claimId/actions/answer',
    {
      schema: {
        ...route(
          'answerLabClaim',
          "The lab's one answer to a Pending claim: accept or dispute, with a comment and up to 3 of its photos",
        ),
        params: LabClaimParams,
        body: LabClaimAnswerBody,
        response: { 200: LabClaimAnsweredResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) => {
      const { answer, comment, evidence } = request.body
      const claim = await claims.answer(
        request.labCode,
        request.params.claimId,
        { answer, ...(comment !== undefined ? { comment } : {}), ...(evidence ? { evidence } : {}) },
        photoUrlFor(request),
      )
      return send(reply, outcomeReply(request, 'Updated', { claim }))
    },
  )
}
