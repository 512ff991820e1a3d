// The address rules of every country, bundled and offline (docs/addresses.md): what a carrier needs to deliver a
// parcel there, and the address in the normal form carriers expect. Checked on POST /v4.0/addresses/validate, on
// order create and on the update-recipient action; described by GET /v4.0/countries.
//
// Data: postcode patterns from the npm package postcode-validator (MIT), subdivision codes and names (ISO 3166-2)
// from country-region-data (MIT); both pinned in package-lock.json, so the rules change only with a deliberate
// upgrade. The small tables below (normal forms, countries needing a state, field lengths, carriers needing a
// phone) are what those packages do not hold; each says where it comes from.
import { allCountries } from 'country-region-data'
import { POSTCODE_REGEXES } from 'postcode-validator/lib/cjs/postcode-regexes.js'
import type { Catalogue } from './catalogue.ts'
import { isIsoCountryCode } from './country-codes.ts'
import { addFailure, type Failures } from './failures.ts'
import type { Address, AddressAdvisory } from './order.ts'
import { ISSUE_CODES } from './pipeline/pipeline-order.ts'
import type { ShippingMethod } from './shipping-methods.ts'

/** The date the bundled data was taken (the packages' versions in package-lock.json: postcode-validator 3.10.22,
 * country-region-data 4.1.0). The hand tables below were last checked against their sources on 2026-11-29
 * (docs/addresses.md#what-was-checked-against-what). */
export const ADDRESS_RULES_DATA_DATE = '2026-11-28'
export const ADDRESS_RULES_SOURCES = [
  { package: 'postcode-validator', version: '3.10.22', licence: 'MIT', provides: 'postcode patterns' },
  { package: 'country-region-data', version: '4.1.0', licence: 'MIT', provides: 'ISO 3166-2 subdivisions' },
] as const

/**
 * What an environment of an account does with an order whose address has problems (the account setting
 * `addressValidation`, docs/addresses.md#modes): `warn` creates it, a problem that stops delivery as the issue
 * order.recipient.AddressUnverified (CreatedWithIssues); `refuse` answers 400 for such a problem; `off` checks
 * nothing. In `warn` and `refuse` alike, a problem that does not stop delivery is an advisory on the order and never
 * changes the outcome.
 */
export const ADDRESS_VALIDATION_MODES = ['warn', 'refuse', 'off'] as const
export type AddressValidationMode = (typeof ADDRESS_VALIDATION_MODES)[number]

/** The mode stored for an environment; `warn` for anything else (the column's default). */
export function parseAddressValidationMode(value: string | null | undefined): AddressValidationMode {
  return value === 'refuse' || value === 'off' ? value : 'warn'
}

export const ADDRESS_FIELDS = ['line1', 'line2', 'postalOrZipCode', 'townOrCity', 'stateOrCounty'] as const
export type AddressField = (typeof ADDRESS_FIELDS)[number]

/**
 * A recipient's address as the wire gives it, an order's or one sent to be checked; a country's rules check it once
 * its countryCode is known to be theirs.
 */
export interface CheckedAddress {
  line1: string
  line2?: string | null
  postalOrZipCode: string
  countryCode: string
  townOrCity: string
  stateOrCounty?: string | null
}

/** A country's address as normal form makes it: the order's address, absent optional fields null. */
export type NormalisedAddress = Address

export const ADDRESS_PROBLEM_CODES = [
  'Required',
  'InvalidPostcode',
  'UnknownState',
  'TooLong',
  'PhoneNumberRequired',
] as const
export type AddressProblemCode = (typeof ADDRESS_PROBLEM_CODES)[number]

/**
 * Whether a problem stops delivery (`blocking`: the carrier cannot deliver, or refuses the label) or only makes it
 * less smooth (`advisory`: the parcel still goes). Only blocking problems make an order's issue, its
 * CreatedWithIssues outcome or, in `refuse` mode, its refusal (docs/addresses.md#blocking-problems-and-advisories).
 */
export const ADDRESS_PROBLEM_SEVERITIES = ['blocking', 'advisory'] as const
export type AddressProblemSeverity = (typeof ADDRESS_PROBLEM_SEVERITIES)[number]

