// URLs under printroute's own /samples/ that name no bundled sample (docs/assets.md#sample-images): refused at
// the request, on the URL's field, with the sample URLs that would work, instead of failing every download
// attempt later. Which URLs are printroute's own is the sample images adapter's knowledge; app.ts hands it in.
import { addFailure, type Failures } from '../domain/failures.ts'

/** Why `url` is an unknown sample URL, with the sample URLs on its origin; null for any other URL. */
export type UnknownSampleUrlCheck = (url: string) => { reason: string; sampleUrls: string[] } | null

/** Adds `InvalidValue` at `path` when `url` is an unknown sample URL; true when it did. */
export function refuseUnknownSampleUrl(
  check: UnknownSampleUrlCheck | undefined,
  failures: Failures,
  path: string,
  url: string,
): boolean {
  const unknown = check?.(url)
  if (!unknown) return false
  addFailure(failures, path, {
    code: 'InvalidValue',
    providedValue: url,
    comparisonValue: unknown.reason,
    validValues: unknown.sampleUrls,
  })
  return true
}
