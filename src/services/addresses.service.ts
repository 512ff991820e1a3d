// Countries and addresses (docs/addresses.md): each country's address rules with what the catalogue ships there,
// and an address checked against them. Reads only the bundled rules and the catalogue.
import {
  ADDRESS_RULES_DATA_DATE,
  type AddressField,
  type AddressProblem,
  addressRulesFor,
  type CheckedAddress,
  checkRecipientAddress,
  countryShipping,
  type NormalisedAddress,
  type Subdivision,
} from '../domain/address-rules.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { ISO_COUNTRY_CODES } from '../domain/country-codes.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import type { ShippingMethod } from '../domain/shipping-methods.ts'

/** A country as GET /v4.0/countries describes it. */
export interface CountrySummary {
  countryCode: string
  name: string
  /** Whether some lab of the catalogue ships there. */
  shipsTo: boolean
  /** The methods some lab ships there by, slowest first. */
  shippingMethods: ShippingMethod[]
  /** Whether addresses there have postcodes printroute checks. */
  postcodeRequired: boolean
  /** The postcode's pattern (a regular expression, matched against the normal form); null where none is known. */
  postcodePattern: string | null
  postcodeExample: string | null
  stateRequired: boolean
  requiredFields: AddressField[]
  maxLengths: Record<AddressField, number>
  /** The methods whose carriers need the recipient's phone number. */
  phoneRequiredFor: ShippingMethod[]
  /** When the bundled rules were taken (YYYY-MM-DD). */
  rulesDate: string
}

/** One country (GET /v4.0/countries/{code}): the summary and its ISO 3166-2 subdivisions. */
export interface CountryDetails extends CountrySummary {
  subdivisions: Subdivision[]
}

export interface ValidateAddressInput {
  address: CheckedAddress
  phoneNumber?: string | null
  shippingMethod?: ShippingMethod | null
}

export interface AddressValidation {
  /** No problems at all. */
  valid: boolean
  problems: AddressProblem[]
  suggested: NormalisedAddress
  /** No problem stops delivery: an order to it is `Created`, its problems (if any) advisories. */
  deliverable: boolean
}

/** The bundled address rules as the API shows them. */
export interface AddressesService {
  /** Every ISO 3166-1 country with its rules (without subdivisions), by code. */
  listCountries(): CountrySummary[]
  /** One country with its subdivisions; EntityNotFound for a code that is no country. */
  getCountry(countryCode: string): CountryDetails
  /** The address checked against its country's rules; ValidationFailed when its country code is no country. */
  validateAddress(input: ValidateAddressInput): AddressValidation
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' })

function countryDetails(catalogue: Catalogue, countryCode: string): CountryDetails | undefined {
  const rules = addressRulesFor(countryCode)
  if (!rules) return undefined
  const shipping = countryShipping(catalogue, rules.countryCode)
  return {
    countryCode: rules.countryCode,
    name: regionNames.of(rules.countryCode) ?? rules.countryCode,
    shipsTo: shipping.methods.length > 0,
    shippingMethods: shipping.methods,
    postcodeRequired: rules.requiredFields.includes('postalOrZipCode'),
    postcodePattern: rules.postcodePattern,
    postcodeExample: rules.postcodeExample,
    stateRequired: rules.stateRequired,
    requiredFields: rules.requiredFields,
    maxLengths: rules.maxLengths,
    phoneRequiredFor: shipping.methodsNeedingPhone,
    rulesDate: ADDRESS_RULES_DATA_DATE,
    subdivisions: rules.subdivisions,
  }
}

function listCountries(catalogue: Catalogue): CountrySummary[] {
  return ISO_COUNTRY_CODES.flatMap((code) => {
    const details = countryDetails(catalogue, code)
    if (!details) return []
    const { subdivisions: _subdivisions, ...summary } = details
    return [summary]
  })
}

function getCountry(catalogue: Catalogue, countryCode: string): CountryDetails {
  const details = countryDetails(catalogue, countryCode)
  if (!details) {
    throw new ServiceError('EntityNotFound', `${countryCode} is not an ISO 3166-1 country code`, {
      countryCode,
    })
  }
  return details
}

function validateAddress(catalogue: Catalogue, input: ValidateAddressInput): AddressValidation {
  const checked = checkRecipientAddress(
    catalogue,
    { phoneNumber: input.phoneNumber ?? null, address: input.address },
    input.shippingMethod ?? undefined,
  )
  if (!checked) {
    throw validationFailed({
      'address.countryCode': [{ code: 'NotAValidCountryCode', providedValue: input.address.countryCode }],
    })
  }
  return {
    valid: checked.problems.length === 0,
    ...checked,
    deliverable: checked.problems.every((problem) => problem.severity === 'advisory'),
  }
}

export function createAddressesService(deps: { catalogue: Catalogue }): AddressesService {
  const { catalogue } = deps
  return {
    listCountries: () => listCountries(catalogue),
    getCountry: (countryCode) => getCountry(catalogue, countryCode),
    validateAddress: (input) => validateAddress(catalogue, input),
  }
}
