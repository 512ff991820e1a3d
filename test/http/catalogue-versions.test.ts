// Catalogue versions (docs/catalogue.md#versions): imported files are validated in full and stored as numbered
// versions, compared, exported byte for byte and activated; the process switches to an activated version at
// once (other processes within a poll: test/cli/catalogue-versions.test.ts), and reports it on /readyz and in
// the metrics. What was worked out with a version keeps it: a locked quote its prices, an order in flight its
// allocation and charges; a re-allocation after a lab refused a shipment uses the active version and says so.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { createLogger } from '../../src/adapters/logger.ts'
import { SAMPLE_CATALOGUE_PATH } from '../../src/catalogue/catalogue.loader.ts'
import { planPrintLayout, printAreaRequestOf } from '../../src/domain/print-geometry.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { CatalogueVersionError } from '../../src/services/catalogue-versions.service.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { captureLogs } from '../support/log-capture.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const CLI = { kind: 'cli', host: 'test-host', user: 'tester' } as const

/** The bundled sample's text with `change` made to its document, as a file an operator would import. */
function changedSampleText(change: (file: any) => void): string {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
  change(file)
  return `${JSON.stringify(file, null, 2)}\n`
}

/** Every lab's every product at `factor` times its unit cost. */
function pricesTimes(factor: number) {
  return (file: any) => {
    for (const lab of file.labs) {
      for (const product of lab.products) product.unitCost = (Number(product.unitCost) * factor).toFixed(2)
    }
  }
}

async function readyVersion(t: TestApp): Promise<number> {
  const response = await t.live({ method: 'GET', url: '/readyz' }, null)
  assert.equal(response.statusCode, 200, response.body)
  return json(response).catalogueVersion
}

async function metricsVersions(t: TestApp): Promise<string[]> {
  const text = (await t.app.live.inject({ method: 'GET', url: '/metrics' })).body
  return text.split('\n').filter((line) => line.startsWith('printroute_catalogue_version{'))
}

async function quoteOf(t: TestApp): Promise<Record<string, any>> {
  const response = await t.sandbox({
    method: 'POST',
    url: '/v4.0/quotes',
    payload: {
      shippingMethod: 'Standard',
      destinationCountryCode: 'GB',
      items: [{ sku: 'GLOBAL-CAN-10x10', copies: 2, attributes: { wrap: 'ImageWrap' }, assets: [{}] }],
    },
  })
  assert.equal(response.statusCode, 200, response.body)
  return json(response).quotes[0]
}

