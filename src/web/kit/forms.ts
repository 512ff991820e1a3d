// Dashboard forms: their values read as typed and handed to the API as they are (so the API, not the page, says
// what is wrong), and the API's validation failures shown back on the form: each in words, next to the field it
// is about when the page knows that field, and all of them in a summary at the top that links to the fields.
import { type ApiBody, type ApiFailure, scopeRefusalText } from './api-client.ts'
import { type Html, html } from './html.ts'

/** A posted form or a query string, as Fastify parses them (a repeated name gives a list). */
export type FormValues = Record<string, string | string[] | undefined>

/** A form value as typed ('' when absent; the first when repeated). */
export function formValue(values: FormValues, name: string): string {
  const value = values[name]
  return typeof value === 'string' ? value : (value?.[0] ?? '')
}

/** A whole number as a number; anything else as typed, so the API names the field and the reason. */
export function integerOrText(value: string): number | string {
  return /^\d{1,9}$/.test(value) ? Number(value) : value
}

/** A failure as the API sends it (docs/errors.md), with the extra fields some codes carry. */
interface Failure extends ApiFailure {
  validValues?: unknown[]
  missingItems?: { attributes?: { name: string }[] }
}

/** Where a failure path shows on the form: the field's id and its name in the summary. */
export interface FieldTarget {
  id: string
  label: string
}

function listed(values: unknown[] | undefined): string {
  return (values ?? []).map(String).join(', ')
}

/** One failure in words, as the end of a sentence about its field ("must be at least 1"). */
export function failureWords(failure: Failure): string {
  const bound = failure.comparisonValue
  switch (failure.code) {
    case 'Required':
      return 'is required'
    case 'MustNotBeEmptyOrWhitespace':
      return 'must not be empty'
    case 'InvalidType':
      // A blank optional-looking field is sent as null, which a required field refuses by its type.
      if (failure.providedValue === null) return 'is required'
      return bound === 'integer' ? 'must be a whole number' : `must be of type ${bound}`
    case 'InvalidFormat':
      return bound === undefined ? 'is not in the right format' : `is not valid: ${bound}`
    case 'InvalidCharacter':
      return `contains a character that is not allowed (${bound})`
    case 'TooLong':
      return `is too long (at most ${bound} characters)`
    case 'TooShort':
      return `is too short (at least ${bound})`
    case 'MustBeGreaterThanOrEqualTo':
      return `must be at least ${bound}`
    case 'MustBeLessThanOrEqualTo':
      return `must be at most ${bound}`
    case 'InvalidValue':
    case 'InvalidAttributeValue':
      return `must be one of: ${listed(failure.validValues)}`
    case 'NotAValidCountryCode':
      return 'is not a country code'
    case 'UnknownSku':
      return 'is not a product of the catalogue'
    case 'UnknownAttribute':
      return `is not an attribute of the product (it has: ${listed(failure.validValues)})`
    case 'MissingRequiredAttributes':
      return `needs a value for: ${(failure.missingItems?.attributes ?? []).map((attribute) => attribute.name).join(', ')}`
    case 'UnknownPrintArea':
      return `is not a print area of the product (it has: ${listed(failure.validValues)})`
    case 'DuplicatePrintArea':
      return 'has two images for one print area'
    case 'MissingRequiredPrintArea':
      return `needs an image for the print area: ${listed(failure.validValues)}`
    case 'PageCountRequired':
      return 'needs the page count (page-priced products such as photo books)'
    case 'NotAvailableForDestination':
      return 'is not made for this destination'
    case 'ShippingMethodNotAvailable':
      return `is not available for this destination${failure.validValues ? ` (available: ${listed(failure.validValues)})` : ''}`
    case 'AddressProblem':
      // The dashboard's own: an address check's message, already in words (new order).
      return String(bound)
    case 'InvalidPostcode':
      return `is not a postcode of the country${bound ? ` (suggested: ${bound})` : ''}`
    case 'UnknownState':
      return 'is not a state or province of the country'
    case 'PhoneNumberRequired':
      return "is needed: the shipping method's carrier calls the recipient"
    case 'NoCommonShippingMethod':
      return 'has no shipping method that carries every item: quote the items separately'
    // Claims (docs/claims.md): the rules the claims API names a field for.
    case 'TooFew':
      return `needs at least ${bound}`
    case 'TooMany':
      return `takes at most ${bound}`
    case 'ClaimAlreadyOpen':
      return `already has an open claim (${bound})`
    case 'ClaimWindowClosed':
      return `can no longer be claimed: the window closed at ${bound}`
    case 'NotYetDue':
      return `cannot be reported missing before its estimated delivery (${bound})`
    case 'LabsDiffer':
      return 'was made by another lab than the other items: report it in a claim of its own'
    case 'ShipmentDelivered':
      return 'is tracked as delivered: report a problem with its items instead'
    case 'ShipmentNotShipped':
      return 'has not shipped yet'
    case 'ShipmentCancelled':
      return 'was cancelled'
    case 'UnknownEvidence':
      return 'is not a photo of yours'
    case 'EvidenceInUse':
    case 'EvidenceAlreadyUsed':
      return 'is already part of another claim'
    default:
      return [failure.code, bound].filter((part) => part !== undefined && part !== null).join(' ')
  }
}

