import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { errorSummary, failureWords, fieldErrors, fieldMessages, invalidAttributes, labelOfPath } from './forms.ts'

tier('pure')

test('failures read as the end of a sentence about their field, with the bound or the allowed values', () => {
  assert.equal(failureWords({ code: 'MustBeGreaterThanOrEqualTo', comparisonValue: 1 }), 'must be at least 1')
  assert.equal(
    failureWords({ code: 'InvalidType', providedValue: '1', comparisonValue: 'integer' }),
    'must be a whole number',
  )
  assert.equal(failureWords({ code: 'InvalidType', providedValue: null, comparisonValue: 'string' }), 'is required')
  assert.equal(
    failureWords({ code: 'InvalidAttributeValue', providedValue: 'nope', validValues: ['black', 'white'] }),
    'must be one of: black, white',
  )
  assert.equal(
    failureWords({
      code: 'MissingRequiredAttributes',
      missingItems: { attributes: [{ name: 'color' }, { name: 'size' }] },
    }),
    'needs a value for: color, size',
  )
  assert.equal(failureWords({ code: 'SomethingNew', comparisonValue: 'x' }), 'SomethingNew x', 'unknown codes as sent')
  assert.equal(labelOfPath('recipient.address.postalOrZipCode'), 'Postal or zip code')
})

test('failures land on the fields the form knows, and all of them in the summary', () => {
  const body = {
    outcome: 'ValidationFailed',
    statusText: 'The request could not be validated: 2 problems',
    failures: {
      'items[0].copies': [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 0, comparisonValue: 1 }],
      'items[0].sku': [{ code: 'UnknownSku', providedValue: '<b>' }],
    },
  }
  const errors = fieldErrors(body, (path) => (path === 'items[0].copies' ? { id: 'copies', label: 'Copies' } : null))
  assert.deepEqual(errors.of('copies'), ['must be at least 1'])
  assert.deepEqual(errors.of('sku'), [])
  assert.equal(fieldMessages(errors, 'copies').text, '<p class="field-error" id="copies-error">must be at least 1</p>')
  assert.equal(invalidAttributes(errors, 'copies').text, ' aria-invalid="true" aria-describedby="copies-error"')
  assert.equal(invalidAttributes(errors, 'sku').text, '')
  const summary = errorSummary(body, errors, 'Not placed').text
  assert.match(summary, /<a href="#copies">Copies<\/a> must be at least 1/)
  assert.match(summary, /<code>items\[0\]\.sku<\/code> is not a product of the catalogue/)
  assert.equal(errorSummary(null, errors, 'Not placed').text, '')
})
