// The lab API's own OpenAPI 3.1 document (GET /labs/v1/openapi.json, no key), for a lab's developers: the /labs/v1
// operations of the Live document as served, the schemas they refer to and nothing else, and the events pushed to
// a lab's push URL as `webhooks` (docs/labs.md). Cut from the served document rather than built again, so the two
// cannot disagree about an operation.
import type { FastifyInstance } from 'fastify'
import { signedWebhookHeaders } from './openapi.ts'

type Json = Record<string, unknown>
const COMPONENT_PREFIX = '#/components/schemas/'
export const LAB_OPENAPI_PATH = '/labs/v1/openapi.json'

/** The events a lab's push URL receives: the part of the type after `com.<vendor>.`, and what `data` holds. */
export const LAB_PUSH_EVENTS = [
  {
    kind: 'lab.job.created',
    operationId: 'onLabJobCreated',
    summary: 'A shipment was submitted to the lab: a new job',
    extra: {},
  },
  {
    kind: 'lab.job.changed',
    operationId: 'onLabJobChanged',
    summary: 'A job the lab has changed: items removed from it, or planned again',
    extra: {
      change: {
        type: 'string',
        description: 'What changed: itemsRemoved (items left the shipment), replanned (its dates moved), and others.',
      },
    },
  },
  {
    kind: 'lab.job.cancellationRequested',
    operationId: 'onLabJobCancellationRequested',
    summary: 'The merchant cancelled: answer with POST /jobs/{shipmentId}/cancellation',
    extra: {},
  },
  {
    kind: 'lab.job.movedAway',
    operationId: 'onLabJobMovedAway',
    summary: 'The operator moved the job to another lab: it is cancelled here (its state is cancelled); do not make it',
    extra: {},
  },
  {
    kind: 'lab.job.reminder',
    operationId: 'onLabJobReminder',
    summary: 'A job that needs the lab: not acknowledged, due to ship today, or overdue',
    extra: {
      reason: { type: 'string', enum: ['notAcknowledged', 'shipByToday', 'overdue'], description: 'Why it is sent.' },
    },
  },
  {
    kind: 'lab.claim.created',
    operationId: 'onLabClaimCreated',
    summary:
      "A merchant made a claim against the lab's work: read it, answer with POST /claims/{claimId}/actions/answer",
    extra: {},
  },
] as const

/** What a pushed event's `data` carries: a claim for the claim events, the job for every other. */
function carriedOf(kind: string): { name: 'job' | 'claim'; schema: string; description: string } {
  return kind.startsWith('lab.claim.')
    ? {
        name: 'claim',
        schema: 'LabClaim',
        description:
          'The claim exactly as GET /labs/v1/claims/{claimId} shows it, as it stood when the event was sent.',
      }
    : {
        name: 'job',
        schema: 'LabJob',
        description: 'The job exactly as GET /labs/v1/jobs lists it, as it stood when the event was sent.',
      }
}

/** The `webhooks` of the lab document: one POST per pushed event type, signed as merchant callbacks are. */
function labWebhooks(vendor: string): Json {
  const parameters = signedWebhookHeaders({
    id: ': deduplicate on it',
    secret: "the lab's push secret (whsec_...)",
  })
  return Object.fromEntries(
    LAB_PUSH_EVENTS.map(({ kind, operationId, summary, extra }) => {
      const type = `com.${vendor}.${kind}`
      const carried = carriedOf(kind)
      const payload = {
        type: 'object',
        required: ['specversion', 'type', 'source', 'id', 'time', 'datacontenttype', 'data'],
        properties: {
          specversion: { type: 'string', enum: ['1.0'] },
          type: { type: 'string', enum: [type] },
          source: { type: 'string', description: 'Where the lab API serves what the event is about.' },
          id: { type: 'string', description: 'Event ID, the same on every attempt.' },
          time: { type: 'string', format: 'date-time', description: 'When it happened.' },
          datacontenttype: { type: 'string', enum: ['application/json'] },
          data: {
            type: 'object',
            required: [carried.name, ...Object.keys(extra)],
            properties: {
              [carried.name]: { $ref: `${COMPONENT_PREFIX}${carried.schema}`, description: carried.description },
              ...extra,
            },
          },
        },
      }
      return [
        type,
        {
          post: {
            operationId,
            tags: ['labs'],
            summary,
            description: `A CloudEvent of type \`${type}\`, POSTed to the lab's push URL.`,
            security: [],
            parameters,
            requestBody: { required: true, content: { 'application/json': { schema: payload } } },
            responses: {
              200: { description: 'Any 2xx answer within 15 seconds counts as delivered.' },
              400: { description: 'Any other answer (or none) is recorded and the push retried later.' },
            },
          },
        },
      ]
    }),
  )
}

/** The names of the component schemas `node` refers to, and those they refer to in turn. */
function referencedSchemas(node: unknown, schemas: Record<string, unknown>, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const entry of node) referencedSchemas(entry, schemas, found)
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_PREFIX)) {
        const name = value.slice(COMPONENT_PREFIX.length)
        if (!found.has(name)) {
          found.add(name)
          referencedSchemas(schemas[name], schemas, found)
        }
      } else referencedSchemas(value, schemas, found)
    }
  }
  return found
}

/** The lab document cut from the served (Live) document, with `servers` the public URL. */
export function labOpenApiDocument(served: Json, vendor: string, publicUrl: string): Json {
  const paths = Object.fromEntries(
    Object.entries((served.paths ?? {}) as Json).filter(([path]) => path.startsWith('/labs/v1/')),
  )
  const webhooks = labWebhooks(vendor)
  const components = (served.components ?? {}) as {
    schemas?: Record<string, unknown>
    responses?: Record<string, unknown>
    securitySchemes?: Record<string, unknown>
  }
  const schemas = components.schemas ?? {}
  const responses = components.responses ?? {}
  const usedResponses = Object.fromEntries(
    Object.entries(responses).filter(([name]) => JSON.stringify(paths).includes(`"#/components/responses/${name}"`)),
  )
  const used = referencedSchemas([paths, webhooks, usedResponses], schemas)
  const info = served.info as Json
  return {
    openapi: served.openapi,
    info: {
      ...info,
      title: 'printroute lab API',
      summary: 'For print labs: the jobs (shipments) given to a lab, its reports, capacity and pushed events.',
      description:
        'The lab API of a printroute server (its Live address). Authenticate with the `X-API-Key` header: a lab ' +
        'key (pr_lab_...). Jobs are listed by GET /labs/v1/jobs or pushed to the lab (webhooks below), signed ' +
        'with Standard Webhooks. Errors have one body, `ErrorBody`. The protocol end to end: docs/labs.md.',
    },
    servers: [{ url: publicUrl, description: 'Live environment' }],
    tags: [{ name: 'labs', description: 'The jobs given to a lab, its reports and capacity, and pushed events.' }],
    security: [{ labKey: [] }],
    paths,
    webhooks,
    components: {
      securitySchemes: { labKey: components.securitySchemes?.labKey },
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))),
      responses: usedResponses,
    },
  }
}

/** GET /labs/v1/openapi.json, open without a key (on the server itself, outside the lab API's key check). */
export function registerLabOpenApiRoute(
  app: FastifyInstance,
  options: { eventVendor: string; publicUrl: () => string },
): void {
  app.get(LAB_OPENAPI_PATH, { schema: { hide: true }, config: { auth: false } }, async () =>
    labOpenApiDocument(app.swagger() as unknown as Json, options.eventVendor, options.publicUrl()),
  )
}
