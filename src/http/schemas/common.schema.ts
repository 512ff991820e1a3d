// Building blocks of the wire contract. Request objects reject unknown fields (additionalProperties: false,
// reported as UnknownField); response objects list their keys in the specification's order, which is the
// order the serializer writes them in.
import { type Static, type TProperties, type TSchema, type TUnsafe, Type } from 'typebox'
import { ERROR_OUTCOME_STATUS, type ErrorOutcome } from '../../domain/outcomes.ts'
import { MAX_URL_LENGTH } from '../../domain/urls.ts'

/**
 * Names a schema for the OpenAPI document: its `title` becomes the name of a component under
 * `components.schemas`, and every place that uses the schema refers to it there (http/openapi.ts). A title is
 * an annotation: the request validator and the response serializer ignore it, so naming changes no byte
 * on the wire.
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  return { ...schema, title: name }
}

/** Marks a string that must contain a non-space character (reported as MustNotBeEmptyOrWhitespace). */
export const NON_BLANK_PATTERN = '\\S'

/**
 * `singleLine`: an identifier, reference or code, which may carry no control character at all (tab and line
 * breaks included); other strings are free text, where only tab and line breaks are allowed (domain/text.ts,
 * enforced by http/validation.ts).
 */
interface TextOptions {
  maxLength?: number
  description?: string
  format?: string
  pattern?: string
  singleLine?: boolean
}

function textKeywords({ singleLine, ...options }: TextOptions): Record<string, unknown> {
  return singleLine ? { ...options, 'x-single-line': true } : options
}

export function NonBlankString(options: TextOptions & { maxLength: number }) {
  return Type.String({ pattern: NON_BLANK_PATTERN, ...textKeywords(options) })
}

/** A string or null; when a string, it must not be blank. */
export function NullableString(options: TextOptions = {}) {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], pattern: NON_BLANK_PATTERN, ...textKeywords(options) })
}

/** A single-line string that may be empty or blank (query and path values, labels of lab reports). */
export function SingleLineString(options: { maxLength?: number; minLength?: number; description?: string } = {}) {
  return Type.String({ ...options, 'x-single-line': true })
}

// Every URL printroute is given to fetch or to call: the one check of domain/urls.ts (`x-url`, implemented by
// http/validation.ts), failing as InvalidFormat with the reason.
const URL_KEYWORDS = { maxLength: MAX_URL_LENGTH, 'x-url': true, 'x-single-line': true } as const

export function UrlString(description: string) {
  return Type.String({ ...URL_KEYWORDS, description: `${description} At most ${MAX_URL_LENGTH} characters.` })
}

export function NullableUrlString(description: string) {
  return Type.Unsafe<string | null>({
    type: ['string', 'null'],
    ...URL_KEYWORDS,
    description: `${description} At most ${MAX_URL_LENGTH} characters, or null.`,
  })
}

/** Any value or null, for response fields (`{type: [..., 'null']}` serialises faster than anyOf). */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const copy = { ...(schema as Record<string, unknown>) }
  // `enum` and `const` hold whatever the type says: null must be one of the values too, or a null fails them.
  if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null]
  if (typeof copy.type === 'string' && !('const' in copy)) return Type.Unsafe({ ...copy, type: [copy.type, 'null'] })
  return Type.Unsafe({ anyOf: [schema, { type: 'null' }] })
}

/**
 * An enumeration matched in any letter case and rewritten to its canonical spelling before the handler
 * sees it (docs/wire-contract.md#enumerations: shipping methods, sizing). `x-case-insensitive-enum` is implemented by
 * the request validator (http/validation.ts); `enum`-like documentation is kept in the description.
 */
export function CaseInsensitiveEnum<T extends string>(values: readonly T[], description?: string): TUnsafe<T> {
  return Type.Unsafe<T>({
    type: 'string',
    'x-case-insensitive-enum': values,
    description: `${description ? `${description} ` : ''}One of ${values.join(', ')} (any letter case).`,
  })
}

