// Every curl example in docs/api.md and docs/sandbox.md, run as written with the real curl against live servers, so that what a
// developer pastes from the docs works. The examples use the default addresses (Sandbox 127.0.0.1:8081, Live
// :8080) and a few shell variables (KEY, ORDER, ...); this test points the addresses at its own servers and
// gives the variables values of its own, leaving the rest of each block exactly as documented.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { parseId } from '../../src/domain/ids.ts'
import { insertFulfilment } from '../../src/repositories/channels.repository.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { insertClaim, insertMerchantEvidence } from '../support/claims-lab.fixture.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { bookPdf } from '../support/preflight-files.ts'
import { shopifyWebhookHeaders } from '../support/shopify-stand-in.ts'
import { gatewayOnStandIn, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { catalogue, json, listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

const run = promisify(execFile)
const DOCS_DIR = join(import.meta.dirname, '..', '..', 'docs')
/** The documents whose curl examples run; api.md (with claims.md for the claims) must cover every operation. */
const DOCS = ['api.md', 'sandbox.md', 'claims.md', 'channels.md'] as const
const CURL = process.env.CURL_PATH ?? '/usr/bin/curl'

interface Example {
  doc: (typeof DOCS)[number]
  /** The heading the block stands under, to name the test. */
  heading: string
  line: number
  script: string
}

/** The ```sh blocks of the document that call curl, with the heading above each. */
function examplesOf(doc: Example['doc']): Example[] {
  const markdown = readFileSync(join(DOCS_DIR, doc), 'utf8')
  const examples: Example[] = []
  const lines = markdown.split('\n')
  let heading = ''
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ''
    if (/^#{2,4} /.test(line)) heading = line.replace(/^#+ /, '').replaceAll('`', '')
    if (line.trim() !== '```sh') continue
    const start = index + 1
    const body: string[] = []
    for (index = start; index < lines.length && lines[index]?.trim() !== '```'; index++) body.push(lines[index] ?? '')
    const script = body.join('\n')
    if (/\bcurl\b/.test(script)) examples.push({ doc, heading, line: start, script })
  }
  return examples
}

/** The photobook whose PDF the preflight examples check, and its trim. */
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
const BOOK_TRIM_MM = { width: 297, height: 297 }

/** The variables the examples may use; the test gives each a value, replacing the documented assignment. */
const VARIABLES = [
  'KEY',
  'LIVE_KEY',
  'ORDER',
  'SANDBOX_ORDER',
  'CALLBACK',
  'KEY_PREFIX',
  'LAB_KEY',
  'SHIPMENT',
  'LIVE_ORDER',
  'PUSH',
  'WEBHOOK',
  'PDF_PREFLIGHT',
  'PDF_ORDER',
  'PDF_ASSET',
  'STATEMENT',
  'CLAIM_ORDER',
  'CLAIM_ITEM',
  'CLAIM',
  'LAB_CLAIM',
  'LAB_EVIDENCE',
  'PHOTO',
  'CHANNEL',
  'LINK',
  'STORE_ORDER',
  'FULFILMENT',
  'PREPAID_KEY',
  'TOP_UP',
] as const
type Variable = (typeof VARIABLES)[number]
const ASSIGNMENT = new RegExp(`^\\s*(?:export\\s+)?(${VARIABLES.join('|')})=.*$`, 'gm')

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])

/** The method and path of each curl call of a script: `-X` names the method, else a body makes it a POST. */
function requestsOf(script: string): string[] {
  const calls = script
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /^\s*curl\b/.test(line))
  return calls.map((call) => {
    const method = /(?:-X|--request)\s+([A-Z]+)/.exec(call)?.[1] ?? (/\s(?:-d|--data\S*)\s/.test(call) ? 'POST' : 'GET')
    const url = /https?:\/\/[^\s'"]+/.exec(call)?.[0] ?? ''
    return `${method} ${new URL(url.replaceAll('$', '')).pathname}`
  })
}

/** Whether a request (`GET /v4.0/orders/ORDER`) calls an operation (`GET /v4.0/orders/{id}`). */
function operationMatches(operation: string, request: string): boolean {
  const pattern = operation
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+')
  return new RegExp(`^${pattern}/?$`, 'i').test(request)
}

