// The logs of a whole pipeline, at trace level, hold every step a person needs to follow an order, each with its
// order id and trace id, and none of the secrets that passed through the service: API keys, the lab key, the
// payment token, /files signatures, the callback signing secret, and credentials in merchants' own URLs.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createLogger, REDACTED } from '../../src/adapters/logger.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { captureLogs } from '../support/log-capture.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const traceparent = (traceId: string) => `00-${traceId}-00f067aa0ba902b7-01`
const SANDBOX_TRACE = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa0001'
const LIVE_TRACE = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbb0002'
const PAY_TRACE = 'cccccccccccccccccccccccccccc0003'
const LAB_TRACE = 'dddddddddddddddddddddddddddd0004'
/** A card the simulated payment provider approves. */
const APPROVED_CARD = { number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' }
const ASSET_URL_SECRET = 'MerchantAssetUrlSecret42'
const CALLBACK_URL_SECRET = 'MerchantCallbackUrlSecret42'

/** Every `signature` query value in a text (signed /files links). */
function signaturesIn(text: string): string[] {
  return [...text.matchAll(/[?&]signature=([A-Za-z0-9_-]+)/g)].map((match) => match[1] as string)
}

for (const kind of databaseKinds) {
  describe(`the logs of a whole pipeline (${kind})`, () => {
    const logs = captureLogs()
    let t: TestApp
    let images: ImageServer
    let receiver: CallbackReceiver

    before(async () => {
      images = await startImageServer()
      receiver = await startCallbackReceiver()
      t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pipeline: { downloadRetryBaseSeconds: 0.05, simulatedLabStepSeconds: 0.1 },
        logger: createLogger({ level: 'trace', format: 'json', destination: logs.stream }),
      })
    })
    after(async () => {
      await t.close()
      await receiver.close()
      await images.close()
    })

    test('every step is logged with its order and trace ids, and no secret is', async () => {
      const secrets: Record<string, string> = {
        'Sandbox API key': t.account.sandboxKey,
        'Live API key': t.account.liveKey,
        'secret in an asset URL': ASSET_URL_SECRET,
        'secret in a callback URL': CALLBACK_URL_SECRET,
      }
      const seenSignatures = new Set<string>()
      /** Fetches a signed /files link on its server, as a merchant or a lab would. */
      const fetchFile = async (server: 'live' | 'sandbox', url: string) => {
        for (const signature of signaturesIn(url)) seenSignatures.add(signature)
        const { pathname, search } = new URL(url)
        const response = await t.app[server].inject({ method: 'GET', url: `${pathname}${search}` })
        assert.equal(response.statusCode, 200, url)
      }
      const phone = (name: string) => ({
        sku: PHONE_CASE,
        copies: 1,
        sizing: 'fillPrintArea',
        assets: [{ printArea: 'default', url: `${images.url(name)}?token=${ASSET_URL_SECRET}` }],
      })

      // Sandbox: a whole pipeline with the simulated labs and callbacks to a local receiver.
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [phone('sandbox.jpg')],
          callbackUrl: receiver.url(`/hook?key=${CALLBACK_URL_SECRET}`),
        }),
        headers: { 'content-type': 'application/json', traceparent: traceparent(SANDBOX_TRACE) },
      })
      assert.equal(created.statusCode, 200, created.body)
      const sandboxOrderId = json(created).order.id
      // Its last step is the parcel's delivery, a few lab steps after Complete.
      const complete = await waitFor('the Sandbox order to be delivered', async () => {
        const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${sandboxOrderId}` })).order
        return order.deliveredAt ? order : undefined
      })
      await waitFor('the delivery callback', () =>
        receiver.received.some((callback) => String(callback.event.type).endsWith('status.delivery#Delivered'))
          ? true
          : undefined,
      )
      await fetchFile('sandbox', complete.items[0].assets[0].thumbnailUrl)
      const settings = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings
      secrets['callback signing secret'] = settings.signingSecret

      // Live: a prepaid order the balance cannot cover waits for the payment page, then goes to a real lab that
      // works through the lab API.
      const prepaid = await t.createAccount({ billingMode: 'prepaid' })
      secrets['prepaid Sandbox API key'] = prepaid.sandboxKey
      secrets['prepaid Live API key'] = prepaid.liveKey
      const live = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ items: [phone('live.jpg')] }),
          headers: { 'content-type': 'application/json', traceparent: traceparent(LIVE_TRACE) },
        },
        prepaid.liveKey,
      )
      const liveOrderId = json(live).order.id
      const getLive = async () =>
        json(await t.live({ method: 'GET', url: `/v4.0/orders/${liveOrderId}` }, prepaid.liveKey)).order
      const held = await waitFor('the payment hold', async () => {
        const order = await getLive()
        return order.status.issues.find((issue: any) => issue.errorCode === 'RequiresPaymentAuthorisation')
      })
      const paymentUrl = new URL(held.authorisationDetails.authorisationUrl)
      const token = paymentUrl.searchParams.get('token') as string
      secrets['payment token'] = token
      const page = await t.live({ method: 'GET', url: `${paymentUrl.pathname}${paymentUrl.search}` }, null)
      assert.equal(page.statusCode, 200)
      const paid = await t.live(
        {
          method: 'POST',
          url: paymentUrl.pathname,
          payload: { token, amount: held.authorisationDetails.paymentDetails.amount, card: APPROVED_CARD },
          headers: { 'content-type': 'application/json', traceparent: traceparent(PAY_TRACE) },
        },
        null,
      )
      assert.equal(json(paid).outcome, 'Paid', paid.body)

      const allocated = await getLive()
      const labCode = allocated.shipments[0].fulfillmentLocation.labCode
      const labKey = (await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)).key
      secrets['lab key'] = labKey
      const lab = (method: 'GET' | 'POST', url: string, payload?: object, trace?: string) =>
        t.app.live.inject({
          method,
          url,
          headers: {
            'x-api-key': labKey,
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...(trace ? { traceparent: traceparent(trace) } : {}),
          },
          ...(payload ? { payload } : {}),
        })
      const job = await waitFor('the shipment in the lab job list', async () => {
        const listed = json(await lab('GET', '/labs/v1/jobs'))
        return listed.jobs.find((entry: any) => entry.orderId === liveOrderId)
      })
      for (const item of job.items) for (const file of item.printFiles) await fetchFile('live', file.url)
      assert.equal((await lab('POST', `/labs/v1/jobs/${job.shipmentId}/acknowledge`)).statusCode, 200)
      assert.equal((await lab('POST', `/labs/v1/jobs/${job.shipmentId}/in-production`)).statusCode, 200)
      const shipped = await lab(
        'POST',
        `/labs/v1/jobs/${job.shipmentId}/shipped`,
        { carrier: { name: 'Royal Mail', service: 'Tracked 48' }, tracking: null },
        LAB_TRACE,
      )
      assert.equal(json(shipped).outcome, 'Updated')
      assert.equal((await getLive()).status.stage, 'Complete')
      await fetchFile('live', (await getLive()).items[0].assets[0].thumbnailUrl)

      // No secret anywhere in the logs.
      assert.ok(seenSignatures.size >= 3, `signatures seen: ${seenSignatures.size}`)
      for (const [index, signature] of [...seenSignatures].entries())
        secrets[`/files signature ${index + 1}`] = signature
      const output = logs.text()
      for (const [name, secret] of Object.entries(secrets)) {
        assert.ok(secret.length >= 16, `${name} is a real secret`)
        assert.ok(!output.includes(secret), `the ${name} appears in the logs`)
      }
      const entries = logs.entries()
      // One line per answered request (the incoming ones, at debug level, are there too).
      const answered = entries.filter((entry) => entry.req && entry.res)
      const requestUrls = answered.map((entry) => entry.req.url as string)
      assert.ok(requestUrls.includes(`${paymentUrl.pathname}?token=${REDACTED}`), 'the payment page request, redacted')
      assert.ok(
        requestUrls.some((url) => url.startsWith('/files/') && url.endsWith(`signature=${REDACTED}`)),
        'the file requests, redacted',
      )

      // Every step of the Sandbox order, with its order id and the trace id of the request that created it.
      const linesOf = (orderId: string) => entries.filter((entry) => entry.orderId === orderId)
      const sandboxLines = linesOf(sandboxOrderId)
      for (const step of ['created', 'start', 'download', 'allocate', 'render', 'submit', 'lab-report', 'complete']) {
        const line = sandboxLines.find((entry) => entry.step === step)
        assert.ok(line, `a ${step} line for ${sandboxOrderId}`)
        assert.equal(line.traceId, SANDBOX_TRACE, `${step}: ${JSON.stringify(line)}`)
        assert.equal(line.level, 30, `${step} is logged at info`)
      }
      const download = sandboxLines.find((entry) => entry.step === 'download')
      assert.equal(download?.result, 'ok')
      assert.equal(download?.attempt, 1)
      assert.equal(download?.maxAttempts, 10)
      assert.ok(String(download?.url).endsWith(`?token=${REDACTED}`), download?.url)
      const allocation = sandboxLines.find((entry) => entry.step === 'allocate')
      assert.equal(allocation?.shipments[0].labCode, complete.shipments[0].fulfillmentLocation.labCode)
      assert.match(String(allocation?.cost), /^\d+\.\d{2}$/)
      const render = sandboxLines.find((entry) => entry.step === 'render')
      assert.ok(render?.bytes > 0 && typeof render?.ms === 'number', JSON.stringify(render))
      const reports = sandboxLines.filter((entry) => entry.step === 'lab-report').map((entry) => entry.report)
      assert.deepEqual(reports, ['acknowledged', 'inProduction', 'shipped', 'tracking', 'tracking'])
      const scans = sandboxLines.filter((entry) => entry.report === 'tracking').map((entry) => entry.deliveryStatus)
      assert.deepEqual(scans, ['InTransit', 'Delivered'])
      const steps = sandboxLines.filter((entry) => entry.step !== 'callback').map((entry) => entry.step)
      assert.deepEqual(
        steps.slice(-3),
        ['complete', 'lab-report', 'lab-report'],
        `the carrier's scans come last: ${steps.join(', ')}`,
      )
      const callbacks = sandboxLines.filter((entry) => entry.step === 'callback')
      assert.ok(callbacks.length >= receiver.received.length, `${callbacks.length} callback lines`)
      for (const line of callbacks) {
        assert.equal(line.traceId, SANDBOX_TRACE)
        assert.equal(line.result, 'delivered')
        assert.equal(line.status, 200)
        assert.equal(typeof line.latencyMs, 'number')
        assert.ok(String(line.url).endsWith(`?key=${REDACTED}`), line.url)
      }
      // The request log of the creating request has the same trace id as its request id.
      assert.equal(answered.find((entry) => entry.reqId === SANDBOX_TRACE)?.req.url, '/v4.0/orders')

      // The Live order: background steps carry its creating request's trace id, lines written while a request
      // is handled (the payment, the lab's calls) carry that request's.
      const liveLines = linesOf(liveOrderId)
      const liveStep = (step: string) => liveLines.filter((entry) => entry.step === step)
      assert.equal(liveStep('created')[0]?.traceId, LIVE_TRACE)
      assert.equal(liveStep('allocate')[0]?.awaitingPayment, true)
      assert.equal(liveStep('allocate')[0]?.traceId, LIVE_TRACE)
      assert.equal(liveStep('payment')[0]?.traceId, PAY_TRACE)
      assert.equal(liveStep('payment')[0]?.result, 'paid')
      assert.equal(liveStep('submit')[0]?.connector, 'lab API')
      assert.equal(liveStep('submit')[0]?.traceId, LIVE_TRACE)
      const labCalls = liveStep('lab-api')
      assert.deepEqual(
        labCalls.map((entry) => entry.call),
        ['acknowledged', 'inProduction', 'shipped'],
      )
      for (const line of labCalls) {
        assert.equal(line.labCode, labCode)
        const request = answered.find((entry) => entry.reqId === line.traceId)
        assert.ok(request?.req.url.startsWith('/labs/v1/jobs/'), 'the trace id of the lab request')
      }
      assert.equal(labCalls.at(-1)?.traceId, LAB_TRACE)
      assert.equal(liveStep('complete')[0]?.traceId, LAB_TRACE)
      const listings = entries.filter((entry) => entry.step === 'lab-api' && entry.call === 'list')
      assert.ok(listings.some((entry) => entry.orderIds.includes(liveOrderId)))
    })
  })
}
