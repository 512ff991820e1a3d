// GET /countries, GET /countries/{countryCode}, POST /addresses/validate (docs/addresses.md): the bundled address
// rules, and an address checked against them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AddressesService } from '../../services/addresses.service.ts'
import { outcomeReply } from '../replies.ts'
import {
  CountryCodeParamsSchema,
  CountryListResponseSchema,
  CountryResponseSchema,
  ValidateAddressRequestSchema,
  ValidateAddressResponseSchema,
} from '../schemas/addresses.schema.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'

export function registerAddressRoutes(app: FastifyInstance, addresses: AddressesService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    '/countries',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'listCountries',
        tags: ['addresses'],
        summary: 'List countries and their address rules',
        description:
          'Every ISO 3166-1 country: whether the catalogue ships there and by which methods, its postcode format, ' +
          'whether a state is required, field lengths and the methods whose carriers need a phone number. ' +
          'Subdivisions are listed by GET /countries/{countryCode}.',
        response: { 200: CountryListResponseSchema, 401: ErrorResponseSchema },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { countries: addresses.listCountries() }),
  )

  api.get(
    '/countries/:countryCode',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'getCountry',
        tags: ['addresses'],
        summary: 'Get a country and its address rules',
        description: 'The rules of one country with its ISO 3166-2 subdivisions. A code that is no country: 404.',
        params: CountryCodeParamsSchema,
        response: {
          200: CountryResponseSchema,
          400: ErrorResponseSchema,
          401: ErrorResponseSchema,
          404: ErrorResponseSchema,
        },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { country: addresses.getCountry(request.params.countryCode) }),
  )

  api.post(
    '/addresses/validate',
    {
      config: { scope: 'quotes' },
      schema: {
        operationId: 'validateAddress',
        tags: ['addresses'],
        summary: 'Check an address',
        description:
          "An address (and the recipient's phone number) checked against its country's rules: the problems found " +
          'and the address in normal form (postcode spaced and upper-cased, state names as codes, whitespace ' +
          'trimmed). Each problem says whether it stops delivery (severity blocking) or is advisory, and deliverable ' +
          'is true when none stops it. Outcome Ok whether or not the address is valid; a code that is no country: 400.',
        body: ValidateAddressRequestSchema,
        response: { 200: ValidateAddressResponseSchema, 400: ErrorResponseSchema, 401: ErrorResponseSchema },
      },
    },
    async (request) => {
      const result = addresses.validateAddress(request.body)
      return outcomeReply(request, 'Ok', result)
    },
  )
}
