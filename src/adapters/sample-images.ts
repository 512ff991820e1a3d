// printroute's own sample images (samples/*.jpg), so a first order works on a machine without internet: they
// are served under /samples/ on both ports, and a download of exactly such a URL on one of printroute's own
// addresses is answered from the bundled file instead of the network. That opens no address: the fetcher's
// rules for every other URL (private and loopback addresses refused) stay exactly as they are.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DownloadError, type SafeFetcher } from './safe-fetcher.ts'

export const SAMPLE_PATH_PREFIX = '/samples/'
const SAMPLES_DIR = join(import.meta.dirname, '..', '..', 'samples')

export interface SampleImage {
  /** The file name, e.g. `landscape.jpg`. */
  name: string
  bytes: Buffer
  md5: string
  contentType: 'image/jpeg'
}

export interface SampleImages {
  list(): SampleImage[]
  get(name: string): SampleImage | undefined
}

/** Reads the bundled samples once (a few tens of kilobytes each). */
export function loadSampleImages(directory = SAMPLES_DIR): SampleImages {
  const samples = new Map<string, SampleImage>()
  for (const name of readdirSync(directory)
    .filter((file) => file.endsWith('.jpg'))
    .sort()) {
    const bytes = readFileSync(join(directory, name))
    samples.set(name, { name, bytes, md5: createHash('md5').update(bytes).digest('hex'), contentType: 'image/jpeg' })
  }
  return { list: () => [...samples.values()], get: (name) => samples.get(name) }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * Whether `url` is on one of printroute's own base URLs: the same origin, or, for a base URL on a loopback
 * address, another loopback spelling with the same scheme and port, as a person pastes them.
 */
function isOwnOrigin(parsed: URL, ownBaseUrls: readonly string[]): boolean {
  return ownBaseUrls.some((base) => {
    let origin: URL
    try {
      origin = new URL(base)
    } catch {
      return false
    }
    if (origin.origin === parsed.origin) return true
    return (
      origin.protocol === parsed.protocol &&
      origin.port === parsed.port &&
      LOOPBACK_HOSTS.has(origin.hostname) &&
      LOOPBACK_HOSTS.has(parsed.hostname)
    )
  })
}

/** `url` parsed when it is under /samples/ on one of printroute's own base URLs, else null. */
function ownSamplesUrl(url: string, ownBaseUrls: readonly string[]): URL | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (!parsed.pathname.startsWith(SAMPLE_PATH_PREFIX)) return null
  return isOwnOrigin(parsed, ownBaseUrls) ? parsed : null
}

/**
 * Whether `url` names a bundled sample on one of printroute's own base URLs (exact path, no query). A base URL
 * on a loopback address also matches the other loopback spellings with the same port, as a person pastes them.
 */
export function sampleNameOf(url: string, ownBaseUrls: readonly string[]): string | null {
  const parsed = ownSamplesUrl(url, ownBaseUrls)
  if (parsed === null || parsed.search !== '' || parsed.username !== '' || parsed.password !== '') return null
  const name = parsed.pathname.slice(SAMPLE_PATH_PREFIX.length)
  return /^[a-z0-9-]+\.jpg$/.test(name) ? name : null
}

/** Why a URL on printroute's own /samples/ path cannot be fetched, with the URLs that can. */
export interface UnknownSampleUrl {
  /** "printroute has no sample nope.jpg; its samples are landscape.jpg, portrait.jpg, square.jpg" */
  reason: string
  /** Each sample's URL on the origin the URL named. */
  sampleUrls: string[]
}

/**
 * For a URL under /samples/ on one of printroute's own base URLs that names no bundled sample (an unknown name,
 * a sub-path, a query string, a user name): why, and the sample URLs that would work. Null for every other URL,
 * which the fetcher's own rules then govern. Such a URL would otherwise go to the network and be refused as a
 * loopback address (or answer 404) on every attempt.
 */
export function unknownSampleUrl(
  url: string,
  samples: SampleImages,
  ownBaseUrls: readonly string[],
): UnknownSampleUrl | null {
  const parsed = ownSamplesUrl(url, ownBaseUrls)
  if (parsed === null) return null
  const name = sampleNameOf(url, ownBaseUrls)
  if (name !== null && samples.get(name)) return null
  const names = samples.list().map((sample) => sample.name)
  const given = decodeURIComponentSafely(parsed.pathname.slice(SAMPLE_PATH_PREFIX.length)) || '(none)'
  const problem =
    name === null && /^[a-z0-9-]+\.jpg$/.test(given)
      ? `a sample URL takes no query string or user name (${given})`
      : `printroute has no sample ${given}`
  return {
    reason: `${problem}; its samples are ${names.join(', ')} (GET ${SAMPLE_PATH_PREFIX} lists them)`,
    sampleUrls: names.map((sample) => `${parsed.origin}${SAMPLE_PATH_PREFIX}${sample}`),
  }
}

function decodeURIComponentSafely(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Wraps a fetcher so that printroute's own sample URLs are answered from the bundled files. */
export function withSampleImages(
  fetcher: SafeFetcher,
  samples: SampleImages,
  ownBaseUrls: () => readonly string[],
): SafeFetcher {
  return {
    ...fetcher,
    async download(url, destinationPath, options = {}) {
      const name = sampleNameOf(url, ownBaseUrls())
      const sample = name === null ? undefined : samples.get(name)
      if (!sample) {
        // Never to the network: printroute's own address would be refused (loopback) or answer 404 each time.
        const unknown = unknownSampleUrl(url, samples, ownBaseUrls())
        if (unknown) throw new DownloadError('UnknownSample', unknown.reason)
        return fetcher.download(url, destinationPath, options)
      }
      if (options.expectedMd5 && options.expectedMd5.toLowerCase() !== sample.md5) {
        throw new DownloadError(
          'Md5Mismatch',
          `md5 mismatch: expected ${options.expectedMd5.toLowerCase()}, got ${sample.md5}`,
        )
      }
      await writeFile(destinationPath, sample.bytes)
      return { bytes: sample.bytes.length, md5: sample.md5, contentType: sample.contentType, finalUrl: url }
    },
  }
}
