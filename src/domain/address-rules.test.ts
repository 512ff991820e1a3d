import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import {
  addressRulesFor,
  type CheckedAddress,
  carrierNeedsPhone,
  checkAddress,
  findSubdivision,
  normalPostcode,
  parseAddressValidationMode,
  splitAddressProblems,
} from './address-rules.ts'
import { ISO_COUNTRY_CODES } from './country-codes.ts'

tier('pure')

function rules(countryCode: string) {
  const found = addressRulesFor(countryCode)
  assert.ok(found, `rules for ${countryCode}`)
  return found
}

// [country, as typed, normal form] for postcodes that are valid in some spelling.
const VALID_POSTCODES: [string, string, string][] = [
  ['GB', 'EC1A 1BB', 'EC1A 1BB'],
  ['GB', 'ec1a1bb', 'EC1A 1BB'],
  ['GB', '  sw1a   1aa ', 'SW1A 1AA'],
  ['GB', 'M1 1AE', 'M1 1AE'],
  ['US', '94103', '94103'],
  ['US', '941031234', '94103-1234'],
  ['US', '94103-1234', '94103-1234'],
  ['CA', 'k1a0b1', 'K1A 0B1'],
  ['CA', 'K1A 0B1', 'K1A 0B1'],
  ['DE', '10115', '10115'],
  ['DE', ' 10115 ', '10115'],
  ['FR', '75001', '75001'],
  ['FR', '75 001', '75001'],
  ['NL', '1012ab', '1012 AB'],
  ['NL', '1012 AB', '1012 AB'],
  ['AU', '2000', '2000'],
  ['JP', '1000001', '100-0001'],
  ['JP', '100-0001', '100-0001'],
  ['IE', 'd02x285', 'D02 X285'],
  ['PL', '00950', '00-950'],
]

const INVALID_POSTCODES: [string, string][] = [
  ['GB', 'NOT-A-POSTCODE'],
  ['GB', 'EC1'],
  ['US', 'ABCDE'],
  ['US', '9410'],
  ['CA', '123456'],
  ['DE', '1'],
  ['DE', '101155'],
  ['FR', '7500'],
  ['NL', '101 AB'],
  ['AU', '20000'],
  ['JP', '100-001'],
]

for (const [country, typed, normal] of VALID_POSTCODES) {
  test(`postcode ${country} "${typed}" is valid, in normal form "${normal}"`, () => {
    assert.equal(normalPostcode(rules(country), typed), normal)
  })
}

for (const [country, typed] of INVALID_POSTCODES) {
  test(`postcode ${country} "${typed}" is refused with InvalidPostcode`, () => {
    assert.equal(normalPostcode(rules(country), typed), undefined)
    const { problems } = checkAddress(rules(country), address(country, { postalOrZipCode: typed }))
    const postcode = problems.find((problem) => problem.field === 'postalOrZipCode')
    assert.equal(postcode?.code, 'InvalidPostcode')
    assert.match(postcode?.message ?? '', new RegExp(country))
  })
}

const STATES: Record<string, string> = { US: 'CA', CA: 'ON', AU: 'NSW', JP: '13', GB: '', DE: '', FR: '', NL: '' }

function address(countryCode: string, fields: Partial<CheckedAddress> = {}): CheckedAddress {
  const postcode = VALID_POSTCODES.find(([country]) => country === countryCode)?.[1] ?? '1000'
  return {
    line1: '1 High Street',
    postalOrZipCode: postcode,
    countryCode,
    townOrCity: 'Town',
    stateOrCounty: STATES[countryCode] || null,
    ...fields,
  }
}

test('a well-formed address of each tested country has no problems', () => {
  for (const country of ['GB', 'US', 'CA', 'DE', 'FR', 'NL', 'AU', 'JP']) {
    assert.deepEqual(checkAddress(rules(country), address(country)).problems, [], country)
  }
})

test('states are required in the US, Canada and Australia, and not in GB, DE, FR, NL or JP', () => {
  for (const country of ['US', 'CA', 'AU']) {
    assert.equal(rules(country).stateRequired, true, country)
    const { problems } = checkAddress(rules(country), address(country, { stateOrCounty: null }))
    assert.deepEqual(
      problems.map((problem) => [problem.field, problem.code]),
      [['stateOrCounty', 'Required']],
      country,
    )
  }
  for (const country of ['GB', 'DE', 'FR', 'NL', 'JP']) {
    assert.equal(rules(country).stateRequired, false, country)
    // A county is free text where no state is required: "Greater London" is fine.
    const { problems } = checkAddress(rules(country), address(country, { stateOrCounty: 'Greater London' }))
    assert.deepEqual(problems, [], country)
  }
})

