// Countries and addresses on the wire (docs/addresses.md): GET /countries, GET /countries/{countryCode} and POST
// /addresses/validate. printroute's own endpoints; the address is the order's AddressInput.
import { Type } from 'typebox'
import { ADDRESS_FIELDS, ADDRESS_PROBLEM_CODES, ADDRESS_PROBLEM_SEVERITIES } from '../../domain/address-rules.ts'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  NullableString,
  named,
  OkOutcome,
  outcomeResponse,
  StringEnum,
} from './common.schema.ts'
import { AddressRequestSchema, addressResponseSchema, ShippingMethodSchema } from './order.schema.ts'

const AddressFieldSchema = named('AddressField', StringEnum(ADDRESS_FIELDS))

const countrySummaryFields = {
  countryCode: Type.String({ description: 'ISO 3166-1 alpha-2.' }),
  name: Type.String({ description: 'The English name.' }),
  shipsTo: Type.Boolean({ description: 'Whether some lab of the catalogue ships there.' }),
  shippingMethods: Type.Array(ShippingMethodSchema, { description: 'The methods some lab ships there by.' }),
  postcodeRequired: Type.Boolean(),
  postcodePattern: Nullable(
    Type.String({ description: 'A regular expression the postcode in normal form matches; null: none known.' }),
  ),
  postcodeExample: Nullable(Type.String({ description: 'A postcode in normal form.' })),
  stateRequired: Type.Boolean({ description: 'Whether carriers need stateOrCounty, as one of the subdivisions.' }),
  requiredFields: Type.Array(AddressFieldSchema),
  maxLengths: Type.Object(
    Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, Type.Integer()])) as Record<
      (typeof ADDRESS_FIELDS)[number],
      ReturnType<typeof Type.Integer>
    >,
    { description: 'The longest each field may be for carriers, in characters.' },
  ),
  phoneRequiredFor: Type.Array(ShippingMethodSchema, {
    description: "The methods whose carriers need the recipient's phone number.",
  }),
  rulesDate: Type.String({ description: 'When the bundled rules were taken (YYYY-MM-DD).' }),
}

const CountrySummarySchema = named('CountrySummary', Type.Object(countrySummaryFields))

const CountrySchema = named(
  'Country',
  Type.Object({
    ...countrySummaryFields,
    subdivisions: Type.Array(
      named(
        'Subdivision',
        Type.Object({
          code: Type.String({ description: 'The ISO 3166-2 code without its country prefix (CA for US-CA).' }),
          name: Type.String(),
        }),
      ),
    ),
  }),
)

export const CountryCodeParamsSchema = Type.Object({
  countryCode: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, any letter case.' }),
})

export const CountryListResponseSchema = outcomeResponse('CountryListResponse', OkOutcome, {
  countries: Type.Array(CountrySummarySchema),
})

export const CountryResponseSchema = outcomeResponse('CountryResponse', OkOutcome, { country: CountrySchema })

export const ValidateAddressRequestSchema = named(
  'ValidateAddressRequest',
  Type.Object(
    {
      address: AddressRequestSchema,
      phoneNumber: Type.Optional(NullableString({ maxLength: 50, singleLine: true })),
      shippingMethod: Type.Optional(
        Nullable(
          CaseInsensitiveEnum(
            SHIPPING_METHODS,
            'The method the order will use: a phone number is then needed when its carriers need one. Omitted: ' +
              'only when every method to the country needs one.',
          ),
        ),
      ),
    },
    { additionalProperties: false },
  ),
)

const AddressProblemSchema = named(
  'AddressProblem',
  Type.Object({
    field: StringEnum([...ADDRESS_FIELDS, 'phoneNumber'] as const),
    code: StringEnum(ADDRESS_PROBLEM_CODES),
    message: Type.String(),
    severity: StringEnum(
      ADDRESS_PROBLEM_SEVERITIES,
      'blocking: the carrier cannot deliver (an order gets the issue order.recipient.AddressUnverified, or is ' +
        'refused in refuse mode); advisory: delivery goes ahead (the order shows it in addressAdvisories).',
    ),
  }),
)

export const ValidateAddressResponseSchema = outcomeResponse('ValidateAddressResponse', OkOutcome, {
  valid: Type.Boolean({ description: 'True when there are no problems.' }),
  problems: Type.Array(AddressProblemSchema),
  suggested: addressResponseSchema('SuggestedAddress'),
  deliverable: Type.Boolean({
    description: 'True when no problem stops delivery (every problem, if any, is advisory).',
  }),
})
