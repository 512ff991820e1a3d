// The account's card on file over the API (docs/api.md#card-on-file): POST /account/payment-method/setup answers a
// Stripe Checkout page in setup mode (the stand-in's), the completed setup's webhook event stores the card, GET
// shows it, DELETE forgets it; audited. Sandbox keys, invoice accounts and an instance without a gateway are
// refused with the field that says why.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { PaymentGateway } from '../../src/domain/payment-gateway.ts'
import { storeCard } from '../../src/repositories/saved-cards.repository.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { gatewayOnStandIn, STAND_IN_CARDS, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databases = tier('http')

for (const kind of databases) {
  describe(`the card on file (${kind})`, () => {
    let t: TestApp
    let plain: TestApp
    let standIn: StripeStandIn
    let gateway: PaymentGateway
    let images: ImageServer
    before(async () => {
      images = await startImageServer()
      standIn = await startStripeStandIn()
      gateway = gatewayOnStandIn(standIn, {
        maxNetworkRetries: 0,
      })
      t = await startTestApp({ kind, publicUrls: { live: 'https://live.printroute.test' }, paymentGateway: gateway })
      plain = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
      await plain.close()
      await standIn.close()
      await images.close()
    })

    const setup = (app: TestApp, key: string, server: 'live' | 'sandbox' = 'live') =>
      app[server]({ method: 'POST', url: '/v4.0/account/payment-method/setup' }, key)
    const card = async (key: string, server: 'live' | 'sandbox' = 'live') =>
      json(await t[server]({ method: 'GET', url: '/v4.0/account/payment-method' }, key))
    const auditActions = async (account: TestAccount) =>
      (
        await t.database.db.query<{ action: string }>(
          `SELECT action FROM audit_events WHERE account_id = $1 AND action LIKE 'account.card%' ORDER BY id`,
          [parseId('acc', account.id)],
        )
      ).map((row) => row.action)

    async function completed(url: string, paymentMethod: string = STAND_IN_CARDS.visa) {
      const sessionId = new URL(url).pathname.split('/').at(-1) as string
      const signed = standIn.signedEvent(
        'checkout.session.completed',
        standIn.completeCheckout(sessionId, paymentMethod),
      )
      const event = gateway.verifyWebhook(signed.payload, signed.header)
      if (event.kind !== 'checkoutCompleted') throw new Error(`not a checkout completion: ${event.kind}`)
      return event
    }

    test('a prepaid account saves a card on the setup page; GET shows it; DELETE forgets it; both audited', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      assert.deepEqual((await card(account.liveKey)).card, null)

      const started = await setup(t, account.liveKey)
      assert.equal(started.statusCode, 200, started.body)
      const page = json(started).setup
      assert.ok(page.url.startsWith(`${standIn.url}/c/pay/cs_test_c`), page.url)
      assert.ok(Date.parse(page.expiresAt) > Date.now())
      const session = standIn.sessions.get(new URL(page.url).pathname.split('/').at(-1) as string)
      assert.equal(session?.mode, 'setup')
      assert.equal(session?.success_url, 'https://live.printroute.test/dashboard/billing?card=saved')
      assert.equal(session?.client_reference_id, account.id)
      // A second setup (the first page abandoned) reuses the account's one customer at Stripe.
      const again = json(await setup(t, account.liveKey)).setup
      assert.notEqual(again.url, page.url)
      const customers = [...standIn.customers.values()].filter(
        (customer) => customer.metadata.printroute_account_id === account.id,
      )
      assert.equal(customers.length, 1)
      assert.equal(
        standIn.sessions.get(new URL(again.url).pathname.split('/').at(-1) as string)?.customer,
        customers[0]?.id,
      )

      const event = await completed(again.url)
      assert.equal(
        await t.app.services.savedCards.completeCardSetup(event),
        `card saved for ${account.id}: visa ending 4242`,
      )
      // A redelivered event is counted once.
      assert.equal(await t.app.services.savedCards.completeCardSetup(event), 'already recorded')
      const shown = (await card(account.liveKey)).card
      assert.deepEqual(Object.keys(shown), ['brand', 'last4', 'expiryMonth', 'expiryYear', 'savedAt'])
      assert.deepEqual(
        { ...shown, savedAt: undefined },
        { brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: 2034, savedAt: undefined },
      )
      // Sandbox never bills: its key sees no card.
      assert.deepEqual((await card(account.sandboxKey, 'sandbox')).card, null)

      const removed = await t.live({ method: 'DELETE', url: '/v4.0/account/payment-method' }, account.liveKey)
      assert.equal(removed.statusCode, 200, removed.body)
      assert.deepEqual(json(removed).card, null)
      assert.deepEqual((await card(account.liveKey)).card, null)
      assert.deepEqual(await auditActions(account), ['account.cardSaved', 'account.cardRemoved'])
      // Removing again changes nothing and records nothing.
      await t.live({ method: 'DELETE', url: '/v4.0/account/payment-method' }, account.liveKey)
      assert.deepEqual(await auditActions(account), ['account.cardSaved', 'account.cardRemoved'])
    })

    test('a completion of a session printroute did not start, or of a payment, saves nothing', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const page = json(await setup(t, account.liveKey)).setup
      const event = await completed(page.url)
      assert.match(
        await t.app.services.savedCards.completeCardSetup({ ...event, sessionId: 'cs_test_unknown' }),
        /^ignored: no card setup of printroute has session cs_test_unknown/,
      )
      assert.equal(await t.app.services.savedCards.completeCardSetup({ ...event, mode: 'payment' }), 'not a card setup')
      assert.deepEqual((await card(account.liveKey)).card, null)
    })

    test('refused, naming why: a Sandbox key, an invoice account, an instance without a payment gateway', async () => {
      const prepaid = await t.createAccount({ billingMode: 'prepaid' })
      const invoice = await t.createAccount({ billingMode: 'invoice' })
      const cases: [Awaited<ReturnType<typeof setup>>, string, unknown][] = [
        [await setup(t, prepaid.sandboxKey, 'sandbox'), 'environment', 'sandbox'],
        [await setup(t, invoice.liveKey), 'billingMode', 'invoice'],
        [
          await setup(plain, (await plain.createAccount({ billingMode: 'prepaid' })).liveKey),
          'paymentProvider',
          'simulated',
        ],
      ]
      for (const [response, field, provided] of cases) {
        assert.equal(response.statusCode, 400, response.body)
        const body = json(response)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.deepEqual(Object.keys(body.failures), [field])
        assert.equal(body.failures[field][0].code, 'InvalidValue')
        assert.equal(body.failures[field][0].providedValue, provided)
      }
    })

    test('without a payment gateway a card on file is never charged: the order waits with its issue, as before', async () => {
      const account = await plain.createAccount({ billingMode: 'prepaid' })
      const accountNumber = parseId('acc', account.id) as number
      await storeCard(
        plain.database.db,
        accountNumber,
        {
          provider: 'stripe',
          customerId: 'cus_1',
          paymentMethodId: STAND_IN_CARDS.visa,
          brand: 'visa',
          last4: '4242',
          expiryMonth: 1,
          expiryYear: 2040,
        },
        new Date(),
      )
      const payload = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await plain.live(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        account.liveKey,
      )
      const held = await pipelineDriver(plain).allocate(json(created).order.id)
      assert.deepEqual(
        withoutResolutionWarnings(held.document.status.issues).map((issue) => issue.errorCode),
        ['RequiresPaymentAuthorisation'],
      )
      const payments = await plain.database.db.query('SELECT 1 FROM provider_payments WHERE account_id = $1', [
        accountNumber,
      ])
      assert.equal(payments.length, 0)
    })

    test('Stripe not answering: 503 ServiceUnavailable, no key in the answer; the next try works', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      standIn.failNext({ status: 500, pathPrefix: '/v1/customers' })
      const failed = await setup(t, account.liveKey)
      assert.equal(failed.statusCode, 503, failed.body)
      assert.equal(json(failed).outcome, 'ServiceUnavailable')
      assert.doesNotMatch(failed.body, /sk_|whsec_/)
      assert.equal((await setup(t, account.liveKey)).statusCode, 200)
    })
  })
}