export function StringEnum<T extends string>(values: readonly T[], description?: string): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: values, ...(description ? { description } : {}) })
}

/**
 * The `outcome` of a success answer, where the server answers with a closed set (`enum`: the serializer
 * ignores it, the OpenAPI document names it, so a generated client gets a union type).
 */
export function Outcome<T extends string>(name: string, values: readonly T[], description?: string): TUnsafe<T> {
  return named(name, StringEnum(values, description))
}

/** The outcome of reads and lists: always Ok. */
export const OkOutcome = Outcome('OkOutcome', ['Ok'] as const)

export const MoneySchema = named(
  'Money',
  Type.Object(
    {
      amount: Type.String({ description: 'Decimal amount with two places, negative for credits.' }),
      currency: Type.String({ description: 'ISO 4217 currency code.' }),
    },
    { additionalProperties: false },
  ),
)

export const TraceParent = Type.String({ description: 'W3C traceparent of this request, also sent as a header.' })

/**
 * `{outcome, ...fields, traceParent}`: the envelope of a successful answer, named `name` in the OpenAPI document.
 * The keys come in this order on the wire (the serializer follows the schema).
 */
export function outcomeResponse<O extends TSchema, F extends TProperties>(name: string, outcome: O, fields: F) {
  return named(name, Type.Object({ outcome, ...fields, traceParent: TraceParent }))
}

export const FailureSchema = named(
  'Failure',
  Type.Object({
    code: Type.String({ description: 'Why the field failed, e.g. Required, UnknownField, TooLong, InvalidValue.' }),
    providedValue: Type.Unknown(),
    comparisonValue: Type.Optional(Type.Unknown()),
    validValues: Type.Optional(Type.Array(Type.Unknown())),
    missingItems: Type.Optional(Type.Unknown()),
  }),
)

/** Every outcome of an error answer; the outcome alone decides the HTTP status (domain/outcomes.ts). */
export const ErrorOutcomeSchema = named('ErrorOutcome', StringEnum(Object.keys(ERROR_OUTCOME_STATUS) as ErrorOutcome[]))

/**
 * The error body of every error response (docs/wire-contract.md#errors); `failures` only on validation failures.
 * Every key is declared optional because the serializer writes required keys before optional ones, and
 * `failures` must stay between `statusCode` and `data`.
 */
export const ErrorResponseSchema = named(
  'ErrorBody',
  Type.Partial(
    Type.Object({
      outcome: ErrorOutcomeSchema,
      statusText: Type.String({ description: 'What went wrong, for people.' }),
      statusCode: Type.Integer({ description: 'The HTTP status again.' }),
      failures: Type.Record(Type.String(), Type.Array(FailureSchema), {
        description: 'ValidationFailed only: the failures of each field, by its path (e.g. items[0].copies).',
      }),
      data: Type.Object(
        {
          nearestSkus: Type.Optional(
            Type.Record(Type.String(), Type.Array(Type.String()), {
              description:
                "For an unknown SKU (UnknownSku, or 404 on /products/{sku}): by the failing field's path (`sku`, " +
                '`items[0].sku`), up to 3 catalogue SKUs nearest to it in edit distance, nearest first; empty ' +
                'when none is near (docs/errors.md#nearest-skus).',
            }),
          ),
        },
        {
          additionalProperties: true,
          description: 'Details of the error; which depend on the outcome (docs/errors.md).',
        },
      ),
      traceParent: TraceParent,
    }),
  ),
)

/**
 * The error answers of an API-key route that names a resource: bad request, bad key, no such resource, and the
 * key's rate limit used up (docs/api.md#rate-limits).
 */
export const ErrorResponses = {
  400: ErrorResponseSchema,
  401: ErrorResponseSchema,
  404: ErrorResponseSchema,
  429: ErrorResponseSchema,
}
