// The officially assigned ISO 3166-1 alpha-2 country codes (249 of them), from the i18n-iso-countries package.
// A destination must be one of these: the address field is "two-letter ISO country code" (specification,
// Address). The package also lists XK (Kosovo), which ISO leaves in the user-assigned range (AA, QM-QZ, XA-XZ,
// ZZ) like XX; user-assigned codes are refused on purpose, so they are filtered out here.
// index.js, not the package's main entry: the codes need none of the ~80 country-name locales it loads.
import countries from 'i18n-iso-countries/index.js'

const USER_ASSIGNED_CODE = /^(AA|Q[M-Z]|X[A-Z]|ZZ)$/

export const ISO_COUNTRY_CODES: readonly string[] = Object.freeze(
  Object.keys(countries.getAlpha2Codes())
    .filter((code) => !USER_ASSIGNED_CODE.test(code))
    .sort(),
)

const ISO_COUNTRY_CODE_SET: ReadonlySet<string> = new Set(ISO_COUNTRY_CODES)

/** True for an officially assigned ISO 3166-1 alpha-2 code in upper case ("GB"; not "gb", "UK" or "XX"). */
export function isIsoCountryCode(code: string): boolean {
  return ISO_COUNTRY_CODE_SET.has(code)
}