test('state names become ISO 3166-2 codes; a state of another country is refused', () => {
  const us = rules('US')
  assert.equal(checkAddress(us, address('US', { stateOrCounty: 'California' })).suggested.stateOrCounty, 'CA')
  assert.equal(checkAddress(us, address('US', { stateOrCounty: ' new york ' })).suggested.stateOrCounty, 'NY')
  assert.equal(checkAddress(us, address('US', { stateOrCounty: 'US-TX' })).suggested.stateOrCounty, 'TX')
  assert.equal(findSubdivision(rules('CA'), 'Québec')?.code, 'QC')
  assert.equal(findSubdivision(rules('CA'), 'quebec')?.code, 'QC')
  assert.equal(findSubdivision(rules('AU'), 'New South Wales')?.code, 'NSW')
  const refused = checkAddress(us, address('US', { stateOrCounty: 'Ontario' }))
  assert.deepEqual(
    refused.problems.map((problem) => [problem.field, problem.code]),
    [['stateOrCounty', 'UnknownState']],
  )
  assert.equal(refused.suggested.stateOrCounty, 'Ontario')
})

test('the suggestion trims whitespace and keeps what has no normal form', () => {
  const { problems, suggested } = checkAddress(rules('GB'), {
    line1: '  14 Test   Street ',
    line2: '   ',
    postalOrZipCode: 'ec1a1bb',
    countryCode: 'gb',
    townOrCity: ' London',
    stateOrCounty: null,
  })
  assert.deepEqual(problems, [])
  assert.deepEqual(suggested, {
    line1: '14 Test Street',
    line2: null,
    postalOrZipCode: 'EC1A 1BB',
    countryCode: 'GB',
    townOrCity: 'London',
    stateOrCounty: null,
  })
})

test('blank required fields and lines longer than carriers accept are problems', () => {
  const { problems } = checkAddress(
    rules('DE'),
    address('DE', { line1: '  ', townOrCity: 'T', line2: 'x'.repeat(36), postalOrZipCode: '' }),
  )
  assert.deepEqual(
    problems.map((problem) => [problem.field, problem.code]),
    [
      ['line1', 'Required'],
      ['postalOrZipCode', 'Required'],
      ['line2', 'TooLong'],
    ],
  )
})

test('a country without postcodes (Hong Kong) needs none and takes any', () => {
  const hk = rules('HK')
  assert.equal(hk.postcodePattern, null)
  assert.equal(hk.requiredFields.includes('postalOrZipCode'), false)
  assert.deepEqual(checkAddress(hk, address('HK', { postalOrZipCode: '' })).problems, [])
})

test('a phone number is a problem only where the carriers of the method need one', () => {
  const requirement = { methodsNeedingPhone: ['Express'], methodsToCountry: ['Budget', 'Express'] }
  const gb = rules('GB')
  const express = checkAddress(gb, address('GB'), null, { ...requirement, shippingMethod: 'Express' })
  assert.deepEqual(
    express.problems.map((problem) => [problem.field, problem.code]),
    [['phoneNumber', 'PhoneNumberRequired']],
  )
  assert.deepEqual(
    checkAddress(gb, address('GB'), '+44 20 7946 0000', { ...requirement, shippingMethod: 'Express' }).problems,
    [],
  )
  assert.deepEqual(checkAddress(gb, address('GB'), null, { ...requirement, shippingMethod: 'Budget' }).problems, [])
  // Without a method: only when every method there needs one.
  assert.deepEqual(checkAddress(gb, address('GB'), null, requirement).problems, [])
  const allExpress = { methodsNeedingPhone: ['Express'], methodsToCountry: ['Express'] }
  assert.equal(checkAddress(gb, address('GB'), '', allExpress).problems[0]?.code, 'PhoneNumberRequired')
  assert.equal(carrierNeedsPhone('DHL Express'), true)
  assert.equal(carrierNeedsPhone('fedex'), true)
  assert.equal(carrierNeedsPhone('DHL'), false)
  assert.equal(carrierNeedsPhone('Royal Mail'), false)
})