// Why each code has its severity (docs/addresses.md#blocking-problems-and-advisories):
// - Required: no street, town or postcode (where the country has postcodes): nothing to route by; the couriers' label
//   APIs refuse them. A state is blocking only where the couriers refuse the label without one (US, CA); in AU, BR,
//   MX and IN the postcode routes the parcel and a missing state is an advisory (see STATE_STOPS_DELIVERY).
// - InvalidPostcode: sorting runs on the postcode; a courier's label API refuses one that breaks its format.
// - UnknownState: as a missing state (a code the couriers do not know is refused like none).
// - TooLong: the express couriers cut or wrap a field over their label limit; postal services take longer ones.
//   The parcel still goes, possibly with the end of a line lost: worth telling, not worth stopping the order.
// - PhoneNumberRequired: couriers want a number to call about delivery and duties, but deliver without one (the
//   lab puts its own or the merchant's on the label): worth telling, not worth stopping the order.
const PROBLEM_SEVERITIES: Readonly<Record<AddressProblemCode, AddressProblemSeverity>> = {
  Required: 'blocking',
  InvalidPostcode: 'blocking',
  UnknownState: 'blocking',
  TooLong: 'advisory',
  PhoneNumberRequired: 'advisory',
}

/** Whether a problem of this code stops delivery (a state's problems: per country, CountryAddressRules). */
export function problemSeverity(code: AddressProblemCode): AddressProblemSeverity {
  return PROBLEM_SEVERITIES[code]
}

/**
 * One thing wrong with an address: `field` is the address field (`postalOrZipCode`) or `phoneNumber`; `severity`
 * whether it stops delivery.
 */
export interface AddressProblem {
  field: AddressField | 'phoneNumber'
  code: AddressProblemCode
  message: string
  severity: AddressProblemSeverity
}

/** The order's path of a problem's field: `recipient.phoneNumber`, `recipient.address.line1`. */
export function recipientFieldPath(field: AddressProblem['field']): string {
  return field === 'phoneNumber' ? 'recipient.phoneNumber' : `recipient.address.${field}`
}

/** The problems that stop delivery, and the advisories (as the order shows them) of the others. */
export function splitAddressProblems(problems: readonly AddressProblem[]): {
  blocking: AddressProblem[]
  advisories: AddressAdvisory[]
} {
  return {
    blocking: problems.filter((problem) => problem.severity === 'blocking'),
    advisories: problems
      .filter((problem) => problem.severity === 'advisory')
      .map((problem) => ({ field: recipientFieldPath(problem.field), code: problem.code, message: problem.message })),
  }
}

export interface Subdivision {
  /** The ISO 3166-2 code without the country prefix: `CA` for US-CA. */
  code: string
  name: string
}

/** What carriers need of an address in one country. */
export interface CountryAddressRules {
  countryCode: string
  /** The postcode's pattern (a regular expression's source, matched against the normal form); null: none known. */
  postcodePattern: string | null
  /** A postcode in normal form, for messages and the countries endpoint; null when the country has no pattern. */
  postcodeExample: string | null
  /** Fields an address there must have (non-blank). */
  requiredFields: AddressField[]
  /** Whether an address there has a state or province (`stateOrCounty`), given as one of `subdivisions`. */
  stateRequired: boolean
  /**
   * Whether a missing or unknown state stops delivery (the couriers' label APIs refuse the shipment: US, CA); where
   * the state is required but the postcode alone routes the parcel, such a problem is an advisory.
   */
  stateStopsDelivery: boolean
  /** The country's ISO 3166-2 subdivisions; empty when the data has none. */
  subdivisions: Subdivision[]
  /** The longest each field may be, in characters. */
  maxLengths: Record<AddressField, number>
}

// The express couriers' label limits (docs/addresses.md#where-the-rules-come-from), the smallest of them: address
// lines 35 (FedEx Ship API streetLines, UPS Shipping API AddressLine; DHL Express takes 45), town 30 (UPS City: "30
// characters are accepted"; FedEx and DHL Express take 35), state or county 30 (UPS WorldShip's State/Province/County;
// where a state is required printroute's normal form is its ISO code, two or three characters). Postcodes: no
// country's pattern matches more than 10 characters, so 20 is a bound on nonsense, not a carrier's limit. A field
// over its limit is an advisory: the couriers cut or wrap it, postal services take longer ones. Checked 2026-11-29.
const MAX_LENGTHS: Record<AddressField, number> = {
  line1: 35,
  line2: 35,
  postalOrZipCode: 20,
  townOrCity: 30,
  stateOrCounty: 30,
}

