// The first order `printroute serve` suggests on its first start, and README.md shows (a test holds the two
// to the same text). It uses a bundled sample image on the Sandbox's own address, so it completes on a
// machine without internet, and an idempotency key, so pasting it twice places one order. An 8x10 print: the
// sample (1200x1800) gives it 150 dpi, the product's minimum, so the first order carries no LowResolution issue.
// Each curl ends its answer with a newline (`-w '\n'`): pasted whole, the two answers print on lines of their own.
import { SAMPLE_PATH_PREFIX } from '../adapters/sample-images.ts'

export const FIRST_ORDER_REFERENCE = 'my-first-order'
export const FIRST_ORDER_SAMPLE = 'portrait.jpg'

/** The shell lines that place the first order and watch it, for a Sandbox at `sandboxUrl` (no /v4.0). */
export function firstOrderCommands(sandboxUrl: string, sandboxKey: string): string {
  const body = `{
    "merchantReference": "${FIRST_ORDER_REFERENCE}",
    "idempotencyKey": "${FIRST_ORDER_REFERENCE}",
    "shippingMethod": "Budget",
    "recipient": {
      "name": "Ada Lovelace",
      "address": { "line1": "14 Test Street", "postalOrZipCode": "EC1A 1BB", "countryCode": "GB", "townOrCity": "London" }
    },
    "items": [
      { "sku": "GLOBAL-FAP-8x10", "copies": 1, "sizing": "fillPrintArea",
        "assets": [ { "printArea": "default", "url": "${sandboxUrl}${SAMPLE_PATH_PREFIX}${FIRST_ORDER_SAMPLE}" } ] }
    ]
  }'`
  return [
    `KEY=${sandboxKey}`,
    `curl -s -w '\\n' -X POST ${sandboxUrl}/v4.0/orders \\`,
    `  -H "X-API-Key: $KEY" -H 'Content-Type: application/json' \\`,
    `  -d '${body}`,
    `curl -s -w '\\n' '${sandboxUrl}/v4.0/orders?merchantReferences=${FIRST_ORDER_REFERENCE}' -H "X-API-Key: $KEY"`,
  ].join('\n')
}
