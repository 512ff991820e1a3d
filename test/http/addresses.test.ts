// Countries and addresses through HTTP on every database backend (docs/addresses.md): GET /v4.0/countries and
// /countries/{code}, POST /v4.0/addresses/validate, and the address check of order create and updateRecipient in
// each mode (warn by default, the account's refuse and off, an order's acceptUnverifiedAddress), with the problems
// that stop delivery (issues, refusals) apart from the advisories (the order's addressAdvisories, never its outcome).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const BAD_GB_ADDRESS = {
  line1: '14 Test Street',
  postalOrZipCode: 'NOT-A-POSTCODE',
  countryCode: 'GB',
  townOrCity: 'London',
}

function orderTo(address: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  const order = sampleOrder(overrides) as { recipient: Record<string, unknown> }
  return { ...order, recipient: { ...order.recipient, address } }
}

for (const kind of databaseKinds) {
  describe(`countries and addresses (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    test('GET /countries lists every country with its rules and what the catalogue ships there', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/countries' })
      assert.equal(response.statusCode, 200)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'countries', 'traceParent'])
      assert.ok(body.countries.length >= 240, `${body.countries.length} countries`)
      const gb = body.countries.find((country: { countryCode: string }) => country.countryCode === 'GB')
      assert.equal(gb.name, 'United Kingdom')
      assert.equal(gb.shipsTo, true)
      assert.ok(gb.shippingMethods.includes('Budget'))
      assert.equal(gb.postcodeRequired, true)
      assert.equal(gb.postcodeExample, 'EC1A 1BB')
      assert.equal(gb.stateRequired, false)
      assert.equal(gb.subdivisions, undefined, 'subdivisions are listed per country only')
      assert.match(gb.rulesDate, /^\d{4}-\d{2}-\d{2}$/)
      // Express to GB goes by an express courier in the sample catalogue, which needs a phone number.
      assert.ok(gb.phoneRequiredFor.includes('Express'), JSON.stringify(gb.phoneRequiredFor))
      assert.ok(!gb.phoneRequiredFor.includes('Budget'))
    })

    test('GET /countries/{code} gives one country with its subdivisions, in any letter case', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/countries/us' })
      assert.equal(response.statusCode, 200)
      const country = json(response).country
      assert.equal(country.countryCode, 'US')
      assert.equal(country.stateRequired, true)
      assert.deepEqual(country.requiredFields, ['line1', 'townOrCity', 'postalOrZipCode', 'stateOrCounty'])
      assert.deepEqual(
        country.subdivisions.find((subdivision: { code: string }) => subdivision.code === 'CA'),
        { code: 'CA', name: 'California' },
      )
      assert.equal(country.maxLengths.line1, 35)
    })

    test('a code that is no country is 404 EntityNotFound; one that is no code at all is 400', async () => {
      const unknown = await t.sandbox({ method: 'GET', url: '/v4.0/countries/XX' })
      assert.equal(unknown.statusCode, 404)
      assert.equal(json(unknown).outcome, 'EntityNotFound')
      assert.match(json(unknown).statusText, /XX/)
      const malformed = await t.sandbox({ method: 'GET', url: '/v4.0/countries/GBR' })
      assert.equal(malformed.statusCode, 400)
      assert.equal(json(malformed).outcome, 'ValidationFailed')
      assert.ok(json(malformed).failures.countryCode, JSON.stringify(json(malformed).failures))
      const noKey = await t.sandbox({ method: 'GET', url: '/v4.0/countries' }, null)
      assert.equal(noKey.statusCode, 401)
    })

    test('POST /addresses/validate normalises a valid address', async () => {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/addresses/validate',
        payload: {
          address: {
            line1: ' 1 Market Street ',
            postalOrZipCode: '941031234',
            countryCode: 'us',
            townOrCity: 'San Francisco',
            stateOrCounty: 'California',
          },
        },
      })
      assert.equal(response.statusCode, 200)
      const body = json(response)
      assert.deepEqual(Object.keys(body), ['outcome', 'valid', 'problems', 'suggested', 'deliverable', 'traceParent'])
      assert.equal(body.outcome, 'Ok')
      assert.equal(body.valid, true)
      assert.equal(body.deliverable, true)
      assert.deepEqual(body.problems, [])
      assert.deepEqual(body.suggested, {
        line1: '1 Market Street',
        line2: null,
        postalOrZipCode: '94103-1234',
        countryCode: 'US',
        townOrCity: 'San Francisco',
        stateOrCounty: 'CA',
      })
    })

    test('POST /addresses/validate names each problem, and the phone where the method needs one', async () => {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/addresses/validate',
        payload: {
          address: { line1: '1 Navy Way', postalOrZipCode: 'ABCDE', countryCode: 'US', townOrCity: 'Washington' },
          shippingMethod: 'express',
        },
      })
      assert.equal(response.statusCode, 200)
      const body = json(response)
      assert.equal(body.valid, false)
      assert.equal(body.deliverable, false)
      assert.deepEqual(
        body.problems.map((problem: { field: string; code: string; severity: string }) => [
          problem.field,
          problem.code,
          problem.severity,
        ]),
        [
          ['stateOrCounty', 'Required', 'blocking'],
          ['postalOrZipCode', 'InvalidPostcode', 'blocking'],
          ['phoneNumber', 'PhoneNumberRequired', 'advisory'],
        ],
      )
      const advisoryOnly = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/addresses/validate',
          payload: {
            address: {
              line1: '1 Navy Way',
              postalOrZipCode: '20001',
              countryCode: 'US',
              townOrCity: 'Washington',
              stateOrCounty: 'DC',
            },
            shippingMethod: 'Express',
          },
        }),
      )
      assert.equal(advisoryOnly.valid, false)
      assert.equal(advisoryOnly.deliverable, true, 'a missing phone does not stop delivery')
      const withPhone = await t.sandbox({
        method: 'POST',
        url: '/v4.0/addresses/validate',
        payload: {
          address: { line1: '1 Navy Way', postalOrZipCode: '20001', countryCode: 'US', townOrCity: 'Washington' },
          phoneNumber: '+1 202 555 0100',
          shippingMethod: 'Express',
        },
      })
      assert.deepEqual(
        json(withPhone).problems.map((problem: { code: string }) => problem.code),
        ['Required'],
      )
    })

    test('POST /addresses/validate refuses an unknown country and unknown fields with 400', async () => {
      const unknown = await t.sandbox({
        method: 'POST',
        url: '/v4.0/addresses/validate',
        payload: { address: { ...BAD_GB_ADDRESS, countryCode: 'XX' } },
      })
      assert.equal(unknown.statusCode, 400)
      assert.equal(json(unknown).failures['address.countryCode'][0].code, 'NotAValidCountryCode')
      const extra = await t.sandbox({
        method: 'POST',
        url: '/v4.0/addresses/validate',
        payload: { address: BAD_GB_ADDRESS, colour: 'red' },
      })
      assert.equal(extra.statusCode, 400)
      assert.equal(json(extra).outcome, 'ValidationFailed')
    })

    test('an order with a valid address is Created without issues, as before', async () => {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() })
      assert.equal(response.statusCode, 200)
      assert.equal(json(response).outcome, 'Created')
      assert.deepEqual(json(response).order.status.issues, [])
    })

    test('warn (the default): an order with address problems is CreatedWithIssues, one issue per problem', async () => {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: orderTo(BAD_GB_ADDRESS) })
      assert.equal(response.statusCode, 200)
      const body = json(response)
      assert.equal(body.outcome, 'CreatedWithIssues')
      const issues = body.order.status.issues
      assert.equal(issues.length, 1)
      assert.equal(issues[0].errorCode, 'order.recipient.AddressUnverified')
      assert.equal(issues[0].objectId, body.order.id)
      assert.match(issues[0].description, /recipient\.address\.postalOrZipCode \(InvalidPostcode\)/)
      assert.equal(issues[0].authorisationDetails, null)
      // The address is kept as sent, and the stored order shows the issue too.
      assert.equal(body.order.recipient.address.postalOrZipCode, 'NOT-A-POSTCODE')
      const read = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${body.order.id}` }))
      assert.deepEqual(read.order.status.issues, issues)
    })

    test('acceptUnverifiedAddress: true creates the order silently', async () => {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: orderTo(BAD_GB_ADDRESS, { acceptUnverifiedAddress: true }),
      })
      assert.equal(json(response).outcome, 'Created')
      assert.deepEqual(json(response).order.status.issues, [])
    })

    test('refuse: the account setting makes problems a 400 naming each field with its suggestion', async () => {
      const account = await t.createAccount()
      const patch = await t.sandbox(
        { method: 'PATCH', url: '/v4.0/account/settings', payload: { addressValidation: 'Refuse' } },
        account.sandboxKey,
      )
      assert.equal(patch.statusCode, 200)
      assert.equal(json(patch).settings.addressValidation, 'refuse')
      // Live keeps its own setting.
      const live = await t.live({ method: 'GET', url: '/v4.0/account/settings' }, account.liveKey)
      assert.equal(json(live).settings.addressValidation, 'warn')
      // The change is in the audit trail, before and after.
      const audit = json(
        await t.sandbox(
          { method: 'GET', url: '/v4.0/account/audit?action=account.settingsChanged' },
          account.sandboxKey,
        ),
      )
      assert.deepEqual(
        audit.entries.map((entry: { before: unknown; after: unknown }) => [entry.before, entry.after]),
        [[{ addressValidation: 'warn' }, { addressValidation: 'refuse' }]],
      )

      const refused = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: orderTo({
            line1: '1 Market Street',
            postalOrZipCode: '94103',
            countryCode: 'US',
            townOrCity: 'San Francisco',
            stateOrCounty: 'Ontario',
          }),
        },
        account.sandboxKey,
      )
      assert.equal(refused.statusCode, 400)
      const body = json(refused)
      assert.equal(body.outcome, 'ValidationFailed')
      assert.deepEqual(Object.keys(body.failures), ['recipient.address.stateOrCounty'])
      assert.equal(body.failures['recipient.address.stateOrCounty'][0].code, 'UnknownState')
      assert.equal(body.failures['recipient.address.stateOrCounty'][0].providedValue, 'Ontario')

      // Refused for the state alone, the answer lists every problem with its severity.
      assert.deepEqual(
        body.data.addressProblems.map((problem: { code: string; severity: string }) => [
          problem.code,
          problem.severity,
        ]),
        [['UnknownState', 'blocking']],
      )

      // A line longer than couriers print does not stop delivery: refuse creates the order, with the advisory; a
      // normalisable postcode is no problem at all.
      const longLine = json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: orderTo({ ...BAD_GB_ADDRESS, postalOrZipCode: 'ec1a1bx', line1: ` ${'x'.repeat(40)}` }),
          },
          account.sandboxKey,
        ),
      )
      assert.equal(longLine.outcome, 'Created')
      assert.deepEqual(longLine.order.status.issues, [])
      assert.deepEqual(
        longLine.order.addressAdvisories.map((advisory: { field: string; code: string }) => [
          advisory.field,
          advisory.code,
        ]),
        [['recipient.address.line1', 'TooLong']],
      )

      const postcode = json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: orderTo({ ...BAD_GB_ADDRESS, postalOrZipCode: 'EC1', line1: ` ${'x'.repeat(40)}` }),
          },
          account.sandboxKey,
        ),
      )
      assert.equal(postcode.outcome, 'ValidationFailed')
      // Only what stops delivery is a failure; the suggestion names the normal form of every field.
      assert.deepEqual(Object.keys(postcode.failures), ['recipient.address.postalOrZipCode'])
      assert.equal(postcode.data.suggestedAddress.line1, 'x'.repeat(40))

      const suggested = json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: orderTo({ ...BAD_GB_ADDRESS, postalOrZipCode: 'EC1', townOrCity: '  London  ' }),
          },
          account.sandboxKey,
        ),
      )
      assert.equal(suggested.failures['recipient.address.postalOrZipCode'][0].code, 'InvalidPostcode')

      const accepted = await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: orderTo(BAD_GB_ADDRESS, { acceptUnverifiedAddress: true }),
        },
        account.sandboxKey,
      )
      assert.equal(json(accepted).outcome, 'Created')
      const valid = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }, account.sandboxKey)
      assert.equal(json(valid).outcome, 'Created')
    })

    test('warn: a GB Express order without a phone is Created with the advisory; a US order without a state still has its issue', async () => {
      const express = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          shippingMethod: 'Express',
          recipient: { ...(sampleOrder().recipient as object), phoneNumber: null },
        }),
      })
      assert.equal(express.statusCode, 200, express.body)
      const created = json(express)
      assert.equal(created.outcome, 'Created')
      assert.deepEqual(created.order.status.issues, [])
      assert.equal(created.order.addressAdvisories.length, 1)
      assert.equal(created.order.addressAdvisories[0].field, 'recipient.phoneNumber')
      assert.equal(created.order.addressAdvisories[0].code, 'PhoneNumberRequired')
      assert.match(created.order.addressAdvisories[0].message, /Express/)
      const read = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${created.order.id}` }))
      assert.deepEqual(read.order.addressAdvisories, created.order.addressAdvisories)
      // An order without advisories has no such key: its document is as before.
      const plain = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }))
      assert.equal(Object.hasOwn(plain.order, 'addressAdvisories'), false)

      const noState = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: orderTo({
            line1: '1 Market Street',
            postalOrZipCode: '94103',
            countryCode: 'US',
            townOrCity: 'San Francisco',
          }),
        }),
      )
      assert.equal(noState.outcome, 'CreatedWithIssues')
      assert.deepEqual(
        noState.order.status.issues.map((issue: { errorCode: string; description: string }) => issue.errorCode),
        ['order.recipient.AddressUnverified'],
      )
      assert.match(noState.order.status.issues[0].description, /recipient\.address\.stateOrCounty \(Required\)/)
    })

    test('a state stops delivery only in the US and Canada: an Australian order without one is Created with the advisory', async () => {
      const body = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: orderTo({
            line1: '1 George Street',
            postalOrZipCode: '2000',
            countryCode: 'AU',
            townOrCity: 'Sydney',
          }),
        }),
      )
      assert.equal(body.outcome, 'Created')
      assert.deepEqual(body.order.status.issues, [])
      assert.deepEqual(
        body.order.addressAdvisories.map((advisory: { field: string; code: string }) => [
          advisory.field,
          advisory.code,
        ]),
        [['recipient.address.stateOrCounty', 'Required']],
      )
      const canada = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: orderTo({
            line1: '1 Rue Sparks',
            postalOrZipCode: 'K1A 0B1',
            countryCode: 'CA',
            townOrCity: 'Ottawa',
          }),
        }),
      )
      assert.equal(canada.outcome, 'CreatedWithIssues')
    })

    test('off: no address is checked, no issue and no advisory; the change is audited', async () => {
      const account = await t.createAccount()
      const patch = await t.sandbox(
        { method: 'PATCH', url: '/v4.0/account/settings', payload: { addressValidation: 'OFF' } },
        account.sandboxKey,
      )
      assert.equal(patch.statusCode, 200, patch.body)
      assert.equal(json(patch).settings.addressValidation, 'off')
      const read = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, account.sandboxKey))
      assert.equal(read.settings.addressValidation, 'off')
      const created = json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: orderTo(BAD_GB_ADDRESS, { shippingMethod: 'Express' }),
          },
          account.sandboxKey,
        ),
      )
      assert.equal(created.outcome, 'Created')
      assert.deepEqual(created.order.status.issues, [])
      assert.equal(Object.hasOwn(created.order, 'addressAdvisories'), false)
      const recipient = created.order.recipient
      const updated = await t.sandbox(
        {
          method: 'POST',
          url: `/v4.0/orders/${created.order.id}/actions/updateRecipient`,
          payload: { ...recipient, phoneNumber: null, address: { ...recipient.address, postalOrZipCode: '12' } },
        },
        account.sandboxKey,
      )
      assert.equal(updated.statusCode, 200, updated.body)
      assert.deepEqual(json(updated).order.status.issues, [])
      const audit = json(
        await t.sandbox(
          { method: 'GET', url: '/v4.0/account/audit?action=account.settingsChanged' },
          account.sandboxKey,
        ),
      )
      assert.deepEqual(
        audit.entries.map((entry: { before: unknown; after: unknown }) => [entry.before, entry.after]),
        [[{ addressValidation: 'warn' }, { addressValidation: 'off' }]],
      )
    })

    test('advisories follow the recipient and the shipping method: a phone added clears, Express without one adds', async () => {
      const order = sampleOrder({ recipient: { ...(sampleOrder().recipient as object), phoneNumber: null } })
      const created = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: order }))
      assert.equal(created.outcome, 'Created')
      assert.equal(Object.hasOwn(created.order, 'addressAdvisories'), false, 'Standard needs no phone')
      const orderId = created.order.id
      const express = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateShippingMethod`,
        payload: { shippingMethod: 'Express' },
      })
      assert.equal(express.statusCode, 200, express.body)
      const afterExpress = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(
        afterExpress.addressAdvisories.map((advisory: { code: string }) => advisory.code),
        ['PhoneNumberRequired'],
      )
      assert.deepEqual(afterExpress.status.issues, [])
      const withPhone = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateRecipient`,
        payload: { ...afterExpress.recipient, phoneNumber: '+44 20 7946 0000' },
      })
      assert.equal(withPhone.statusCode, 200, withPhone.body)
      assert.equal(Object.hasOwn(json(withPhone).order, 'addressAdvisories'), false)
    })

    test('an unknown addressValidation mode is refused naming the field', async () => {
      const response = await t.sandbox({
        method: 'PATCH',
        url: '/v4.0/account/settings',
        payload: { addressValidation: 'strict' },
      })
      assert.equal(response.statusCode, 400)
      assert.ok(json(response).failures.addressValidation, JSON.stringify(json(response).failures))
    })

    test('updateRecipient: a corrected address clears the issues, a bad one adds them, refuse refuses', async () => {
      const created = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: orderTo(BAD_GB_ADDRESS) }))
      const orderId = created.order.id
      const recipient = created.order.recipient
      const fixed = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateRecipient`,
        payload: { ...recipient, address: { ...recipient.address, postalOrZipCode: 'EC1A 1BB' } },
      })
      assert.equal(fixed.statusCode, 200, fixed.body)
      assert.deepEqual(json(fixed).order.status.issues, [])

      const broken = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateRecipient`,
        payload: { recipient: { ...recipient, address: { ...recipient.address, postalOrZipCode: '12345' } } },
      })
      assert.equal(broken.statusCode, 200, broken.body)
      const issues = json(broken).order.status.issues
      assert.deepEqual(
        issues.map((issue: { errorCode: string }) => issue.errorCode),
        ['order.recipient.AddressUnverified'],
      )

      const accepted = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateRecipient`,
        payload: {
          recipient: { ...recipient, address: { ...recipient.address, postalOrZipCode: '54321' } },
          acceptUnverifiedAddress: true,
        },
      })
      assert.equal(accepted.statusCode, 200, accepted.body)
      assert.deepEqual(json(accepted).order.status.issues, [])

      const account = await t.createAccount()
      await t.sandbox(
        { method: 'PATCH', url: '/v4.0/account/settings', payload: { addressValidation: 'refuse' } },
        account.sandboxKey,
      )
      const own = json(
        await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() }, account.sandboxKey),
      )
      const refused = await t.sandbox(
        {
          method: 'POST',
          url: `/v4.0/orders/${own.order.id}/actions/updateRecipient`,
          payload: { ...own.order.recipient, address: { ...own.order.recipient.address, postalOrZipCode: 'EC1' } },
        },
        account.sandboxKey,
      )
      assert.equal(refused.statusCode, 400)
      assert.equal(json(refused).failures['address.postalOrZipCode'][0].code, 'InvalidPostcode')
      const unchanged = json(
        await t.sandbox({ method: 'GET', url: `/v4.0/orders/${own.order.id}` }, account.sandboxKey),
      )
      assert.equal(unchanged.order.recipient.address.postalOrZipCode, 'EC1A 1BB')
    })
  })
}