/** `postalOrZipCode` -> `Postal or zip code`, for paths the page has no label of its own for. */
export function labelOfPath(path: string): string {
  const last = path.split('.').at(-1) ?? path
  const words = last.replace(/\[\d+\]/g, '').replace(/([a-z])([A-Z])/g, '$1 $2')
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase()
}

export interface FieldErrors {
  /** The messages about one field, for showing next to it. */
  of(id: string): string[]
  /** Every failure in words with the field it links to (null when the page shows no such field). */
  all: { target: FieldTarget | null; path: string; text: string }[]
}

/** Sorts an error answer's failures onto the form's fields; `targetOf` knows the form's field ids. */
export function fieldErrors(body: ApiBody | null, targetOf: (path: string) => FieldTarget | null): FieldErrors {
  const all = Object.entries((body?.failures ?? {}) as Record<string, Failure[]>).flatMap(([path, failures]) =>
    failures.map((failure) => ({ target: targetOf(path), path, text: failureWords(failure) })),
  )
  return {
    all,
    of: (id) => all.filter((entry) => entry.target?.id === id).map((entry) => entry.text),
  }
}

export const NO_ERRORS: FieldErrors = fieldErrors(null, () => null)

/** The messages of a field, with the id its input names in aria-describedby. */
export function fieldMessages(errors: FieldErrors, id: string): Html {
  const messages = errors.of(id)
  return messages.length === 0 ? html`` : html`<p class="field-error" id="${id}-error">${messages.join('; ')}</p>`
}

/** ` aria-invalid aria-describedby` for an input whose field has messages. */
export function invalidAttributes(errors: FieldErrors, id: string): Html {
  return errors.of(id).length === 0 ? html`` : html` aria-invalid="true" aria-describedby="${id}-error"`
}

/** The answer's own words, then each failure linked to its field: the first thing read after a refused form. */
export function errorSummary(body: ApiBody | null, errors: FieldErrors, title: string): Html {
  if (!body) return html``
  return html`<div class="notice notice-error error-summary" role="alert">
<h2>${title}</h2>
<p>${scopeRefusalText(body) ?? body.statusText ?? body.outcome}</p>
${
  errors.all.length > 0
    ? html`<ul>${errors.all.map(
        (entry) =>
          html`<li>${entry.target ? html`<a href="#${entry.target.id}">${entry.target.label}</a>` : html`<code>${entry.path}</code>`} ${entry.text}</li>`,
      )}</ul>`
    : ''
}
</div>`
}