test('only problems that stop delivery are blocking; a long line and a missing phone are advisories', () => {
  const requirement = { methodsNeedingPhone: ['Express'], methodsToCountry: ['Express'], shippingMethod: 'Express' }
  const { problems } = checkAddress(
    rules('US'),
    address('US', { line1: 'x'.repeat(36), postalOrZipCode: 'ABCDE', stateOrCounty: null }),
    null,
    requirement,
  )
  assert.deepEqual(
    problems.map((problem) => [problem.code, problem.severity]),
    [
      ['Required', 'blocking'],
      ['InvalidPostcode', 'blocking'],
      ['TooLong', 'advisory'],
      ['PhoneNumberRequired', 'advisory'],
    ],
  )
  const { blocking, advisories } = splitAddressProblems(problems)
  assert.deepEqual(
    blocking.map((problem) => problem.code),
    ['Required', 'InvalidPostcode'],
  )
  // Advisories name the order's field, as the order shows them.
  assert.deepEqual(
    advisories.map((advisory) => [advisory.field, advisory.code]),
    [
      ['recipient.address.line1', 'TooLong'],
      ['recipient.phoneNumber', 'PhoneNumberRequired'],
    ],
  )
  const unknownState = checkAddress(rules('US'), address('US', { stateOrCounty: 'Ontario' })).problems
  assert.deepEqual(
    unknownState.map((problem) => [problem.code, problem.severity]),
    [['UnknownState', 'blocking']],
  )
})

test('a state stops delivery only in the US and Canada; in AU, BR, MX and IN its problems are advisories', () => {
  for (const country of ['US', 'CA']) {
    const missing = checkAddress(rules(country), address(country, { stateOrCounty: null })).problems
    assert.deepEqual(
      missing.map((problem) => [problem.code, problem.severity]),
      [['Required', 'blocking']],
      country,
    )
  }
  const postcodes: Record<string, string> = { AU: '2000', BR: '01310-100', MX: '06082', IN: '110001' }
  for (const [country, postalOrZipCode] of Object.entries(postcodes)) {
    assert.equal(rules(country).stateRequired, true, country)
    assert.equal(rules(country).stateStopsDelivery, false, country)
    const missing = checkAddress(rules(country), address(country, { stateOrCounty: null, postalOrZipCode })).problems
    assert.deepEqual(
      missing.map((problem) => [problem.field, problem.code, problem.severity]),
      [['stateOrCounty', 'Required', 'advisory']],
      country,
    )
  }
  const unknown = checkAddress(rules('AU'), address('AU', { stateOrCounty: 'Ontario' })).problems
  assert.deepEqual(
    unknown.map((problem) => [problem.code, problem.severity]),
    [['UnknownState', 'advisory']],
  )
})

test("field limits are the express couriers' smallest: lines 35, town and state 30", () => {
  assert.deepEqual(rules('GB').maxLengths, {
    line1: 35,
    line2: 35,
    postalOrZipCode: 20,
    townOrCity: 30,
    stateOrCounty: 30,
  })
  const town = checkAddress(rules('GB'), address('GB', { townOrCity: 'x'.repeat(31) })).problems
  assert.deepEqual(
    town.map((problem) => [problem.field, problem.code, problem.severity]),
    [['townOrCity', 'TooLong', 'advisory']],
  )
})

test('address validation modes: warn, refuse and off as stored; anything else is warn', () => {
  assert.equal(parseAddressValidationMode('off'), 'off')
  assert.equal(parseAddressValidationMode('refuse'), 'refuse')
  assert.equal(parseAddressValidationMode('warn'), 'warn')
  assert.equal(parseAddressValidationMode(null), 'warn')
  assert.equal(parseAddressValidationMode('OFF'), 'warn')
})

test('every country the sample catalogue ships to has rules; unknown codes have none', () => {
  const catalogue = loadCatalogue()
  const shipsTo = ISO_COUNTRY_CODES.filter((code) => catalogue.isKnownCountry(code))
  assert.ok(shipsTo.length > 200, 'the rest-of-world zone covers every country')
  for (const code of shipsTo) assert.ok(addressRulesFor(code), code)
  // Every named zone's country has a postcode pattern (the EU, the UK, Europe, US, CA, AU, NZ).
  for (const zone of catalogue.zones.filter((candidate) => !candidate.restOfWorld)) {
    for (const code of zone.countries) {
      assert.notEqual(addressRulesFor(code)?.postcodePattern ?? null, null, `${code} has a postcode pattern`)
    }
  }
  assert.equal(addressRulesFor('XX'), undefined)
  assert.equal(addressRulesFor('UK'), undefined)
  assert.equal(addressRulesFor('gb')?.countryCode, 'GB')
})
