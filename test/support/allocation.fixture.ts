// Helpers of the allocation unit tests (src/domain/allocation/): the sample catalogue's variants, the check that an
// allocation is valid, a brute-force reference, small hand-built catalogues, random small instances and dense
// catalogues for the larger orders.
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { loadCatalogue, parseCatalogue } from '../../src/catalogue/catalogue.loader.ts'
import { allocateShipments } from '../../src/domain/allocation/allocation.ts'
import type { AllocationItem, AllocationRequest, AllocationResult } from '../../src/domain/allocation/model.ts'
import type { Catalogue, LabOption } from '../../src/domain/catalogue.ts'
import type { CatalogueFile, LabEntry, ProductEntry, Variant } from '../../src/domain/catalogue.types.ts'
import type { ShippingMethod } from '../../src/domain/shipping-methods.ts'

export const sample = loadCatalogue()

export function variant(catalogue: Catalogue, sku: string, attributes: Record<string, string> = {}): Variant {
  const found = catalogue.findVariant(sku, attributes)
  assert.ok(found, `no variant ${sku} ${JSON.stringify(attributes)}`)
  return found
}

export function item(
  itemId: string,
  itemVariant: Variant,
  copies = 1,
  pageCount: number | null = null,
): AllocationItem {
  return { itemId, variant: itemVariant, copies, pageCount }
}

export function allocated(result: AllocationResult) {
  if (!result.ok) assert.fail(`expected an allocation, got ${JSON.stringify(result)}`)
  return result
}

/** lab code -> item ids, for compact assertions. */
export function labsOf(result: AllocationResult): Record<string, string[]> {
  return Object.fromEntries(allocated(result).shipments.map((shipment) => [shipment.labCode, shipment.itemIds]))
}

export function excludedFor(request: AllocationRequest, itemId: string): readonly string[] {
  const byItem = request.excludedLabsByItem ?? {}
  return Object.hasOwn(byItem, itemId) ? (byItem[itemId] ?? []) : []
}

/** "12.50" from 1250n, for building catalogue files from integers. */
export function decimal(minor: number | bigint): string {
  const value = BigInt(minor)
  return `${value / 100n}.${(value % 100n).toString().padStart(2, '0')}`
}

/**
 * Every promise an allocation makes: each item exactly once, from a lab that makes it, ships to the destination
 * by the method and is not excluded; shipments sorted by lab code, items in request order; the costs are the
 * catalogue's own (costPerCopy, shipmentCost) and add up, per shipment and in total, in the base currency.
 */
export function assertValidAllocation(
  catalogue: Catalogue,
  request: AllocationRequest,
  result: AllocationResult,
): void {
  const { shipments, totalCostInBaseCurrency } = allocated(result)
  const codes = shipments.map((shipment) => shipment.labCode)
  assert.deepEqual(codes, [...new Set(codes)].sort(), 'one shipment per lab, sorted by code')
  const seen: string[] = []
  let total = 0n
  for (const shipment of shipments) {
    const lab = catalogue.findLab(shipment.labCode)
    assert.ok(lab)
    const rate = catalogue.shippingRate(lab.code, request.shippingMethod, request.destinationCountryCode)
    assert.ok(rate, `${lab.code} ships to ${request.destinationCountryCode} by ${request.shippingMethod}`)
    assert.deepEqual(shipment.carrier, { name: rate.carrier, service: rate.service })
    assert.equal(shipment.tracked, rate.tracked)
    assert.equal(shipment.labCountryCode, lab.countryCode)
    assert.deepEqual(
      shipment.itemIds,
      shipment.items.map(({ itemId }) => itemId),
    )
    const requestOrder = request.items.map(({ itemId }) => itemId).filter((id) => shipment.itemIds.includes(id))
    assert.deepEqual(shipment.itemIds, requestOrder, 'items in request order')
    let production = 0n
    const units = []
    for (const planned of shipment.items) {
      const requested = request.items.find(({ itemId }) => itemId === planned.itemId)
      assert.ok(requested, `unknown item ${planned.itemId}`)
      assert.ok(!excludedFor(request, planned.itemId).includes(lab.code), 'excluded lab used')
      const option: LabOption | undefined = catalogue
        .labOptions(requested.variant, request.destinationCountryCode, request.shippingMethod)
        .find(({ offer }) => offer.lab.code === lab.code)
      assert.ok(option, `${lab.code} cannot make and ship ${planned.itemId}`)
      const product = catalogue.findProduct(requested.variant.sku)
      assert.ok(product)
      assert.deepEqual(planned.unitCost, catalogue.costPerCopy(product, option.offer, requested.pageCount))
      assert.equal(planned.printFileFormat, option.offer.printFileFormat)
      production += planned.unitCost.minor * BigInt(requested.copies)
      units.push({ shippingClass: product.shippingClass, copies: requested.copies })
      seen.push(planned.itemId)
    }
    assert.deepEqual(shipment.productionCost, { minor: production, currency: lab.currency })
    assert.deepEqual(shipment.shippingCost, catalogue.shipmentCost(rate, units))
    const inBase = catalogue.convertMinorUnits(
      production + shipment.shippingCost.minor,
      lab.currency,
      catalogue.baseCurrency,
    )
    assert.deepEqual(shipment.costInBaseCurrency, { minor: inBase, currency: catalogue.baseCurrency })
    total += inBase
  }
  assert.deepEqual(seen.sort(), request.items.map(({ itemId }) => itemId).sort(), 'every item exactly once')
  assert.deepEqual(totalCostInBaseCurrency, { minor: total, currency: catalogue.baseCurrency })
}

