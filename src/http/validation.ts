// Request validation for every route, configured once here. Fastify's defaults differ from the contract:
// its Ajv strips unknown fields (we reject them as UnknownField) and stops at the first error (we report
// every failure at once, by request path). Bodies are never type-coerced; path and query values are
// (they arrive as text). Every string of every validated part, at any depth and object keys included, also
// passes the text rule of domain/text.ts here, so no field can forget it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { addFailure, type Failure, type Failures, hasFailures } from '../domain/failures.ts'
import { DATE_TIME_RANGE, dateTimeBeyondRange } from '../domain/limits.ts'
import { validationFailed } from '../domain/outcomes.ts'
import { refusedCharacter } from '../domain/text.ts'
import { unfetchableUrlReason } from '../domain/urls.ts'
import { CreateOrderRequestSchema } from './schemas/order.schema.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/** Adds `x-case-insensitive-enum`: accepts any letter case and rewrites the value to the canonical one. */
function addCaseInsensitiveEnum(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'x-case-insensitive-enum',
    type: 'string',
    modifying: true,
    errors: true,
    schemaType: 'array',
    compile(allowed: string[]) {
      const canonical = new Map(allowed.map((value) => [value.toLowerCase(), value]))
      const validate = (
        data: string,
        context?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
      ) => {
        const match = canonical.get(data.toLowerCase())
        if (match === undefined) {
          const message = `must be one of ${allowed.join(', ')}`
          return keywordError(validate, 'x-case-insensitive-enum', { allowedValues: allowed }, message)
        }
        if (context && match !== data) context.parentData[context.parentDataProperty] = match
        return true
      }
      return validate
    },
  })
}

/** One failing keyword's error, as a keyword's validate function reports it to Ajv. */
function keywordError(validate: unknown, keyword: string, params: Record<string, unknown>, message: string): false {
  ;(validate as { errors: Partial<ErrorObject>[] }).errors = [{ keyword, params, message }]
  return false
}

/**
 * Adds a boolean keyword on strings: when it is true, `problemOf` names what is wrong with a value (the error's
 * params and message), or returns undefined for a good one.
 */
function addStringRule(
  ajv: Ajv,
  keyword: string,
  problemOf: (data: string) => { params: Record<string, unknown>; message: string } | undefined,
): void {
  ajv.addKeyword({
    keyword,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    compile(enabled: boolean) {
      const validate = (data: string): boolean => {
        const problem = enabled ? problemOf(data) : undefined
        return problem === undefined || keywordError(validate, keyword, problem.params, problem.message)
      }
      return validate
    },
  })
}

/**
 * `x-single-line: true`: no control character at all, not even tab or a line break (identifiers, references,
 * codes, URLs). Free text gets the looser rule from the walk in the validator below.
 */
function addSingleLine(ajv: Ajv): void {
  addStringRule(ajv, 'x-single-line', (data) => {
    const character = refusedCharacter(data, true)
    return character === undefined ? undefined : { params: { character }, message: 'refused character' }
  })
}

/**
 * `x-url: true`: a URL printroute could fetch (domain/urls.ts), the reason in the failure. Control characters
 * are left to `x-single-line`, so that they are reported as InvalidCharacter like everywhere else.
 */
function addUrl(ajv: Ajv): void {
  addStringRule(ajv, 'x-url', (data) => {
    if (refusedCharacter(data, true) !== undefined) return undefined
    const reason = unfetchableUrlReason(data)
    return reason === undefined ? undefined : { params: { reason }, message: reason }
  })
}

/**
 * `date-time` as RFC 3339 writes it and JavaScript's Date reads it, within years 0001 to 9999 in UTC
 * (`DATE_TIME_RANGE`). ajv-formats also takes a leap second (23:59:60) and an offset of hours alone (+01), which Date
 * cannot read: a service would be handed an invalid date (and answer 500) for a value the schema had let through;
 * and year 0 (or 0001 at a positive offset), which the embedded database refuses. `date` likewise refuses year 0000.
 * One rule for every date field of the API, the lab API and the dashboard's calls, whatever the route.
 */
function addReadableDateTime(ajv: Ajv): void {
  const rfc3339 = ajv.formats['date-time'] as { validate: (data: string) => boolean } | undefined
  const calendarDate = ajv.formats.date as { validate: (data: string) => boolean } | undefined
  if (!rfc3339 || !calendarDate) throw new Error('ajv-formats defines date-time and date')
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (data: string) => rfc3339.validate(data) && dateRangeFailure('date-time', data) === undefined,
  })
  ajv.addFormat('date', {
    type: 'string',
    validate: (data: string) => calendarDate.validate(data) && dateRangeFailure('date', data) === undefined,
  })
}