for (const kind of databaseKinds) {
  describe(`catalogue versions (${kind})`, () => {
    let images: ImageServer
    before(async () => {
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
    })

    test('a new database serves its first catalogue as version 1, on /readyz and in the metrics', async () => {
      const t = await startTestApp({ kind })
      try {
        const versions = await t.app.services.catalogueVersions.list()
        assert.deepEqual(
          versions.map(({ version, active, importedBy }) => ({ version, active, importedBy })),
          [{ version: 1, active: true, importedBy: 'printroute' }],
        )
        assert.equal(await readyVersion(t), 1)
        assert.deepEqual(await metricsVersions(t), ['printroute_catalogue_version{version="1"} 1'])
        // A restart on the same database with the same catalogue stores nothing new.
        await t.app.close()
        const again = await startTestApp({ kind, database: t.database })
        try {
          assert.equal((await again.app.services.catalogueVersions.list()).length, 1)
        } finally {
          await again.close()
        }
      } finally {
        await t.database.close()
      }
    })

    test('a file with errors is refused with every problem listed, and nothing is stored or recorded', async () => {
      const t = await startTestApp({ kind })
      try {
        const text = changedSampleText((file) => {
          file.products[0].sku = 42
          file.labs[0].currency = 'XXX'
          file.taxRates.GB.ratePercent = 'twenty'
        })
        const refusal = await t.app.services.catalogueVersions.import(text, 'broken.json', CLI).then(
          () => assert.fail('the file was stored'),
          (error: unknown) => error,
        )
        assert.ok(refusal instanceof CatalogueVersionError)
        assert.ok(refusal.problems.length >= 3, refusal.message)
        for (const path of ['products[0].sku', 'taxRates.GB.ratePercent']) {
          assert.ok(
            refusal.problems.some((problem) => problem.startsWith(path)),
            `${path} in ${refusal.problems.join('; ')}`,
          )
        }
        assert.ok(
          refusal.problems.some((problem) => problem.includes('XXX')),
          refusal.problems.join('; '),
        )
        // Not JSON at all: one problem saying so.
        await assert.rejects(t.app.services.catalogueVersions.import('{"name": ', 'cut.json', CLI), /not valid JSON/)
        assert.equal((await t.app.services.catalogueVersions.list()).length, 1)
        const audited = await listAuditEvents(t.database.db, { actions: ['catalogue.imported'], limit: 10 })
        assert.deepEqual(
          audited.map((event) => event.actorKind),
          ['system'],
        )
      } finally {
        await t.close()
      }
    })

    test('import stores a version once, lists it, exports it byte for byte and diffs it section by section', async () => {
      const t = await startTestApp({ kind })
      try {
        const versions = t.app.services.catalogueVersions
        const text = changedSampleText((file) => {
          pricesTimes(2)(file)
          file.taxRates.GB.ratePercent = '21'
          file.currencies.rates.USD = '1.5000'
          delete file.taxRates.AT
        })
        const imported = await versions.import(text, 'dearer.json', CLI)
        assert.deepEqual(imported, { version: 2, created: true, active: false })
        assert.deepEqual(await versions.import(text, 'again.json', CLI), { version: 2, created: false, active: false })
        const listed = await versions.list()
        assert.deepEqual(
          listed.map(({ version, sourceName, active, importedBy }) => ({ version, sourceName, active, importedBy })),
          [
            { version: 1, sourceName: 'sample-catalogue.json', active: true, importedBy: 'printroute' },
            { version: 2, sourceName: 'dearer.json', active: false, importedBy: 'command line (tester@test-host)' },
          ],
        )
        assert.equal(await versions.export(2), text)
        await assert.rejects(versions.export(9), /no catalogue version 9/)

        const diff = await versions.diff(1, 2)
        const section = (name: string) => diff.sections.find((entry) => entry.section === name)?.changes ?? []
        assert.deepEqual(section('taxRates'), [
          { change: 'removed', key: 'AT', before: 'VAT 20%' },
          { change: 'changed', key: 'GB', before: 'VAT 20%', after: 'VAT 21%' },
        ])
        assert.deepEqual(section('currencies'), [{ change: 'changed', key: 'USD', before: '1.3100', after: '1.5000' }])
        const canvas = section('prices').find(
          (change) => change.key.startsWith('GLOBAL-CAN-8x8{') && change.key.endsWith(' from uk6'),
        )
        assert.deepEqual(canvas && { before: canvas.before, after: canvas.after }, {
          before: '12.50 GBP',
          after: '25.00 GBP',
        })
        assert.deepEqual(section('products'), [])
        assert.deepEqual(section('labs'), [])
        assert.equal(
          diff.total,
          diff.sections.reduce((sum, entry) => sum + entry.changes.length, 0),
        )
        // Backwards, every change turns round.
        const back = await versions.diff(2, 1)
        assert.equal(back.sections.find((entry) => entry.section === 'taxRates')?.changes[0]?.change, 'added')
        await assert.rejects(versions.diff(1, 7), /no catalogue version 7/)
      } finally {
        await t.close()
      }
    })

    test('activation switches the process at once and is recorded; an unknown version is refused, nothing changed', async () => {
      const t = await startTestApp({ kind })
      try {
        const versions = t.app.services.catalogueVersions
        const before = await quoteOf(t)
        await assert.rejects(versions.activate(2, CLI), /no catalogue version 2: nothing changed/)
        assert.equal((await versions.active()).version, 1)
        await versions.import(changedSampleText(pricesTimes(2)), 'dearer.json', CLI)
        assert.deepEqual(await versions.activate(2, CLI), { version: 2, previous: 1 })
        assert.equal(await readyVersion(t), 2)
        assert.deepEqual(await metricsVersions(t), ['printroute_catalogue_version{version="2"} 2'])
        const after = await quoteOf(t)
        assert.ok(
          Number(after.costSummary.items.amount) > Number(before.costSummary.items.amount),
          `${JSON.stringify(after.costSummary)} after ${JSON.stringify(before.costSummary)}`,
        )
        // Activating the active version again changes nothing and records nothing.
        assert.deepEqual(await versions.activate(2, CLI), { version: 2, previous: 2 })
        const audited = await listAuditEvents(t.database.db, {
          actions: ['catalogue.imported', 'catalogue.activated'],
          limit: 10,
        })
        assert.deepEqual(
          audited.map(({ action, actorKind, target, before, after }) => ({ action, actorKind, target, before, after })),
          [
            {
              action: 'catalogue.activated',
              actorKind: 'cli',
              target: 'catalogue v2',
              before: '{"version":1}',
              after: '{"version":2}',
            },
            {
              action: 'catalogue.imported',
              actorKind: 'cli',
              target: 'catalogue v2',
              before: null,
              after: audited[1]?.after ?? null,
            },
            {
              action: 'catalogue.activated',
              actorKind: 'system',
              target: 'catalogue v1',
              before: null,
              after: '{"version":1}',
            },
            {
              action: 'catalogue.imported',
              actorKind: 'system',
              target: 'catalogue v1',
              before: null,
              after: audited[3]?.after ?? null,
            },
          ],
        )
        assert.match(String(audited[1]?.after), /"sourceName":"dearer.json"/)
      } finally {
        await t.close()
      }
    })

    test('an active version that cannot be loaded keeps the process on the version it serves, and says so', async () => {
      const logs = captureLogs()
      const t = await startTestApp({
        kind,
        logger: createLogger({ level: 'info', format: 'json', destination: logs.stream }),
      })
      try {
        const versions = t.app.services.catalogueVersions
        await versions.import(changedSampleText(pricesTimes(2)), 'dearer.json', CLI)
        // Not possible through printroute (a version is validated on import): a damaged row, made active by hand.
        await t.database.db.query("UPDATE catalogue_versions SET content = '{}' WHERE version = 2")
        await t.database.db.query('UPDATE catalogue_active SET version = 2')
        assert.equal(await versions.refresh(), false)
        assert.equal(versions.live().version, 1)
        assert.equal(await readyVersion(t), 1)
        const line = logs.entries().find((entry) => entry.catalogueVersion === 2 && entry.level >= 50)
        assert.match(
          String(line?.msg),
          /catalogue version 2 was activated but cannot be loaded: still serving version 1/,
        )
        // Put right, the next check switches.
        await t.database.db.query('UPDATE catalogue_versions SET content = $1 WHERE version = 2', [
          changedSampleText(pricesTimes(2)),
        ])
        assert.equal(await versions.refresh(), true)
        assert.equal(await readyVersion(t), 2)
      } finally {
        await t.close()
      }
    })

    test('a locked quote keeps its prices across a switch; a new quote has the new ones; each records its version', async () => {
      const t = await startTestApp({ kind })
      try {
        const locked = await quoteOf(t)
        const versions = t.app.services.catalogueVersions
        await versions.import(changedSampleText(pricesTimes(3)), 'dearer.json', CLI, { activate: true })
        const fresh = await quoteOf(t)
        assert.ok(Number(fresh.costSummary.totalCost.amount) > Number(locked.costSummary.totalCost.amount))
        const rows = await t.database.db.query<{ id: string; version: number }>(
          'SELECT id::text AS id, catalogue_version AS version FROM quotes ORDER BY id',
        )
        assert.deepEqual(
          rows.map((row) => row.version),
          [1, 2],
        )
        const quoteRouting = json(await t.sandbox({ method: 'GET', url: `/v4.0/quotes/${locked.id}/routing` }))
        assert.equal(quoteRouting.routing.allocations[0].catalogueVersion, 1)

        const order = sampleOrder({ quoteId: locked.id })
        ;(order.items as any[])[0].assets = [{ printArea: 'default', url: images.url('a.jpg') }]
        const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: order })
        assert.equal(created.statusCode, 200, created.body)
        const allocated = await pipelineDriver(t).allocate(json(created).order.id)
        const [charge] = allocated.document.charges
        assert.ok(charge, 'charged')
        assert.deepEqual(charge.totalCost, locked.costSummary.totalCost)
        assert.equal(allocated.pipeline.catalogueVersion, 2)
      } finally {
        await t.close()
      }
    })

    test('an order in flight keeps its charges across a switch; a re-allocation uses the active version and says so', async () => {
      const t = await startTestApp({ kind })
      try {
        const driver = pipelineDriver(t)
        const order = sampleOrder()
        ;(order.items as any[])[0].assets = [{ printArea: 'default', url: images.url('a.jpg') }]
        const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: order })
        assert.equal(created.statusCode, 200, created.body)
        const orderId = json(created).order.id as string
        const allocated = await driver.allocate(orderId)
        const charges = allocated.document.charges
        assert.equal(charges.length, 1)
        const versionColumn = async () =>
          (
            await t.database.db.query<{ version: number | null }>(
              'SELECT catalogue_version AS version FROM orders WHERE id = $1',
              [Number(orderId.slice(4))],
            )
          )[0]?.version
        assert.equal(await versionColumn(), 1)

        await t.app.services.catalogueVersions.import(changedSampleText(pricesTimes(2)), 'dearer.json', CLI, {
          activate: true,
        })
        // The lab refuses the shipment: the item is allocated again, with the version active now.
        const [shipment] = (await driver.render(orderId)).document.shipments
        assert.ok(shipment)
        await driver.submit(orderId, shipment.id)
        await t.app.services.pipeline.reportLab(orderId, shipment.id, {
          kind: 'rejected',
          reason: 'test',
          unavailableItemIds: [],
        })
        await t.app.services.pipeline.allocateOrder(orderId, (await driver.state(orderId)).pipeline.allocationRound)
        const routing = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).routing
        assert.deepEqual(
          routing.allocations.map((round: any) => round.catalogueVersion),
          [1, 2],
        )
        assert.ok(routing.allocations[1].reroutedItems, 'the second round names the items it re-routed')
        assert.equal(Object.keys(routing.allocations[1]).at(-1), 'catalogueVersion')
        assert.equal(await versionColumn(), 2)
        // The agreed price stands: the new version's dearer prices charge nothing more, to the end.
        await driver.render(orderId)
        await driver.submit(orderId)
        const shipped = await driver.ship(orderId)
        assert.deepEqual(shipped.document.charges, charges)
      } finally {
        await t.close()
      }
    })

    test('work on an order in flight reads the version it was allocated with: its lab gone, its sizes changed, it completes', async () => {
      const t = await startTestApp({ kind })
      try {
        const driver = pipelineDriver(t)
        const order = sampleOrder()
        ;(order.items as any[])[0].assets = [{ printArea: 'default', url: images.url('a.jpg') }]
        const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: order })
        assert.equal(created.statusCode, 200, created.body)
        const orderId = json(created).order.id as string
        const allocated = await driver.allocate(orderId)
        const [shipment] = allocated.document.shipments
        assert.ok(shipment)
        const labCode = shipment.fulfillmentLocation.labCode
        const sku = allocated.document.items[0]?.sku as string
        const allocatedCatalogue = t.app.services.catalogueVersions.live().current()
        const variant = allocatedCatalogue.findVariant(sku, { wrap: 'ImageWrap' })
        assert.ok(variant)
        // The print file's size in the allocated version: its layout where the area has a specification.
        const area = printAreaRequestOf(variant, 'default', allocatedCatalogue.colours)
        const layout = area ? planPrintLayout(area) : null
        const size = layout
          ? { horizontalResolution: layout.width, verticalResolution: layout.height }
          : variant.printAreaSizes.default
        assert.ok(size)
        // The next version has no such lab (nor the products only it made), and other sizes for the product.
        const withoutLab = changedSampleText((file) => {
          file.labs = file.labs.filter((lab: any) => lab.code !== labCode)
          const made = new Set(file.labs.flatMap((lab: any) => lab.products.map((product: any) => product.sku)))
          file.products = file.products.filter((product: any) => made.has(product.sku))
          const product = file.products.find((entry: any) => entry.sku === sku)
          product.printAreas.default.horizontalResolution = 1000
          product.printAreas.default.verticalResolution = 1000
          if (product.printAreaSpecs?.default) product.printAreaSpecs.default.trimMm = { width: 300, height: 300 }
          delete product.variantOverrides
        })
        await t.app.services.catalogueVersions.import(withoutLab, 'without-lab.json', CLI, { activate: true })
        assert.equal(t.app.services.catalogueVersions.live().current().findLab(labCode), undefined)

        const rendered = await driver.render(orderId)
        const printFile = Object.values(rendered.pipeline.shipments[shipment.id]?.printFiles ?? {})[0]
        assert.ok(printFile, 'the print file was made')
        assert.deepEqual([printFile.width, printFile.height], [size.horizontalResolution, size.verticalResolution])
        await driver.submit(orderId)
        const shipped = await driver.ship(orderId)
        assert.equal(shipped.document.status.stage, 'Complete')
        assert.deepEqual(shipped.document.charges, allocated.document.charges)
      } finally {
        await t.close()
      }
    })
  })
}