function variablesUsed(script: string): Set<Variable> {
  const used = new Set<Variable>()
  for (const name of VARIABLES) if (new RegExp(`\\$\\{?${name}\\b`).test(script)) used.add(name)
  return used
}

describe('the curl examples of docs/api.md and docs/sandbox.md', () => {
  const examples = DOCS.flatMap(examplesOf)
  let t: TestApp
  let urls: { live: string; sandbox: string }
  let shimDir: string
  let receiver: CallbackReceiver
  let stripe: StripeStandIn | undefined
  let atLab: { shipment: string; labKey: string; orderId: string } | undefined
  /** Serves a book's PDF, for the preflight thumbnails' examples. */
  let files: ImageServer

  before(async () => {
    // No workers: the step helper takes an order to its lab where an example needs one there (the lab API
    // examples, the advance examples), and nothing moves an order by itself, so each state stays as the examples
    // expect.
    // The card on file's examples save a card through Stripe: a local stand-in answers in its place.
    stripe = await startStripeStandIn()
    t = await startTestApp({
      realClock: true,
      // The cancellation example's cancel answers FailedToCancel after a second; the lab's answer then cancels.
      labCancelWaitSeconds: 1,
      paymentGateway: gatewayOnStandIn(stripe),
    })
    urls = await listenOnLoopback(t)
    receiver = await startCallbackReceiver()
    files = await startImageServer({ '/book.pdf': await bookPdf(24, BOOK_TRIM_MM, 3, { boxes: true, cmyk: true }) })
    // curl, but noting the status of each answer on stderr, so the test can tell that every request succeeded.
    shimDir = mkdtempSync(join(tmpdir(), 'printroute-curl-'))
    writeFileSync(
      join(shimDir, 'curl'),
      `#!/bin/sh\nexec ${CURL} "$@" --write-out '\\n%{stderr}@@status %{http_code}\\n'\n`,
    )
    chmodSync(join(shimDir, 'curl'), 0o755)
  })
  after(async () => {
    await t?.close()
    await receiver?.close()
    await files?.close()
    await stripe?.close()
    if (shimDir) rmSync(shimDir, { recursive: true, force: true })
  })

  /** A one-poster order whose image is a sample printroute serves itself (no download leaves the machine). */
  function posterOrder(baseUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      ...extra,
      shippingMethod: 'Budget',
      recipient: {
        name: 'Ada Lovelace',
        address: { line1: '14 Test Street', postalOrZipCode: 'EC1A 1BB', countryCode: 'GB', townOrCity: 'London' },
      },
      items: [
        {
          sku: 'GLOBAL-FAP-8x8',
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url: `${baseUrl}/samples/portrait.jpg` }],
        },
      ],
    }
  }

  /** A new Sandbox order of the test's account, for an example that acts on `$ORDER`. */
  async function newSandboxOrder(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      headers: { 'content-type': 'application/json' },
      payload: posterOrder(urls.sandbox, extra),
    })
    assert.equal(created.statusCode, 200, created.body)
    return json(created).order.id
  }

  /** A Sandbox order of the scenario manual whose shipment waits with its lab (for the advance examples). */
  async function manualOrderWithItsLab(): Promise<string> {
    const orderId = await newSandboxOrder({ metadata: { sandboxScenario: 'manual' } })
    await toItsLab(orderId)
    const facts = json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${orderId}` })).sandboxOrder
    assert.equal(facts.cannotAdvance, null, 'the shipment with its lab')
    return orderId
  }

  /** Takes the order to its lab by its steps, as their jobs would run them. */
  async function toItsLab(orderId: string) {
    const drive = pipelineDriver(t)
    await drive.allocate(orderId)
    await drive.render(orderId)
    await drive.submit(orderId)
  }

  /** A Live order's shipment waiting at its lab, and a lab key of that lab. */
  async function shipmentAtItsLab(): Promise<{ shipment: string; labKey: string; orderId: string }> {
    const created = await t.live({
      method: 'POST',
      url: '/v4.0/orders',
      headers: { 'content-type': 'application/json' },
      payload: posterOrder(urls.live),
    })
    assert.equal(created.statusCode, 200, created.body)
    const orderId = json(created).order.id
    await toItsLab(orderId)
    const shipment = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order.shipments[0]
    assert.ok(shipment, 'the Live order allocated')
    const { key } = await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)
    // The shipment is the lab's once its print files are made and it is submitted: then the lab lists it.
    const listed = await t.live({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': key } })
    assert.ok(
      json(listed).jobs.some((job: { shipmentId: string }) => job.shipmentId === shipment.id),
      "the shipment in its lab's job list",
    )
    return { shipment: shipment.id, labKey: key, orderId }
  }

  /** A Pending claim on the shipment's first item, with one photo of the merchant's. */
  async function claimAgainst(atLab: { shipment: string; orderId: string }) {
    const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${atLab.orderId}` })).order
    const photo = await solidJpeg(60, 40, { r: 200, g: 30, b: 30 })
    const blobKey = `claim-evidence/example-${atLab.orderId}`
    await t.app.services.files.put(blobKey, photo.body, 'image/jpeg')
    const evidenceId = await insertMerchantEvidence(t.database.db, atLab.orderId, blobKey, t.clock.now())
    const claim = await insertClaim(t.database.db, {
      orderId: atLab.orderId,
      labCode: order.shipments[0].fulfillmentLocation.labCode,
      items: [
        {
          itemId: order.items[0].id,
          shipmentId: atLab.shipment,
          category: 'Damaged',
          description: 'Arrived with a torn corner',
          evidence: [evidenceId],
        },
      ],
      at: t.clock.now(),
    })
    return { claimId: claim.id, evidenceId }
  }

  /** A delivery of the test account's Sandbox callbacks: an order's first event sent to a local receiver. */
  async function aCallbackDelivery(): Promise<string> {
    const orderId = await newSandboxOrder({ callbackUrl: receiver.url('/hook') })
    // Its downloads make its first event; the delivery's first attempt sends it.
    await pipelineDriver(t).download(orderId)
    await pipelineDriver(t).deliverCallbacks()
    const listed = await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })
    const id = json(listed).callbacks[0]?.id as string | undefined
    assert.ok(id, "the order's first callback")
    return id
  }

  /** A PDF's preflight, checked (its job run here: the test has no workers). */
  async function checkedPreflight(): Promise<string> {
    const created = await t.sandbox({
      method: 'POST',
      url: '/v4.0/files/preflight',
      headers: { 'content-type': 'application/json' },
      payload: { url: files.url('book.pdf'), sku: BOOK, pageCount: 24 },
    })
    assert.equal(created.statusCode, 200, created.body)
    const id = json(created).preflight.id as string
    await t.app.services.preflight.runPreflight(Number(id.slice('pfl_'.length)))
    return id
  }

  /** A Sandbox order of a book whose PDF was downloaded and checked, and that PDF's asset. */
  async function orderWithCheckedPdf(): Promise<{ orderId: string; assetId: string }> {
    const created = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      headers: { 'content-type': 'application/json' },
      payload: {
        ...posterOrder(urls.sandbox),
        items: [
          {
            sku: BOOK,
            copies: 1,
            sizing: 'fillPrintArea',
            assets: [{ printArea: 'default', url: files.url('book.pdf'), pageCount: 24 }],
          },
        ],
      },
    })
    assert.equal(created.statusCode, 200, created.body)
    const orderId = json(created).order.id as string
    await pipelineDriver(t).download(orderId)
    const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    return { orderId, assetId: order.items[0].assets[0].id }
  }

  /** A Sandbox order shipped and delivered a minute ago, driven by its steps, and its first item (docs/claims.md). */
  async function deliveredSandboxOrder(): Promise<{ orderId: string; itemId: string }> {
    const orderId = await newSandboxOrder()
    await toItsLab(orderId)
    const shipped = await pipelineDriver(t).ship(orderId)
    for (const shipment of shipped.document.shipments) {
      await t.app.services.pipeline.reportLab(orderId, shipment.id, {
        kind: 'tracking',
        events: [{ time: new Date(Date.now() - 60_000).toISOString(), status: 'Delivered', description: 'Delivered' }],
      })
    }
    return { orderId, itemId: shipped.document.items[0]?.id as string }
  }

  /** A Pending claim on the delivered order's item. */
  async function aPendingClaim(delivered: { orderId: string; itemId: string }): Promise<string> {
    const made = await t.sandbox({
      method: 'POST',
      url: `/v4.0/orders/${delivered.orderId}/claims`,
      headers: { 'content-type': 'application/json' },
      payload: { items: [{ itemId: delivered.itemId, category: 'MissingItem', description: 'Not in the parcel' }] },
    })
    assert.equal(made.statusCode, 201, made.body)
    return json(made).claim.id
  }

  /** A statement of last month for the lab of `atLab`'s shipment: its work there recorded as shipped then. */
  async function lastMonthsStatement(lab: { shipment: string; orderId: string }): Promise<string> {
    const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${lab.orderId}` })).order
    const labCode = order.shipments[0].fulfillmentLocation.labCode as string
    const now = new Date()
    const shippedAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15))
    await t.database.db.query(`UPDATE shipment_costs SET outcome = 'Shipped', outcome_at = $2 WHERE order_id = $1`, [
      Number(lab.orderId.slice('ord_'.length)),
      shippedAt,
    ])
    const month = shippedAt.toISOString().slice(0, 7)
    return (await t.app.services.labStatements.issue(labCode, month, TEST_ACTOR)).statement.number
  }

  /**
   * A Sandbox Shopify channel of its own (docs/channels.md) and, as the example needs them, a link of it and a store
   * order waiting as not connected whose items are all linked now (so that it can be released).
   */
  let channels = 0
  async function aChannel(used: Set<Variable>): Promise<Record<string, string>> {
    const post = (url: string, payload: object) =>
      t.sandbox({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload })
    channels += 1
    const secret = `shpss_example_${channels}`
    const created = await post('/v4.0/channels', {
      type: 'shopify',
      shopDomain: `example-${channels}.myshopify.com`,
      adminAccessToken: 'shpat_example',
      webhookSecret: secret,
    })
    assert.equal(created.statusCode, 201, created.body)
    const values: Record<string, string> = { CHANNEL: json(created).channel.id }
    const link = (payload: object) => post(`/v4.0/channels/${values.CHANNEL}/links`, payload)
    const linked = await link({
      externalVariantId: '808950810',
      sku: 'GLOBAL-FAP-8x8',
      assets: [{ printArea: 'default', url: `${urls.sandbox}/samples/portrait.jpg` }],
    })
    assert.equal(linked.statusCode, 201, linked.body)
    values.LINK = json(linked).link.id
    if (!used.has('STORE_ORDER') && !used.has('FULFILMENT')) return values
    const order = JSON.parse(
      readFileSync(join(DOCS_DIR, '..', 'test', 'fixtures', 'shopify', 'orders-create.json'), 'utf8'),
    )
    order.admin_graphql_api_id = 'gid://shopify/Order/5001'
    const body = JSON.stringify(order)
    const received = await t.app.sandbox.inject({
      method: 'POST',
      url: `/channels/v1/${values.CHANNEL}/shopify`,
      headers: shopifyWebhookHeaders(body, secret, 'orders/create', `example-${channels}`, 'example.myshopify.com'),
      payload: body,
    })
    assert.equal(received.statusCode, 200, received.body)
    const kept = await t.database.db.query<{ id: number | string }>(
      'SELECT id FROM channel_webhooks WHERE processed_at IS NULL',
    )
    for (const row of kept) await t.app.services.channels.mapWebhook(Number(row.id))
    assert.equal((await link({ externalSku: 'MUG-OWN', ignore: true })).statusCode, 201)
    values.STORE_ORDER = '5001'
    if (used.has('FULFILMENT')) {
      // A shipment of the store order waiting in the outbox (no workers: its attempt is never made here).
      const [row] = await t.database.db.query<{ id: number | string }>(
        'SELECT id FROM channel_orders WHERE channel_id = $1',
        [parseId('chn', values.CHANNEL as string)],
      )
      const id = await insertFulfilment(t.database.db, {
        channelId: parseId('chn', values.CHANNEL as string) as number,
        channelOrderId: Number(row?.id),
        shipmentId: `shp_example_${channels}`,
        fulfilment: { externalOrderId: '5001', lineItems: [], tracking: { carrier: null, number: null, url: null } },
        at: t.clock.now(),
      })
      values.FULFILMENT = `chf_${id}`
    }
    return values
  }

  /** A webhook endpoint of the test account's Sandbox that was disabled and is enabled again (redeliver-missed). */
  async function valuesFor(example: Example, used: Set<Variable>): Promise<Record<string, string>> {
    const values: Record<string, string> = {}
    if (used.has('KEY')) values.KEY = t.account.sandboxKey
    if (used.has('LIVE_KEY')) values.LIVE_KEY = t.account.liveKey
    // A Live key of a prepaid account (top-ups), and a top-up it asked for.
    if (used.has('PREPAID_KEY') || used.has('TOP_UP')) {
      const prepaid = await t.createAccount({ billingMode: 'prepaid' })
      values.PREPAID_KEY = prepaid.liveKey
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/account/top-ups',
          headers: { 'content-type': 'application/json' },
          payload: { amount: '50.00' },
        },
        prepaid.liveKey,
      )
      assert.equal(created.statusCode, 201, created.body)
      values.TOP_UP = json(created).topUp.id
    }
    // docs/sandbox.md's `$ORDER` is one to advance: a manual order whose shipment waits with its lab.
    if (used.has('ORDER'))
      values.ORDER = example.doc === 'sandbox.md' ? await manualOrderWithItsLab() : await newSandboxOrder()
    if (used.has('SANDBOX_ORDER')) values.SANDBOX_ORDER = await manualOrderWithItsLab()
    if (used.has('CALLBACK')) values.CALLBACK = await aCallbackDelivery()
    // An endpoint disabled and enabled again, so that redeliver-missed has a default `since`.
    if (used.has('WEBHOOK')) {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/webhooks',
        headers: { 'content-type': 'application/json' },
        payload: { url: receiver.url('/webhook') },
      })
      values.WEBHOOK = json(created).webhook.id
      for (const enabled of [false, true]) {
        const changed = await t.sandbox({
          method: 'PATCH',
          url: `/v4.0/webhooks/${values.WEBHOOK}`,
          headers: { 'content-type': 'application/json' },
          payload: { enabled },
        })
        assert.equal(changed.statusCode, 200, changed.body)
      }
    }
    if (used.has('KEY_PREFIX')) {
      const created = json(await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' }))
      values.KEY_PREFIX = created.key.prefix
    }
    // A push needs a lab with a push endpoint before the shipment reaches it: every lab pushes to the receiver.
    if (used.has('PUSH')) {
      for (const { code } of catalogue.labs)
        await t.app.services.labPushes.configure(code, { pushUrl: receiver.url('/lab') }, TEST_ACTOR)
      const pushed = await shipmentAtItsLab()
      await pipelineDriver(t).deliverCallbacks()
      const listed = await t.live({ method: 'GET', url: '/labs/v1/pushes', headers: { 'x-api-key': pushed.labKey } })
      values.PUSH = json(listed).pushes[0]?.id as string
      assert.ok(values.PUSH, "the lab's first push")
      values.LAB_KEY = pushed.labKey
      return values
    }
    // A claim (made by the claims fixture, with a merchant's photo) against a fresh shipment's lab, and a lab's photo.
    if (used.has('LAB_CLAIM') || used.has('LAB_EVIDENCE') || used.has('PHOTO')) {
      atLab = await shipmentAtItsLab()
      const claim = await claimAgainst(atLab)
      values.LAB_CLAIM = claim.claimId
      values.LAB_EVIDENCE = claim.evidenceId
      values.LAB_KEY = atLab.labKey
      values.PHOTO = join(shimDir, 'packing.jpg')
      writeFileSync(values.PHOTO, (await solidJpeg(120, 80, { r: 90, g: 60, b: 30 })).body)
      return values
    }
    // A report changes its shipment, so each example that names one gets a new one; listing needs only a key.
    // A statement is issued for the lab of a fresh shipment (its hand-off recorded as shipped last month).
    if (used.has('SHIPMENT') || used.has('STATEMENT') || (used.has('LAB_KEY') && !atLab))
      atLab = await shipmentAtItsLab()
    if (atLab && used.has('SHIPMENT')) values.SHIPMENT = atLab.shipment
    // `$LIVE_ORDER` is the Live order of `$SHIPMENT` (the lab's cancellation example).
    if (atLab && used.has('LIVE_ORDER')) values.LIVE_ORDER = atLab.orderId
    if (atLab && used.has('LAB_KEY')) values.LAB_KEY = atLab.labKey
    if (atLab && used.has('STATEMENT')) values.STATEMENT = await lastMonthsStatement(atLab)
    if (used.has('CLAIM_ORDER') || used.has('CLAIM_ITEM') || used.has('CLAIM')) {
      const delivered = await deliveredSandboxOrder()
      values.CLAIM_ORDER = delivered.orderId
      values.CLAIM_ITEM = delivered.itemId
      if (used.has('CLAIM')) values.CLAIM = await aPendingClaim(delivered)
    }
    if (used.has('CHANNEL')) Object.assign(values, await aChannel(used))
    if (used.has('PDF_PREFLIGHT')) values.PDF_PREFLIGHT = await checkedPreflight()
    if (used.has('PDF_ORDER') || used.has('PDF_ASSET')) {
      const checked = await orderWithCheckedPdf()
      values.PDF_ORDER = checked.orderId
      values.PDF_ASSET = checked.assetId
    }
    return values
  }

  test('every operation of both OpenAPI documents has an example', async () => {
    const operations = new Set<string>()
    for (const server of [t.app.sandbox, t.app.live]) {
      const document = json(await server.inject({ method: 'GET', url: '/v4.0/openapi.json' }))
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
        for (const method of Object.keys(item)) {
          if (HTTP_METHODS.has(method)) operations.add(`${method.toUpperCase()} ${path}`)
        }
      }
    }
    const called = examples
      .filter((example) => example.doc !== 'sandbox.md')
      .flatMap((example) => requestsOf(example.script))
    const missing = [...operations].filter(
      (operation) => !called.some((request) => operationMatches(operation, request)),
    )
    assert.deepEqual(missing, [], 'operations without a curl example in docs/api.md (or claims.md, channels.md)')
  })

  for (const example of examples) {
    test(`${example.heading} (docs/${example.doc} line ${example.line})`, async () => {
      const script = example.script
        .replace(ASSIGNMENT, '')
        .replaceAll('http://127.0.0.1:8081', urls.sandbox)
        .replaceAll('http://127.0.0.1:8080', urls.live)
      const values = await valuesFor(example, variablesUsed(example.script))
      const { stdout, stderr } = await run('bash', ['-euo', 'pipefail', '-c', script], {
        env: { PATH: `${shimDir}:${process.env.PATH}`, HOME: process.env.HOME ?? tmpdir(), ...values },
        timeout: 30_000,
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`the example failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`)
      })
      const statuses = [...stderr.matchAll(/@@status (\d{3})/g)].map((match) => Number(match[1]))
      assert.ok(statuses.length > 0, `no request was made:\n${stderr}`)
      for (const status of statuses) {
        assert.ok(status >= 200 && status < 300, `an answer was ${status}:\n${stdout}\n${stderr}`)
      }
      // Every answer the examples show is a JSON body with an outcome (or the OpenAPI document).
      const bodies = stdout.split('\n').filter((line) => line.startsWith('{'))
      assert.ok(bodies.length > 0, `no JSON answer:\n${stdout}`)
      for (const body of bodies) {
        const parsed = JSON.parse(body)
        assert.ok('outcome' in parsed || 'openapi' in parsed, `an answer without an outcome: ${body.slice(0, 300)}`)
      }
      // An example that set the account's default scenario must not change the orders of the ones after it.
      const reset = await t.sandbox({
        method: 'PATCH',
        url: '/v4.0/account/settings',
        headers: { 'content-type': 'application/json' },
        payload: { sandboxScenario: null },
      })
      assert.equal(reset.statusCode, 200, reset.body)
    })
  }
})