/**
 * Why a well-formed date-time or date is refused: unreadable (NaN, then InvalidFormat) or beyond a bound of
 * `DATE_TIME_RANGE` (the bound's failure code and value). Undefined when it is within the range.
 */
function dateRangeFailure(
  format: 'date-time' | 'date',
  data: string,
): 'unreadable' | { code: Failure['code']; comparisonValue: string } | undefined {
  const ms = Date.parse(format === 'date' ? `${data}T00:00:00Z` : data)
  if (Number.isNaN(ms)) return 'unreadable'
  const beyond = dateTimeBeyondRange(ms)
  if (beyond === undefined) return undefined
  const bound =
    format === 'date' ? DATE_TIME_RANGE[beyond === 'earliest' ? 'earliestDate' : 'latestDate'] : DATE_TIME_RANGE[beyond]
  return {
    code: beyond === 'earliest' ? 'MustBeGreaterThanOrEqualTo' : 'MustBeLessThanOrEqualTo',
    comparisonValue: bound,
  }
}

/** A date-time or date of the right shape (four-digit year) refused only for its range: its failure, else undefined. */
function rangeFailureOf(format: unknown, provided: unknown): Failure | undefined {
  if ((format !== 'date-time' && format !== 'date') || typeof provided !== 'string') return undefined
  if (!/^\d{4}-\d{2}-\d{2}/.test(provided)) return undefined
  const failure = dateRangeFailure(format, provided)
  if (failure === undefined || failure === 'unreadable') return undefined
  return { code: failure.code, providedValue: provided, comparisonValue: failure.comparisonValue }
}

function createAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes,
    strict: false,
  })
  addFormats(ajv)
  addReadableDateTime(ajv)
  addCaseInsensitiveEnum(ajv)
  addSingleLine(ajv)
  addUrl(ajv)
  return ajv
}

const bodyAjv = createAjv(false)
const parameterAjv = createAjv('array')

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? bodyAjv : parameterAjv).compile(schema as object) as ValidateFunction
  // Path and query values are identifiers, filters and codes: single-line by nature.
  const singleLine = httpPart !== 'body'
  return (data: unknown) => {
    const failures = validate(data) ? {} : failuresFromAjvErrors(validate.errors ?? [], data)
    addCharacterFailures(failures, data, singleLine)
    return hasFailures(failures) ? { error: new RequestValidationError(failures) } : { value: data }
  }
}

/**
 * A request body's check outside a request, with the same Ajv and text rule as a route's: what a CSV import's order
 * is held to (services/order-imports.service.ts), so it is refused exactly as the same order POSTed.
 */
export function compileBodyCheck(schema: object): (data: unknown) => Failures {
  const validate = bodyAjv.compile(schema) as ValidateFunction
  return (data: unknown) => {
    const failures = validate(data) ? {} : failuresFromAjvErrors(validate.errors ?? [], data)
    addCharacterFailures(failures, data, false)
    return failures
  }
}

/** The create-order request's check (POST /orders's body schema), for an order read from a CSV import. */
export function createOrderRequestCheck(): (data: unknown) => Failures {
  return compileBodyCheck(CreateOrderRequestSchema)
}

function hasFailureCode(failures: Failures, path: string, code: Failure['code']): boolean {
  return Object.hasOwn(failures, path) && (failures[path] ?? []).some((failure) => failure.code === code)
}

/**
 * Walks every string of a request part (object keys too, at any depth: metadata included) and records an
 * InvalidCharacter failure for each one breaking the text rule, unless its field already has one (from
 * `x-single-line`). `path` is in the contract's notation; a part that is itself a string is `body`.
 */
export function addCharacterFailures(failures: Failures, data: unknown, singleLine: boolean, path = ''): void {
  const check = (text: string, at: string) => {
    const character = refusedCharacter(text, singleLine)
    const where = at === '' ? 'body' : at
    if (character !== undefined && !hasFailureCode(failures, where, 'InvalidCharacter')) {
      addFailure(failures, where, { code: 'InvalidCharacter', providedValue: text, comparisonValue: character })
    }
  }
  if (typeof data === 'string') check(data, path)
  else if (Array.isArray(data)) {
    for (const [index, entry] of data.entries()) addCharacterFailures(failures, entry, singleLine, `${path}[${index}]`)
  } else if (data !== null && typeof data === 'object') {
    for (const key of Object.keys(data)) {
      const child = path === '' ? key : `${path}.${key}`
      check(key, child)
      addCharacterFailures(failures, ownValue(data, key), singleLine, child)
    }
  }
}

/** Thrown by the validator; the error handler turns it into the ValidationFailed body. */
export class RequestValidationError extends Error {
  readonly failures: Failures

  constructor(failures: Failures) {
    super('Request validation failed')
    this.failures = failures
  }
}

/**
 * For a POST that takes no body (redelivery, API keys): none, an empty body or `{}` is accepted; anything else
 * is UnknownField on `body`.
 */