// Countries whose addresses carry a state or province: the six where Google's address metadata (libaddressinput,
// `require` holding S) and the national postal operators agree and printroute's sample catalogue ships (USPS Pub 28
// and DMM 602 1.3, Canada Post, Australia Post, Correios, Correos de Mexico, India Post). libaddressinput requires S
// for some thirty more regions (IT, ES, CN, JP, KR, RU, ...); printroute does not check those yet: whether their
// postal services' province spellings match the bundled ISO 3166-2 names has not been verified. Checked 2026-11-29.
const STATE_REQUIRED: ReadonlySet<string> = new Set(['US', 'CA', 'AU', 'BR', 'MX', 'IN'])

// Of those, where a missing or unknown state stops the parcel: the FedEx Ship API requires StateOrProvinceCode "only
// if recipient country is U.S. or Canada" (or Mexico with an export declaration) and the UPS Shipping API's
// StateProvinceCode is "required for US or Canada", valid codes only; USPS's DMM 602 1.3 makes city and state part of
// every US delivery address. Elsewhere the postcode routes the parcel and the state is an advisory. Checked 2026-11-29.
const STATE_STOPS_DELIVERY: ReadonlySet<string> = new Set(['US', 'CA'])

/**
 * Normal forms the postcode patterns allow several spellings of: given the postcode's letters and digits alone,
 * its normal form. Countries not listed keep the spelling the pattern matches (spaces collapsed, upper case; digits
 * without separators).
 * From the national postal operators' published formats (Royal Mail, Canada Post, PostNL, Japan Post, ...).
 */
const POSTCODE_NORMAL_FORMS: Readonly<Record<string, (compact: string) => string>> = {
  GB: spaceBeforeLast(3),
  GG: spaceBeforeLast(3),
  JE: spaceBeforeLast(3),
  IM: spaceBeforeLast(3),
  IE: spaceAfter(3),
  CA: spaceAfter(3),
  NL: spaceAfter(4),
  SE: spaceAfter(3),
  CZ: spaceAfter(3),
  SK: spaceAfter(3),
  GR: spaceAfter(3),
  JP: (compact) => (compact.length === 7 ? `${compact.slice(0, 3)}-${compact.slice(3)}` : compact),
  PL: (compact) => (compact.length === 5 ? `${compact.slice(0, 2)}-${compact.slice(2)}` : compact),
  BR: (compact) => (compact.length === 8 ? `${compact.slice(0, 5)}-${compact.slice(5)}` : compact),
  PT: (compact) => (compact.length === 7 ? `${compact.slice(0, 4)}-${compact.slice(4)}` : compact),
  US: (compact) => (compact.length === 9 ? `${compact.slice(0, 5)}-${compact.slice(5)}` : compact),
}

// Examples of valid postcodes, for messages: only where the normal form is not obvious from the pattern.
const POSTCODE_EXAMPLES: Readonly<Record<string, string>> = {
  GB: 'EC1A 1BB',
  US: '94103',
  CA: 'K1A 0B1',
  DE: '10115',
  FR: '75001',
  NL: '1012 AB',
  AU: '2000',
  JP: '100-0001',
  IE: 'D02 X285',
  SE: '114 55',
  PL: '00-950',
  PT: '1000-001',
  BR: '01310-100',
}

function spaceBeforeLast(count: number): (compact: string) => string {
  return (compact) => (compact.length > count ? `${compact.slice(0, -count)} ${compact.slice(-count)}` : compact)
}

function spaceAfter(count: number): (compact: string) => string {
  return (compact) => (compact.length > count ? `${compact.slice(0, count)} ${compact.slice(count)}` : compact)
}

const postcodePatterns = POSTCODE_REGEXES as ReadonlyMap<string, RegExp>
const subdivisionsByCountry = new Map<string, Subdivision[]>(
  allCountries.map(([, code, regions]) => [code, regions.map(([name, regionCode]) => ({ code: regionCode, name }))]),
)
const rulesCache = new Map<string, CountryAddressRules>()

