// Request validation for every route, configured once here. Fastify's defaults differ from the contract:
// its Ajv strips unknown fields (we reject them as UnknownField) and stops at the first error (we report
// every failure at once, by request path). Bodies are never type-coerced; path and query values are
// (they arrive as text).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { addFailure, type Failure, type Failures } from '../domain/failures.ts'

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
          ;(validate as unknown as { errors: Partial<ErrorObject>[] }).errors = [
            {
              keyword: 'x-case-insensitive-enum',
              params: { allowedValues: allowed },
              message: `must be one of ${allowed.join(', ')}`,
            },
          ]
          return false
        }
        if (context && match !== data) context.parentData[context.parentDataProperty] = match
        return true
      }
      return validate
    },
  })
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
  addCaseInsensitiveEnum(ajv)
  return ajv
}

const bodyAjv = createAjv(false)
const parameterAjv = createAjv('array')

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? bodyAjv : parameterAjv).compile(schema as object) as ValidateFunction
  return (data: unknown) => {
    if (validate(data)) return { value: data }
    const error = new RequestValidationError(failuresFromAjvErrors(validate.errors ?? [], data))
    return { error }
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

function failureFor(error: ErrorObject, root: unknown): { path: string; failure: Failure } | undefined {
  const provided = valueAt(root, error.instancePath)
  const at = (failure: Failure, child?: string) => ({ path: contractPath(error.instancePath, child), failure })
  const params = error.params as Record<string, unknown>
  // An empty or blank string fails its pattern, format or length for the one reason the contract names.
  const blank = typeof provided === 'string' && provided.trim() === ''
  if (blank && ['pattern', 'format', 'minLength'].includes(error.keyword)) {
    return at({ code: 'MustNotBeEmptyOrWhitespace', providedValue: provided })
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
    case 'pattern':
      return at({ code: 'InvalidFormat', providedValue: provided, comparisonValue: params.pattern })
    case 'format':
      return at({ code: 'InvalidFormat', providedValue: provided, comparisonValue: params.format })
    case 'maxLength':
      return at({ code: 'TooLong', providedValue: provided, comparisonValue: params.limit })
    case 'minLength':
      return at({ code: 'TooShort', providedValue: provided, comparisonValue: params.limit })
    case 'minimum':
      return at({ code: 'MustBeGreaterThanOrEqualTo', providedValue: provided, comparisonValue: params.limit })
    case 'maximum':
      return at({ code: 'MustBeLessThanOrEqualTo', providedValue: provided, comparisonValue: params.limit })
    case 'minItems':
      return at({ code: 'TooFew', providedValue: provided, comparisonValue: params.limit })
    case 'maxItems':
    case 'maxProperties':
      return at({ code: 'TooMany', providedValue: null, comparisonValue: params.limit })
    case 'enum':
      return at({ code: 'InvalidValue', providedValue: provided, validValues: params.allowedValues as unknown[] })
    case 'x-case-insensitive-enum':
      return at({ code: 'InvalidValue', providedValue: provided, validValues: params.allowedValues as unknown[] })
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
