// GET /samples/ and /samples/<name>: printroute's bundled sample images, open without a key, so a first order
// (and any test order) has an image URL that works offline. The list gives each image's URL on this server's
// public address.
import type { FastifyInstance } from 'fastify'
import { SAMPLE_PATH_PREFIX, type SampleImages } from '../../adapters/sample-images.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { sendError } from '../errors.ts'
import { publicUrlOf } from '../public-url.ts'
import { outcomeReply } from '../replies.ts'

export function registerSampleRoutes(app: FastifyInstance, samples: SampleImages): void {
  app.get(SAMPLE_PATH_PREFIX, { schema: { hide: true }, config: { auth: false } }, async (request) =>
    outcomeReply(request, 'Ok', {
      samples: samples.list().map((sample) => ({
        name: sample.name,
        url: publicUrlOf(request, `${SAMPLE_PATH_PREFIX}${sample.name}`),
        contentType: sample.contentType,
        bytes: sample.bytes.length,
        md5Hash: sample.md5,
      })),
    }),
  )
  app.get<{ Params: { name: string } }>(
    `${SAMPLE_PATH_PREFIX}:name`,
    { schema: { hide: true }, config: { auth: false } },
    async (request, reply) => {
      const sample = samples.get(request.params.name)
      if (!sample) {
        return sendError(
          request,
          reply,
          new ServiceError('EntityNotFound', `There is no sample ${request.params.name}`),
        )
      }
      return reply.type(sample.contentType).header('cache-control', 'public, max-age=86400').send(sample.bytes)
    },
  )
}