// ---------------------------------------------------------------------------------------------------------
// A brute-force reference: every assignment of items to allowed labs, ordered the way allocation promises
// (total cost in base currency, then fewer shipments, then lab codes item by item).
// ---------------------------------------------------------------------------------------------------------

export interface Reference {
  cost: bigint
  shipmentCount: number
  labCodes: string[]
}

export function bruteForce(
  catalogue: Catalogue,
  request: AllocationRequest,
): Reference | { unavailableItemIds: string[] } {
  const candidates = request.items.map((requested) =>
    catalogue
      .labOptions(requested.variant, request.destinationCountryCode, request.shippingMethod)
      .filter(({ offer }) => !excludedFor(request, requested.itemId).includes(offer.lab.code)),
  )
  const unavailableItemIds = request.items.filter((_, index) => candidates[index]?.length === 0).map((i) => i.itemId)
  if (unavailableItemIds.length > 0) return { unavailableItemIds }

  let best: Reference | undefined
  const choice: number[] = []
  const visit = (index: number): void => {
    if (index < request.items.length) {
      for (let option = 0; option < (candidates[index]?.length ?? 0); option++) {
        choice[index] = option
        visit(index + 1)
      }
      return
    }
    const byLab = new Map<string, { production: bigint; units: { shippingClass: string; copies: number }[] }>()
    const labCodes: string[] = []
    let cost = 0n
    request.items.forEach((requested, itemIndex) => {
      const { offer } = candidates[itemIndex]?.[choice[itemIndex] ?? 0] ?? assert.fail('no option')
      const product = catalogue.findProduct(requested.variant.sku) ?? assert.fail('no product')
      const shipment = byLab.get(offer.lab.code) ?? { production: 0n, units: [] }
      shipment.production += catalogue.costPerCopy(product, offer, requested.pageCount).minor * BigInt(requested.copies)
      shipment.units.push({ shippingClass: product.shippingClass, copies: requested.copies })
      byLab.set(offer.lab.code, shipment)
      labCodes.push(offer.lab.code)
    })
    for (const [code, { production, units }] of byLab) {
      const lab = catalogue.findLab(code) ?? assert.fail('no lab')
      const rate = catalogue.shippingRate(code, request.shippingMethod, request.destinationCountryCode)
      assert.ok(rate)
      const shipping = catalogue.shipmentCost(rate, units).minor
      cost += catalogue.convertMinorUnits(production + shipping, lab.currency, catalogue.baseCurrency)
    }
    const candidate = { cost, shipmentCount: byLab.size, labCodes }
    if (!best || compareReferences(candidate, best) < 0) best = candidate
  }
  visit(0)
  return best ?? assert.fail('no assignment')
}

