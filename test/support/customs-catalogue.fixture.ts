// The test catalogue (test-catalogue.fixture.ts) with customs data and import rules, for duty outcomes computed
// by hand (docs/catalogue.md#customs):
//
//   TEST-TEE 610910 (chapter 61), 180 g; TEST-CANVAS 491191 (chapter 49), 900 g; TEST-BOOK 490199, 600 g;
//   TEST-FRAME 491191, 800 g, its black/large variant 4911910000 made in IT, 2400 g; TEST-CASE none.
//   AUD is added at 2 per GBP.
//   EU  (DE, FR; customs union): EUR 150, IOSS; chapter 61 at 12%, 49 at 0%; import VAT from taxRates (DE 19%)
//   UK  (GB): GBP 135, VAT at sale; chapter 61 at 12%; VAT 20% from taxRates
//   US  : no threshold; chapter 61 at 16.5%; import tax 0
//   AU  : AUD 1000, GST at sale; chapter 49 at 0%, any other 5%; GST 10%
import { parseCatalogue } from '../../src/catalogue/catalogue.loader.ts'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import type { CatalogueFile } from '../../src/domain/catalogue.types.ts'
import { testCatalogueFile } from './test-catalogue.fixture.ts'

export function customsTestCatalogueFile(): CatalogueFile {
  const file = testCatalogueFile()
  file.currencies.rates.AUD = '2'
  const customs: Record<string, NonNullable<CatalogueFile['products'][number]['customs']>> = {
    'TEST-TEE': { hsCode: '610910', weightGrams: 180 },
    'TEST-CANVAS': { hsCode: '491191', weightGrams: 900 },
    'TEST-BOOK': { hsCode: '490199', weightGrams: 600 },
    'TEST-FRAME': { hsCode: '491191', weightGrams: 800 },
  }
  for (const product of file.products) {
    const data = customs[product.sku]
    if (data) product.customs = data
  }
  const frame = file.products.find((product) => product.sku === 'TEST-FRAME')
  const large = frame?.variants?.find((variant) => variant.attributes.size === 'large')
  if (large) large.customs = { hsCode: '4911910000', originCountryCode: 'IT', weightGrams: 2400 }
  file.taxRates.AU = { name: 'GST', ratePercent: '10' }
  file.importRules = [
    {
      name: 'European Union',
      destinations: ['DE', 'FR'],
      customsUnion: true,
      currency: 'EUR',
      lowValueThreshold: '150.00',
      lowValueVatCollection: 'ioss',
      dutyPercentByHsChapter: { '49': '0', '61': '12' },
      defaultDutyPercent: '0',
      effectiveDate: '2021-07-01',
      source: 'test: EU VAT e-commerce package',
    },
    {
      name: 'United Kingdom',
      destinations: ['GB'],
      currency: 'GBP',
      lowValueThreshold: '135.00',
      lowValueVatCollection: 'atSale',
      dutyPercentByHsChapter: { '61': '12' },
      defaultDutyPercent: '0',
      effectiveDate: '2021-01-01',
      source: 'test: HMRC',
    },
    {
      name: 'United States',
      destinations: ['US'],
      currency: 'USD',
      importTaxPercent: '0',
      dutyPercentByHsChapter: { '61': '16.5' },
      defaultDutyPercent: '0',
      effectiveDate: '2025-08-29',
      source: 'test: EO 14324',
    },
    {
      name: 'Australia',
      destinations: ['AU'],
      currency: 'AUD',
      lowValueThreshold: '1000.00',
      lowValueVatCollection: 'atSale',
      dutyPercentByHsChapter: { '49': '0' },
      defaultDutyPercent: '5',
      effectiveDate: '2018-07-01',
      source: 'test: GST low value goods',
    },
  ]
  return file
}

export function customsTestCatalogue(): Catalogue {
  return parseCatalogue(customsTestCatalogueFile(), 'customs-test-catalogue')
}