/** The address rules of a country (ISO 3166-1 alpha-2, any case), or undefined when the code is no country. */
export function addressRulesFor(countryCode: string): CountryAddressRules | undefined {
  const code = countryCode.toUpperCase()
  if (!isIsoCountryCode(code)) return undefined
  const cached = rulesCache.get(code)
  if (cached) return cached
  const pattern = postcodePatterns.get(code)
  const stateRequired = STATE_REQUIRED.has(code)
  const rules: CountryAddressRules = {
    countryCode: code,
    postcodePattern: pattern ? pattern.source : null,
    postcodeExample: pattern ? (POSTCODE_EXAMPLES[code] ?? null) : null,
    requiredFields: [
      'line1',
      'townOrCity',
      ...(pattern ? (['postalOrZipCode'] as const) : []),
      ...(stateRequired ? (['stateOrCounty'] as const) : []),
    ],
    stateRequired,
    stateStopsDelivery: STATE_STOPS_DELIVERY.has(code),
    subdivisions: subdivisionsByCountry.get(code) ?? [],
    maxLengths: MAX_LENGTHS,
  }
  rulesCache.set(code, rules)
  return rules
}

/** Trims, and turns runs of whitespace into one space. */
function tidy(value: string): string {
  return value.trim().replace(/\s+/g, ' ')
}

function tidyOrNull(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null
  const tidied = tidy(value)
  return tidied === '' ? null : tidied
}

/** The postcode in normal form when some spelling of it matches the pattern; else undefined. */
export function normalPostcode(rules: CountryAddressRules, postcode: string): string | undefined {
  const pattern = postcodePatterns.get(rules.countryCode)
  const spaced = tidy(postcode).toUpperCase()
  if (!pattern) return spaced
  const compact = spaced.replace(/[\s-]/g, '')
  const normalForm = POSTCODE_NORMAL_FORMS[rules.countryCode]
  // Digits alone are written without separators where no normal form says otherwise (`75 001` -> `75001`).
  const digitsOnly = /^\d+$/.test(compact) ? compact : undefined
  const candidates = [normalForm ? normalForm(compact) : undefined, digitsOnly, spaced, compact]
  return candidates.find((candidate) => candidate !== undefined && pattern.test(candidate))
}

/** Folds accents and case so `québec` finds `Quebec`. */
function foldName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
}

/** The subdivision a state field names (its code, `US-CA` or its name, any case); undefined when none. */
export function findSubdivision(rules: CountryAddressRules, state: string): Subdivision | undefined {
  const upper = tidy(state).toUpperCase()
  const code = upper.startsWith(`${rules.countryCode}-`) ? upper.slice(rules.countryCode.length + 1) : upper
  const byCode = rules.subdivisions.find((subdivision) => subdivision.code.toUpperCase() === code)
  if (byCode) return byCode
  const folded = foldName(state)
  return rules.subdivisions.find((subdivision) => foldName(subdivision.name) === folded)
}

/**
 * Whether carriers need a phone number: `methodsNeedingPhone` are the shipping methods to the country whose
 * carriers need one (see `phoneRequiredMethods`). With a method: whether it is among them; without one (an address
 * checked on its own), only when every method the country has needs one.
 */
export interface PhoneRequirement {
  methodsNeedingPhone: readonly string[]
  methodsToCountry: readonly string[]
  shippingMethod?: string
}

function phoneRequired(requirement: PhoneRequirement | undefined): boolean {
  if (!requirement || requirement.methodsNeedingPhone.length === 0) return false
  if (requirement.shippingMethod !== undefined)
    return requirement.methodsNeedingPhone.includes(requirement.shippingMethod)
  return requirement.methodsToCountry.every((method) => requirement.methodsNeedingPhone.includes(method))
}

function problemOf(
  field: AddressProblem['field'],
  code: AddressProblemCode,
  message: string,
  severity: AddressProblemSeverity = problemSeverity(code),
): AddressProblem {
  return { field, code, message, severity }
}

/**
 * Checks an address against its country's rules: the problems found (none: the address is fine) and the address
 * in normal form (postcode spaced and upper-cased, a state's name turned into its code, whitespace trimmed), which
 * carries the typed value wherever no normal form is known.
 */
