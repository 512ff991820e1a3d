import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Type } from 'typebox'
import { tier } from '../../test/support/tiers.ts'
import { CaseInsensitiveEnum, NonBlankString, NullableString } from './schemas/common.schema.ts'
import { contractPath, RequestValidationError, validatorCompiler } from './validation.ts'

tier('pure')

function compile(schema: object, httpPart = 'body') {
  return validatorCompiler({ schema, httpPart, method: 'POST', url: '/x' } as never) as (data: unknown) => {
    value?: unknown
    error?: RequestValidationError
  }
}

test('contract paths use dots for fields and brackets for indexes', () => {
  assert.equal(contractPath('/recipient/address/countryCode'), 'recipient.address.countryCode')
  assert.equal(contractPath('/items/0/assets/12/url'), 'items[0].assets[12].url')
  assert.equal(contractPath('/items/3', 'sku'), 'items[3].sku')
  assert.equal(contractPath('', 'shippingMethod'), 'shippingMethod')
  assert.equal(contractPath(''), '')
})

const schema = Type.Object(
  {
    name: NonBlankString({ maxLength: 5 }),
    note: Type.Optional(NullableString({ maxLength: 10 })),
    method: CaseInsensitiveEnum(['Budget', 'Express'] as const),
    items: Type.Array(Type.Object({ copies: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }), {
      minItems: 1,
    }),
  },
  { additionalProperties: false },
)

test('every failure is reported at once, by path, with the contract codes', () => {
  const result = compile(schema)({
    name: '  ',
    note: '',
    method: 'slow',
    items: [{ copies: 0, extra: true }],
    bogus: 1,
  })
  assert.ok(result.error instanceof RequestValidationError)
  assert.deepEqual(result.error.failures, {
    name: [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '  ' }],
    note: [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '' }],
    method: [{ code: 'InvalidValue', providedValue: 'slow', validValues: ['Budget', 'Express'] }],
    'items[0].copies': [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 0, comparisonValue: 1 }],
    'items[0].extra': [{ code: 'UnknownField', providedValue: true }],
    bogus: [{ code: 'UnknownField', providedValue: 1 }],
  })
})

test('missing, mistyped and too long values', () => {
  const result = compile(schema)({ name: 'toolong', items: 'x' })
  assert.deepEqual(result.error?.failures, {
    name: [{ code: 'TooLong', providedValue: 'toolong', comparisonValue: 5 }],
    method: [{ code: 'Required', providedValue: null }],
    items: [{ code: 'InvalidType', providedValue: 'x', comparisonValue: 'array' }],
  })
})

test('case-insensitive enumerations are rewritten to their canonical spelling', () => {
  const body = { name: 'Ada', method: 'eXpReSs', items: [{ copies: 1 }], note: null }
  const result = compile(schema)(body)
  assert.equal(result.error, undefined)
  assert.equal(body.method, 'Express')
})

test('bodies are never type-coerced, query values are', () => {
  const numberSchema = Type.Object({ top: Type.Integer() })
  assert.ok(compile(numberSchema, 'body')({ top: '5' }).error)
  const query = { top: '5' }
  assert.equal(compile(numberSchema, 'querystring')(query).error, undefined)
  assert.equal(query.top, 5)
})

test('a date-time is one JavaScript reads: a leap second or an offset of hours alone is InvalidFormat', () => {
  const dated = Type.Object({ at: Type.String({ format: 'date-time' }) })
  for (const at of [
    '2026-03-03T08:12:00Z',
    '2026-03-03t08:12:00.5z',
    '2026-03-03T09:12:00+01:00',
    '2026-03-03T09:12:00+0100',
  ]) {
    assert.equal(compile(dated)({ at }).error, undefined, at)
  }
  for (const at of ['2026-12-31T23:59:60Z', '2026-03-03T09:12:00+01', '2026-03-03T08:12:00', '2026-02-30T08:12:00Z']) {
    assert.deepEqual(
      compile(dated)({ at }).error?.failures,
      { at: [{ code: 'InvalidFormat', providedValue: at, comparisonValue: 'date-time' }] },
      at,
    )
  }
  // Query values are read by the same rule (orders' createdFrom, createdTo).
  const query = compile(Type.Object({ createdFrom: Type.String({ format: 'date-time' }) }), 'querystring')
  assert.equal(query({ createdFrom: '2026-12-31T23:59:60Z' }).error?.failures.createdFrom?.[0]?.code, 'InvalidFormat')
})

test('a date-time or a date is within years 0001 to 9999 in UTC: beyond, the bound is named', () => {
  const dated = Type.Object({ at: Type.String({ format: 'date-time' }), day: Type.String({ format: 'date' }) })
  for (const [at, day] of [
    ['0001-01-01T00:00:00Z', '0001-01-01'],
    ['9999-12-31T23:59:59.9999999Z', '9999-12-31'],
    ['0001-01-01T00:30:00-01:00', '2026-03-03'],
    ['9999-12-31T23:00:00+01:00', '2026-03-03'],
  ] as const) {
    assert.equal(compile(dated)({ at, day }).error, undefined, at)
  }
  const refused = (at: string, day: string) => compile(dated)({ at, day }).error?.failures
  assert.deepEqual(refused('0000-01-01T00:00:00Z', '0000-01-01'), {
    at: [
      {
        code: 'MustBeGreaterThanOrEqualTo',
        providedValue: '0000-01-01T00:00:00Z',
        comparisonValue: '0001-01-01T00:00:00Z',
      },
    ],
    day: [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: '0000-01-01', comparisonValue: '0001-01-01' }],
  })
  // 00:30 at +01:00 is 23:30 the day before in UTC: year 0.
  assert.deepEqual(refused('0001-01-01T00:30:00+01:00', '2026-03-03'), {
    at: [
      {
        code: 'MustBeGreaterThanOrEqualTo',
        providedValue: '0001-01-01T00:30:00+01:00',
        comparisonValue: '0001-01-01T00:00:00Z',
      },
    ],
  })
  assert.deepEqual(refused('9999-12-31T23:30:00-01:00', '2026-03-03'), {
    at: [
      {
        code: 'MustBeLessThanOrEqualTo',
        providedValue: '9999-12-31T23:30:00-01:00',
        comparisonValue: '9999-12-31T23:59:59.999Z',
      },
    ],
  })
  // A six-digit year is no RFC 3339 at all.
  assert.equal(refused('+010000-01-01T00:00:00Z', '2026-03-03')?.at?.[0]?.code, 'InvalidFormat')
  // Query values, by the same rule (the audit trail's from and to, orders' createdFrom).
  const query = compile(Type.Object({ to: Type.String({ format: 'date-time' }) }), 'querystring')
  assert.equal(query({ to: '0000-01-01T00:00:00Z' }).error?.failures.to?.[0]?.code, 'MustBeGreaterThanOrEqualTo')
})