export function compareReferences(a: Reference, b: Reference): number {
  if (a.cost !== b.cost) return a.cost < b.cost ? -1 : 1
  if (a.shipmentCount !== b.shipmentCount) return a.shipmentCount - b.shipmentCount
  for (let index = 0; index < a.labCodes.length; index++) {
    const [x = '', y = ''] = [a.labCodes[index], b.labCodes[index]]
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

export function labCodesByItem(request: AllocationRequest, result: AllocationResult): string[] {
  const { shipments } = allocated(result)
  return request.items.map(
    ({ itemId }) => shipments.find((shipment) => shipment.itemIds.includes(itemId))?.labCode ?? 'none',
  )
}

// ---------------------------------------------------------------------------------------------------------
// Small hand-built catalogues that force each trade-off
// ---------------------------------------------------------------------------------------------------------

export interface LabSpec {
  code: string
  currency?: string
  /** SKU -> unit cost. */
  makes: Record<string, string>
  /** Shipping class -> [perShipment, perAdditionalItem]; default small 3.00/1.00, large 10.00/2.00. */
  costs?: Record<string, [string, string]>
  methods?: ShippingMethod[]
  perAdditionalPageCost?: string
  /** A calendar in UTC, Monday to Friday, cut-off 12:00, with these production days (per SKU where given). */
  calendar?: { productionDays: number; bySku?: Record<string, number> }
  /** Transit days [min, max] of every rate of the lab. */
  transit?: [number, number]
}

export const DEFAULT_SHIPPING_COSTS: Record<string, [string, string]> = {
  small: ['3.00', '1.00'],
  large: ['10.00', '2.00'],
}

/** SMALL and SMALL2 (class small), LARGE (class large), BOOK (small, 20 base pages); one zone for everywhere. */
export function smallCatalogueFile(labs: LabSpec[]): CatalogueFile {
  const product = (sku: string, shippingClass: string, extra: Partial<ProductEntry> = {}): ProductEntry => ({
    sku,
    description: sku,
    category: 'test',
    shippingClass,
    productDimensions: { width: 1, height: 1, units: 'in' },
    printAreas: { default: { required: true, horizontalResolution: 100, verticalResolution: 100 } },
    ...extra,
  })
  const allProducts = [
    product('SMALL', 'small'),
    product('SMALL2', 'small'),
    product('LARGE', 'large'),
    product('BOOK', 'small', { pagePricing: { basePages: 20, minimumPages: 20, maximumPages: 200 } }),
  ]
  const made = new Set(labs.flatMap((lab) => Object.keys(lab.makes)))
  return {
    formatVersion: 1,
    name: 'allocation test catalogue',
    currencies: { base: 'GBP', rates: { GBP: '1', USD: '1.25', EUR: '1.141700' } },
    shippingClasses: ['small', 'large'],
    zones: { world: { restOfWorld: true } },
    taxRates: {},
    products: allProducts.filter(({ sku }) => made.has(sku)),
    labs: labs.map(
      (lab): LabEntry => ({
        code: lab.code,
        name: lab.code,
        countryCode: 'GB',
        currency: lab.currency ?? 'GBP',
        defaultPrintFileFormat: 'jpeg',
        products: Object.entries(lab.makes).map(([sku, unitCost]) => {
          const days = lab.calendar?.bySku?.[sku]
          return {
            sku,
            unitCost,
            ...(sku === 'BOOK' ? { perAdditionalPageCost: lab.perAdditionalPageCost ?? '0.10' } : {}),
            ...(days !== undefined ? { productionDays: days } : {}),
          }
        }),
        ...(lab.calendar
          ? {
              calendar: {
                timeZone: 'UTC',
                workingDays: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'],
                cutOffTime: '12:00',
                productionDays: { default: lab.calendar.productionDays },
              },
            }
          : {}),
        shippingRates: (lab.methods ?? ['Standard']).map((method) => ({
          method,
          zone: 'world',
          carrier: `${lab.code} post`,
          service: method,
          tracked: method !== 'Budget',
          ...(lab.transit ? { transitDays: { min: lab.transit[0], max: lab.transit[1] } } : {}),
          costs: Object.fromEntries(
            Object.entries({ ...DEFAULT_SHIPPING_COSTS, ...lab.costs }).map(
              ([shippingClass, [perShipment, perAdditionalItem]]) => [
                shippingClass,
                { perShipment, perAdditionalItem },
              ],
            ),
          ),
        })),
      }),
    ),
  }
}

export function allocateOn(
  labs: LabSpec[],
  items: [string, string, number?, number?][],
  method: ShippingMethod = 'Standard',
) {
  const catalogue = parseCatalogue(smallCatalogueFile(labs), 'allocation-test.json')
  const request: AllocationRequest = {
    destinationCountryCode: 'FR',
    shippingMethod: method,
    items: items.map(([itemId, sku, copies = 1, pageCount]) =>
      item(itemId, variant(catalogue, sku), copies, pageCount ?? null),
    ),
  }
  const result = allocateShipments(catalogue, request)
  assertValidAllocation(catalogue, request, result)
  const reference = bruteForce(catalogue, request)
  assert.ok('cost' in reference)
  assert.equal(allocated(result).totalCostInBaseCurrency.minor, reference.cost, 'exact optimum')
  assert.deepEqual(labCodesByItem(request, result), reference.labCodes, 'tie-break')
  return { catalogue, request, result, ...allocated(result) }
}

// ---------------------------------------------------------------------------------------------------------
// Property tests: random small instances against the brute force
// ---------------------------------------------------------------------------------------------------------

export const CLASSES = ['small', 'medium', 'large'] as const
export const SKUS = ['P0', 'P1', 'P2', 'BOOK'] as const
export const CODES = ['a', 'a2', 'b', 'bb', 'k9', 'z'] as const

/** Small amounts in steps of 0.50 make ties common; some currencies make rounding matter. */
export const amount = fc.integer({ min: 0, max: 12 }).map((halves) => halves * 50)

export const labArbitrary = fc.record({
  currency: fc.constantFrom('GBP', 'USD', 'EUR'),
  /** Per SKU: the unit cost and per-page cost, or null when the lab does not make it. */
  makes: fc.array(fc.option(fc.tuple(amount, amount), { nil: null }), { minLength: 4, maxLength: 4 }),
  methods: fc.subarray(['Budget', 'Standard'] as ShippingMethod[], { minLength: 1 }),
  /** Per class: perShipment, perAdditionalItem (independent: either may be larger). */
  costs: fc.array(fc.tuple(amount, amount), { minLength: 3, maxLength: 3 }),
})

export const instanceArbitrary = fc.record({
  classes: fc.array(fc.constantFrom(...CLASSES), { minLength: 4, maxLength: 4 }),
  codes: fc.shuffledSubarray([...CODES], { minLength: 2, maxLength: 5 }),
  labs: fc.array(labArbitrary, { minLength: 5, maxLength: 5 }),
  items: fc.array(
    fc.record({ sku: fc.nat(3), copies: fc.integer({ min: 1, max: 3 }), pages: fc.integer({ min: 20, max: 30 }) }),
    { minLength: 1, maxLength: 6 },
  ),
  exclusions: fc.array(fc.tuple(fc.nat(5), fc.nat(4)), { maxLength: 3 }),
  method: fc.constantFrom<ShippingMethod>('Budget', 'Standard'),
})

export type Instance = typeof instanceArbitrary extends fc.Arbitrary<infer T> ? T : never

/**
 * A valid catalogue and request from a random instance (labs that make nothing make P0, so the file validates).
 * `scale` multiplies every amount and every item's copies, to push totals past float64 integers.
 */
export function buildInstance(
  instance: Instance,
  scale = { amounts: 1n, copies: 1 },
  /** Changes the catalogue file before it is read (the delivery-promise properties add calendars). */
  decorate: (file: CatalogueFile) => void = () => {},
): { catalogue: Catalogue; request: AllocationRequest } {
  const money = (minor: number) => decimal(BigInt(minor) * scale.amounts)
  const labs: LabEntry[] = instance.codes.map((code, index) => {
    const spec = instance.labs[index] ?? assert.fail('lab spec')
    const makes = spec.makes.some((entry) => entry !== null) ? spec.makes : [[100, 0] as [number, number]]
    return {
      code,
      name: code,
      countryCode: 'GB',
      currency: spec.currency,
      defaultPrintFileFormat: 'jpeg',
      products: makes.flatMap((entry, sku) =>
        entry === null
          ? []
          : [
              SKUS[sku] === 'BOOK'
                ? { sku: 'BOOK', unitCost: money(entry[0]), perAdditionalPageCost: money(entry[1]) }
                : { sku: SKUS[sku] ?? 'P0', unitCost: money(entry[0]) },
            ],
      ),
      shippingRates: spec.methods.map((method) => ({
        method,
        zone: 'world',
        carrier: `${code} carrier`,
        service: method,
        tracked: false,
        costs: Object.fromEntries(
          CLASSES.map((shippingClass, index) => {
            const [perShipment, perAdditionalItem] = spec.costs[index] ?? [100, 100]
            return [shippingClass, { perShipment: money(perShipment), perAdditionalItem: money(perAdditionalItem) }]
          }),
        ),
      })),
    }
  })
  const made = SKUS.filter((sku) => labs.some((lab) => lab.products.some((entry) => entry.sku === sku)))
  const file: CatalogueFile = {
    formatVersion: 1,
    name: 'random',
    currencies: { base: 'GBP', rates: { GBP: '1', USD: '1.310000', EUR: '1.141700' } },
    shippingClasses: [...CLASSES],
    zones: { world: { restOfWorld: true } },
    taxRates: {},
    products: made.map((sku) => ({
      sku,
      description: sku,
      category: 'test',
      shippingClass: instance.classes[SKUS.indexOf(sku)] ?? 'small',
      productDimensions: { width: 1, height: 1, units: 'in' },
      printAreas: { default: { required: true, horizontalResolution: 10, verticalResolution: 10 } },
      ...(sku === 'BOOK' ? { pagePricing: { basePages: 20, minimumPages: 20, maximumPages: 40 } } : {}),
    })),
    labs,
  }
  decorate(file)
  const catalogue = parseCatalogue(file, 'random.json')
  const items = instance.items.map(({ sku, copies, pages }, index) => {
    const chosen = made[sku % made.length] ?? 'P0'
    return item(`it_${index}`, variant(catalogue, chosen), copies * scale.copies, chosen === 'BOOK' ? pages : null)
  })
  const excludedLabsByItem: Record<string, string[]> = {}
  for (const [itemIndex, labIndex] of instance.exclusions) {
    const itemId = items[itemIndex % items.length]?.itemId ?? 'it_0'
    const code = instance.codes[labIndex % instance.codes.length] ?? 'a'
    excludedLabsByItem[itemId] = [...(excludedLabsByItem[itemId] ?? []), code]
  }
  return {
    catalogue,
    request: { destinationCountryCode: 'FR', shippingMethod: instance.method, items, excludedLabsByItem },
  }
}

// ---------------------------------------------------------------------------------------------------------
// Larger orders: exact limit, heuristic beyond it, and measured times
// ---------------------------------------------------------------------------------------------------------

/**
 * `labCount` labs that each make all `productCount` products and ship them everywhere: every item can go to every
 * lab, the most work the exact search can have. Costs come from a fixed pseudo-random sequence (or are all equal).
 */
export function denseCatalogue(labCount: number, productCount: number, identical = false): Catalogue {
  let seed = 12345
  const next = (max: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return identical ? Math.floor(max / 2) : seed % max
  }
  const currencies = ['GBP', 'USD', 'EUR', 'AUD', 'CAD']
  const classes = ['envelope', 'flat', 'parcel', 'box', 'large-box']
  const file: CatalogueFile = {
    formatVersion: 1,
    name: 'dense',
    currencies: { base: 'GBP', rates: { GBP: '1', USD: '1.3100', EUR: '1.1400', AUD: '2.0200', CAD: '1.8400' } },
    shippingClasses: classes,
    zones: { world: { restOfWorld: true } },
    taxRates: {},
    products: Array.from({ length: productCount }, (_, index) => ({
      sku: `P${index}`,
      description: `product ${index}`,
      category: 'test',
      shippingClass: classes[index % classes.length] ?? 'box',
      productDimensions: { width: 1, height: 1, units: 'in' },
      printAreas: { default: { required: true, horizontalResolution: 10, verticalResolution: 10 } },
    })),
    labs: Array.from({ length: labCount }, (_, index) => ({
      code: `lab${String(index).padStart(2, '0')}`,
      name: `lab ${index}`,
      countryCode: 'GB',
      currency: identical ? 'GBP' : (currencies[index % currencies.length] ?? 'GBP'),
      defaultPrintFileFormat: 'jpeg' as const,
      products: Array.from({ length: productCount }, (_, product) => ({
        sku: `P${product}`,
        unitCost: decimal(500 + next(3000)),
      })),
      shippingRates: [
        {
          method: 'Standard' as const,
          zone: 'world',
          carrier: 'post',
          service: 'standard',
          tracked: true,
          costs: Object.fromEntries(
            classes.map((shippingClass, rank) => [
              shippingClass,
              { perShipment: decimal(300 + rank * 200 + next(900)), perAdditionalItem: decimal(50 + next(300)) },
            ]),
          ),
        },
      ],
    })),
  }
  return parseCatalogue(file, 'dense.json')
}

export function denseRequest(catalogue: Catalogue, itemCount: number): AllocationRequest {
  const products = catalogue.products.length
  return {
    destinationCountryCode: 'FR',
    shippingMethod: 'Standard',
    items: Array.from({ length: itemCount }, (_, index) =>
      item(`ori_${index}`, variant(catalogue, `P${index % products}`), 1 + (index % 3)),
    ),
  }
}

export function timeRuns(runs: number, run: () => void): { median: number; max: number } {
  const times: number[] = []
  for (let index = 0; index < runs; index++) {
    const started = performance.now()
    run()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { median: times[Math.floor(times.length / 2)] ?? 0, max: times[times.length - 1] ?? 0 }
}