export function checkAddress(
  rules: CountryAddressRules,
  address: CheckedAddress,
  phone?: string | null,
  phoneRequirement?: PhoneRequirement,
): { problems: AddressProblem[]; suggested: NormalisedAddress } {
  const problems: AddressProblem[] = []
  const suggested: NormalisedAddress = {
    line1: tidy(address.line1),
    line2: tidyOrNull(address.line2),
    postalOrZipCode: tidy(address.postalOrZipCode),
    countryCode: rules.countryCode,
    townOrCity: tidy(address.townOrCity),
    stateOrCounty: tidyOrNull(address.stateOrCounty),
  }
  // A state problem stops delivery only where the couriers refuse the label without a valid one (STATE_STOPS_DELIVERY).
  const stateSeverity: AddressProblemSeverity = rules.stateStopsDelivery ? 'blocking' : 'advisory'
  for (const field of rules.requiredFields) {
    const value = suggested[field]
    if (value === null || value === '') {
      problems.push(
        problemOf(
          field,
          'Required',
          `${field} is required for addresses in ${rules.countryCode}`,
          field === 'stateOrCounty' ? stateSeverity : undefined,
        ),
      )
    }
  }
  if (suggested.postalOrZipCode !== '' && rules.postcodePattern !== null) {
    const normal = normalPostcode(rules, suggested.postalOrZipCode)
    if (normal === undefined) {
      const example = rules.postcodeExample ? ` (for example ${rules.postcodeExample})` : ''
      problems.push(
        problemOf(
          'postalOrZipCode',
          'InvalidPostcode',
          `"${suggested.postalOrZipCode}" is not a postcode of ${rules.countryCode}${example}`,
        ),
      )
      suggested.postalOrZipCode = suggested.postalOrZipCode.toUpperCase()
    } else {
      suggested.postalOrZipCode = normal
    }
  }
  if (rules.stateRequired && suggested.stateOrCounty !== null) {
    const subdivision = findSubdivision(rules, suggested.stateOrCounty)
    if (subdivision) {
      suggested.stateOrCounty = subdivision.code
    } else {
      problems.push(
        problemOf(
          'stateOrCounty',
          'UnknownState',
          `"${suggested.stateOrCounty}" is not a state or province of ${rules.countryCode} (GET /v4.0/countries/${rules.countryCode} lists them)`,
          stateSeverity,
        ),
      )
    }
  }
  for (const field of ADDRESS_FIELDS) {
    const value = suggested[field]
    const limit = rules.maxLengths[field]
    if (value !== null && [...value].length > limit) {
      problems.push(
        problemOf(
          field,
          'TooLong',
          `${field} is longer than express couriers print (${limit} characters): they may cut it`,
        ),
      )
    }
  }
  if (phoneRequired(phoneRequirement) && (phone === null || phone === undefined || phone.trim() === '')) {
    const method = phoneRequirement?.shippingMethod
    problems.push(
      problemOf(
        'phoneNumber',
        'PhoneNumberRequired',
        `${method ? `the carrier of ${method} to ${rules.countryCode} asks` : `the carriers to ${rules.countryCode} ask`} for the recipient's phone number, to call about delivery and duties`,
      ),
    )
  }
  return { problems, suggested }
}

// Carriers that ask for the recipient's phone number (they call or text before delivery, and customs brokers call
// about duties): the express couriers. Postal services do not. FedEx's Web Services guide marks the recipient's
// PhoneNumber "Required"; DHL Express wants one on every shipment (its MyDHL reference not readable here, a shipping
// platform's DHL Express requirements read instead); UPS's rule could not be read here (docs/addresses.md). Without
// one the parcel still goes under the lab's or the merchant's number: PhoneNumberRequired is an advisory.
// Checked 2026-11-29.
const CARRIERS_NEEDING_PHONE: readonly string[] = ['dhl express', 'fedex', 'ups']

/** Whether a carrier (as the catalogue names it, any case) needs the recipient's phone number. */
export function carrierNeedsPhone(carrier: string): boolean {
  const name = carrier.trim().toLowerCase()
  return CARRIERS_NEEDING_PHONE.some((needing) => name === needing || name.startsWith(`${needing} `))
}