export function refuseBody(body: unknown, statusText: string): void {
  const empty = body === undefined || (typeof body === 'object' && body !== null && Object.keys(body).length === 0)
  if (!empty) throw validationFailed({ body: [{ code: 'UnknownField', providedValue: null }] }, statusText)
}

/** `/items/0/assets/1/url` -> `items[0].assets[1].url` (the contract's path notation). */
export function contractPath(instancePath: string, child?: string): string {
  const segments = instancePath.split('/').slice(1)
  if (child !== undefined) segments.push(child)
  let path = ''
  for (const raw of segments) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (/^\d+$/.test(segment)) path += `[${segment}]`
    else path += path === '' ? segment : `.${segment}`
  }
  return path
}

/** The object's own value for `key` (never an inherited one: keys come from requests). */
function ownValue(object: unknown, key: string): unknown {
  if (object === null || typeof object !== 'object' || !Object.hasOwn(object, key)) return undefined
  return Object.getOwnPropertyDescriptor(object, key)?.value
}

function valueAt(root: unknown, instancePath: string): unknown {
  let current = root
  for (const raw of instancePath.split('/').slice(1)) {
    current = ownValue(current, raw.replaceAll('~1', '/').replaceAll('~0', '~'))
  }
  return current
}

/** Keywords whose failure is one code, with the provided value compared to one of the error's params. */
const COMPARED_KEYWORDS = new Map<string, { code: Failure['code']; param: string }>([
  ['pattern', { code: 'InvalidFormat', param: 'pattern' }],
  ['format', { code: 'InvalidFormat', param: 'format' }],
  ['maxLength', { code: 'TooLong', param: 'limit' }],
  ['minLength', { code: 'TooShort', param: 'limit' }],
  ['minimum', { code: 'MustBeGreaterThanOrEqualTo', param: 'limit' }],
  ['maximum', { code: 'MustBeLessThanOrEqualTo', param: 'limit' }],
  ['minItems', { code: 'TooFew', param: 'limit' }],
  ['x-single-line', { code: 'InvalidCharacter', param: 'character' }],
])

function failureFor(error: ErrorObject, root: unknown): { path: string; failure: Failure } | undefined {
  const provided = valueAt(root, error.instancePath)
  const at = (failure: Failure, child?: string) => ({ path: contractPath(error.instancePath, child), failure })
  const params = error.params as Record<string, unknown>
  // An empty or blank string fails its pattern, format or length for the one reason the contract names.
  const blank = typeof provided === 'string' && provided.trim() === ''
  if (blank && ['pattern', 'format', 'minLength', 'x-url'].includes(error.keyword)) {
    return at({ code: 'MustNotBeEmptyOrWhitespace', providedValue: provided })
  }
  if (error.keyword === 'format') {
    const outOfRange = rangeFailureOf(params.format, provided)
    if (outOfRange) return at(outOfRange)
  }
  const compared = COMPARED_KEYWORDS.get(error.keyword)
  if (compared) {
    return at({ code: compared.code, providedValue: provided, comparisonValue: params[compared.param] })
  }
  switch (error.keyword) {
    case 'required':
      return at({ code: 'Required', providedValue: null }, String(params.missingProperty))
    case 'additionalProperties': {
      const field = String(params.additionalProperty)
      return at({ code: 'UnknownField', providedValue: ownValue(provided, field) ?? null }, field)
    }
    case 'type':
      return at({ code: 'InvalidType', providedValue: provided ?? null, comparisonValue: params.type })
    case 'maxItems':
    case 'maxProperties':
      return at({ code: 'TooMany', providedValue: null, comparisonValue: params.limit })
    case 'enum':
    case 'x-case-insensitive-enum':
      return at({ code: 'InvalidValue', providedValue: provided, validValues: params.allowedValues as unknown[] })
    case 'x-url':
      return at({ code: 'InvalidFormat', providedValue: provided, comparisonValue: `http(s) URL: ${params.reason}` })
    case 'anyOf':
    case 'oneOf':
    case 'if':
      return undefined // the branch errors say what is wrong
    default:
      return at({ code: 'InvalidValue', providedValue: provided ?? null })
  }
}

export function failuresFromAjvErrors(errors: ErrorObject[], root: unknown): Failures {
  const failures: Failures = {}
  const seen = new Set<string>()
  for (const error of errors) {
    const entry = failureFor(error, root)
    if (!entry) continue
    // A body that is not an object at all is reported under `body`.
    const path = entry.path === '' ? 'body' : entry.path
    const key = `${path}\u0000${entry.failure.code}`
    if (seen.has(key)) continue // a nullable union reports one problem twice
    seen.add(key)
    addFailure(failures, path, entry.failure)
  }
  return failures
}
