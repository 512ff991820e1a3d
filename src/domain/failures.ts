// Validation failures as the wire contract reports them: a map from the request path
// (`recipient.address.countryCode`, `items[0].attributes`) to the list of problems found there.
// Codes are stable and documented in docs/errors.md; add new ones there too.

export type FailureCode =
  | 'Required'
  | 'MustNotBeEmptyOrWhitespace'
  | 'UnknownField'
  | 'InvalidType'
  | 'InvalidValue'
  | 'InvalidFormat'
  | 'InvalidCharacter'
  | 'TooLong'
  | 'TooShort'
  | 'TooFew'
  | 'TooMany'
  | 'MustBeGreaterThanOrEqualTo'
  | 'MustBeLessThanOrEqualTo'
  | 'MalformedJson'
  | 'TooDeeplyNested'
  | 'NotAValidCountryCode'
  | 'UnknownSku'
  | 'UnknownAttribute'
  | 'InvalidAttributeValue'
  | 'MissingRequiredAttributes'
  | 'UnknownPrintArea'
  | 'DuplicatePrintArea'
  | 'MissingRequiredPrintArea'
  | 'PageCountRequired'
  | 'NotAvailableForDestination'
  | 'ShippingMethodNotAvailable'
  | 'ChangeOfDestinationCountryNotPossible'
  | 'UnknownCurrency'
  | 'NoCommonShippingMethod'
  | 'ProductHasNoSpine'
  | 'ProductHasNoCover'
  | 'RequiresRotateSigningSecret'
  | 'QuoteNotFound'
  | 'QuoteExpired'
  | 'QuoteAlreadyUsed'
  | 'DiffersFromQuote'
  | 'CurrencyDiffersFromQuote'
  | 'DeliveryDateUnreachable'
  | 'NotDownloaded'
  | 'NotAnImage'
  | 'ImageTooLarge'
  | 'ShipmentNotShipped'
  | 'ShipmentCancelled'
  | 'TooManyTrackingEvents'
  | 'ItemAlreadyShipped'
  | 'CancellationNotRequested'
  | 'CancellationAlreadyAnswered'
  | 'CancellationRequestLapsed'
  | 'ClaimAlreadyAnswered'
  | 'ClaimNotPending'
  | 'UnknownEvidence'
  | 'EvidenceInUse'
  | 'InvalidPostcode'
  | 'UnknownState'
  | 'PhoneNumberRequired'
  | 'WebhookEndpointDisabled'
  | 'EvidenceAlreadyUsed'
  | 'ClaimAlreadyOpen'
  | 'ClaimWindowClosed'
  | 'LabsDiffer'
  | 'ShipmentDelivered'
  | 'NotYetDue'

export interface Failure {
  code: FailureCode
  providedValue: unknown
  comparisonValue?: unknown
  validValues?: unknown[]
  missingItems?: { attributes: { name: string; validValues: string[] }[] }
}

export type Failures = Record<string, Failure[]>

/**
 * Adds one failure under `path`, keeping every failure already recorded there. Paths come from request
 * field names, so `constructor` or `__proto__` must be treated as plain keys, never as inherited members.
 */
export function addFailure(failures: Failures, path: string, failure: Failure): void {
  const list = Object.hasOwn(failures, path) ? failures[path] : undefined
  if (list) list.push(failure)
  else Object.defineProperty(failures, path, { value: [failure], enumerable: true, writable: true, configurable: true })
}

export function hasFailures(failures: Failures): boolean {
  for (const _ in failures) return true
  return false
}