/**
 * What the catalogue says of shipping to a country: the methods some lab ships there by, and those of them whose
 * carrier (at some lab) needs the recipient's phone number.
 */
export function countryShipping(
  catalogue: Catalogue,
  countryCode: string,
): { methods: ShippingMethod[]; methodsNeedingPhone: ShippingMethod[] } {
  const code = countryCode.toUpperCase()
  const methods = catalogue.shippingMethodsFor(code, [])
  const methodsNeedingPhone = methods.filter((method) =>
    catalogue.labs.some((lab) => {
      const rate = catalogue.shippingRate(lab.code, method, code)
      return rate !== undefined && carrierNeedsPhone(rate.carrier)
    }),
  )
  return { methods, methodsNeedingPhone }
}

/**
 * An order's recipient checked against its country's rules and the carriers of its shipping method; undefined
 * when the country code is no country (the catalogue check refuses it on its own).
 */
export function checkRecipientAddress(
  catalogue: Catalogue,
  recipient: { phoneNumber?: string | null; address: CheckedAddress },
  shippingMethod?: ShippingMethod,
): { problems: AddressProblem[]; suggested: NormalisedAddress } | undefined {
  const rules = addressRulesFor(recipient.address.countryCode)
  if (!rules) return undefined
  const shipping = countryShipping(catalogue, rules.countryCode)
  return checkAddress(rules, recipient.address, recipient.phoneNumber, {
    methodsNeedingPhone: shipping.methodsNeedingPhone,
    methodsToCountry: shipping.methods,
    ...(shippingMethod ? { shippingMethod } : {}),
  })
}

/** The issue code an order's address problems are reported under (docs/addresses.md). */
export const ADDRESS_UNVERIFIED_ISSUE = ISSUE_CODES.addressUnverified

/**
 * The order issues for an address's problems, one per problem, naming the field, the problem and the normal form
 * where it differs from what was sent.
 */
export function addressUnverifiedIssues(
  orderId: string,
  problems: readonly AddressProblem[],
  sent: CheckedAddress,
  suggested: NormalisedAddress,
): { objectId: string; errorCode: string; description: string; authorisationDetails: null }[] {
  return problems.map((problem) => {
    const path = recipientFieldPath(problem.field)
    const suggestion = suggestedValue(problem, sent, suggested)
    return {
      objectId: orderId,
      errorCode: ADDRESS_UNVERIFIED_ISSUE,
      description: `${path} (${problem.code}): ${problem.message}${suggestion === undefined ? '' : `; suggested: "${suggestion}"`}`,
      authorisationDetails: null,
    }
  })
}

/** The normal form of a problem's field when it differs from what was sent; undefined when it does not. */
export function suggestedValue(
  problem: AddressProblem,
  sent: CheckedAddress,
  suggested: NormalisedAddress,
): string | undefined {
  if (problem.field === 'phoneNumber') return undefined
  const value = suggested[problem.field]
  return value !== null && value !== (sent[problem.field] ?? null) ? value : undefined
}

/**
 * An address's problems as validation failures (the `refuse` mode), under `prefix` (`recipient.address`):
 * `providedValue` is what was sent, `comparisonValue` the field's normal form (null where none differs; for
 * TooLong the limit).
 */
export function addressProblemFailures(
  prefix: string,
  phonePath: string,
  problems: readonly AddressProblem[],
  sent: CheckedAddress & { phoneNumber?: string | null },
  suggested: NormalisedAddress,
): Failures {
  const failures: Failures = {}
  for (const problem of problems) {
    const path = problem.field === 'phoneNumber' ? phonePath : `${prefix}.${problem.field}`
    const provided = problem.field === 'phoneNumber' ? (sent.phoneNumber ?? null) : (sent[problem.field] ?? null)
    addFailure(failures, path, {
      code: problem.code,
      providedValue: provided,
      // TooLong names its limit, as every TooLong of the API does; the others the field's normal form.
      comparisonValue:
        problem.code === 'TooLong' && problem.field !== 'phoneNumber'
          ? MAX_LENGTHS[problem.field]
          : (suggestedValue(problem, sent, suggested) ?? null),
    })
  }
  return failures
}
