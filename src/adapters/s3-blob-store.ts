// The `BlobStore` on S3 or an S3-compatible service (MinIO, Cloudflare R2, Backblaze B2, ...), for
// several machines sharing stored files. Settings and behaviour: docs/assets.md, "An S3-compatible store".
import { createHash } from 'node:crypto'
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import {
  assertValidBlobKey,
  assertValidPrefix,
  BlobNotFoundError,
  type BlobStore,
  blobKeyProblem,
  InvalidBlobKeyError,
  MAX_BLOB_KEY_LENGTH,
} from './blob-store.ts'

export interface S3BlobStoreOptions {
  bucket: string
  /** A folder inside the bucket that every key lies under, e.g. `printroute/`; a missing final `/` is added. */
  prefix?: string
  /** The service's URL for S3-compatible services, e.g. `http://127.0.0.1:9000`; AWS S3 when absent. */
  endpoint?: string
  /** Default: `AWS_REGION`, else the region of the shared AWS config profile, else `us-east-1`. */
  region?: string
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`); default true with an endpoint, false without. */
  forcePathStyle?: boolean
  /** Both or neither; without them, the SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, ...). */
  accessKeyId?: string
  secretAccessKey?: string
  /** Keys per ListObjectsV2 request, 1 to 1000 (default 1000). */
  pageSize?: number
  /** Files larger than this are sent as a multipart upload of parts this size; at least 5 MiB (default 8 MiB). */
  partSize?: number
}

/** A setting that cannot work: a malformed `s3://` URL or store option. */
export class S3SettingsError extends Error {
  override name = 'S3SettingsError'
}

const MIB = 1024 * 1024
// S3's limits: parts are 5 MiB to 5 GiB (the last may be smaller), at most 10,000 of them.
const MIN_PART_SIZE = 5 * MIB
const MAX_PART_SIZE = 5 * 1024 * MIB
const MAX_PARTS = 10_000
const DEFAULT_PART_SIZE = 8 * MIB
const DEFAULT_PAGE_SIZE = 1000
const CONNECT_TIMEOUT_MS = 10_000
// Legacy bucket names (us-east-1) allow capitals and underscores and 255 characters; newer ones are stricter,
// which the service itself enforces.
const BUCKET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/

/** The store prefix with its final slash, or '' for none; throws for anything that is not a valid key path. */
function normalizeStorePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '' || prefix === '/') return ''
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  const problem = blobKeyProblem(trimmed)
  if (problem !== null) throw new S3SettingsError(`Invalid S3 key prefix ${JSON.stringify(prefix)}: it ${problem}`)
  return `${trimmed}/`
}

function validateEndpoint(endpoint: string): void {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new S3SettingsError(`Invalid S3 endpoint ${JSON.stringify(endpoint)}: not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new S3SettingsError(`Invalid S3 endpoint ${JSON.stringify(endpoint)}: only http and https URLs`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new S3SettingsError(
      'Invalid S3 endpoint: no credentials in the URL; use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    )
  }
  if (url.search !== '' || url.hash !== '') {
    throw new S3SettingsError(`Invalid S3 endpoint ${JSON.stringify(endpoint)}: no query or fragment`)
  }
}

function validateOptions(options: S3BlobStoreOptions): void {
  if (typeof options.bucket !== 'string' || !BUCKET_PATTERN.test(options.bucket)) {
    throw new S3SettingsError(
      `Invalid S3 bucket name ${JSON.stringify(options.bucket)}: 3 to 255 letters, digits, ".", "-" and "_"`,
    )
  }
  if (options.endpoint !== undefined) validateEndpoint(options.endpoint)
  if (options.region !== undefined && !/^[A-Za-z0-9-]+$/.test(options.region)) {
    throw new S3SettingsError(`Invalid S3 region ${JSON.stringify(options.region)}`)
  }
  if ((options.accessKeyId === undefined) !== (options.secretAccessKey === undefined)) {
    throw new S3SettingsError('Give both accessKeyId and secretAccessKey, or neither (the default credential chain)')
  }
  const { pageSize, partSize } = options
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000)) {
    throw new S3SettingsError(`Invalid S3 page size ${pageSize}: an integer from 1 to 1000`)
  }
  if (
    partSize !== undefined &&
    !(Number.isInteger(partSize) && partSize >= MIN_PART_SIZE && partSize <= MAX_PART_SIZE)
  ) {
    throw new S3SettingsError(`Invalid S3 part size ${partSize}: an integer from 5 MiB to 5 GiB`)
  }
}

// The SDK's own region lookup (AWS_REGION, then the shared config profile) with us-east-1 as the last resort,
// which MinIO expects and AWS redirects from (the client follows region redirects there).
async function defaultRegion(): Promise<string> {
  const probe = new S3Client({})
  try {
    return await probe.config.region()
  } catch {
    return 'us-east-1'
  } finally {
    probe.destroy()
  }
}

function md5Base64(data: Uint8Array): string {
  return createHash('md5').update(data).digest('base64')
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: string })?.name
}

/** Reads exactly `length` bytes at `position` into the start of `buffer`. */
async function readExactly(
  handle: Awaited<ReturnType<typeof open>>,
  buffer: Buffer,
  length: number,
  position: number,
): Promise<Buffer> {
  let filled = 0
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) throw new Error('The source file became shorter while it was being stored')
    filled += bytesRead
  }
  return buffer.subarray(0, length)
}

/**
 * Blobs as objects in `bucket`, each at `<prefix><key>`. Every object is written whole by one request (or
 * one completed multipart upload), so readers see the old content or the new and nothing needs temp files.
 */
export class S3BlobStore implements BlobStore {
  readonly bucket: string
  /** '' or a folder ending in '/'. */
  readonly prefix: string
  readonly endpoint: string | undefined
  /** The SDK client, for what the interface does not cover (presigned URLs); `close()` releases it. */
  readonly client: S3Client
  readonly #pageSize: number
  readonly #partSize: number

  constructor(options: S3BlobStoreOptions) {
    validateOptions(options)
    this.bucket = options.bucket
    this.prefix = normalizeStorePrefix(options.prefix)
    this.endpoint = options.endpoint
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE
    this.#partSize = options.partSize ?? DEFAULT_PART_SIZE
    const credentials =
      options.accessKeyId !== undefined && options.secretAccessKey !== undefined
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined
    // The SDK asks for the region on every request; the lookup runs once.
    let region: Promise<string> | undefined
    this.client = new S3Client({
      region: options.region ?? (() => (region ??= defaultRegion())),
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? options.endpoint !== undefined,
      // On AWS a bucket in another region than the configured one is found anyway.
      followRegionRedirects: options.endpoint === undefined,
      ...(credentials ? { credentials } : {}),
      // Content-MD5 on every upload (below) is what S3 and every compatible service verify. The SDK's newer
      // default CRC checksums (aws-chunked trailers, x-amz-checksum-mode) are refused by several of them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS },
    })
  }

  /** `s3://bucket/prefix/`, for logs. */
  toString(): string {
    return `s3://${this.bucket}/${this.prefix}${this.endpoint !== undefined ? ` at ${this.endpoint}` : ''}`
  }

  #objectKey(key: string): string {
    assertValidBlobKey(key)
    const objectKey = this.prefix + key
    if (objectKey.length > MAX_BLOB_KEY_LENGTH) {
      throw new InvalidBlobKeyError(
        `Invalid blob key ${JSON.stringify(key)}: with the store's prefix ${JSON.stringify(this.prefix)} it is longer than ${MAX_BLOB_KEY_LENGTH} characters`,
      )
    }
    return objectKey
  }

  async put(key: string, source: string | Buffer, contentType: string): Promise<void> {
    const objectKey = this.#objectKey(key)
    if (typeof source !== 'string') {
      await this.#putObject(objectKey, source, contentType)
      return
    }
    const handle = await open(source, 'r')
    try {
      const { size } = await handle.stat()
      if (size <= this.#partSize) {
        await this.#putObject(objectKey, await readExactly(handle, Buffer.allocUnsafe(size), size, 0), contentType)
      } else {
        await this.#putMultipart(objectKey, handle, size, contentType)
      }
    } finally {
      await handle.close()
    }
  }

  async #putObject(objectKey: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: objectKey,
        Body: body,
        ContentLength: body.length,
        ContentType: contentType,
        ContentMD5: md5Base64(body),
      }),
    )
  }

  // The file is read one part at a time into a single reused buffer: memory stays at one part whatever the
  // file size, and each part is a buffer the SDK can send again when it retries.
  async #putMultipart(
    objectKey: string,
    handle: Awaited<ReturnType<typeof open>>,
    size: number,
    contentType: string,
  ): Promise<void> {
    const partSize = Math.max(this.#partSize, Math.ceil(size / MAX_PARTS))
    if (partSize > MAX_PART_SIZE) throw new Error(`A file of ${size} bytes is too large for S3`)
    const created = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, ContentType: contentType }),
    )
    const uploadId = created.UploadId
    if (uploadId === undefined) throw new Error('S3 started a multipart upload without an upload id')
    try {
      const buffer = Buffer.allocUnsafe(partSize)
      const parts: CompletedPart[] = []
      for (let partNumber = 1, offset = 0; offset < size; partNumber++, offset += partSize) {
        const length = Math.min(partSize, size - offset)
        const body = await readExactly(handle, buffer, length, offset)
        const uploaded = await this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: objectKey,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: body,
            ContentLength: length,
            ContentMD5: md5Base64(body),
          }),
        )
        parts.push({ PartNumber: partNumber, ETag: uploaded.ETag })
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: objectKey,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      )
    } catch (error) {
      // Best effort: the parts of an upload never completed are billed until aborted (a bucket lifecycle rule
      // aborting incomplete uploads after a day catches what a crash leaves).
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: uploadId }))
        .catch(() => {})
      throw error
    }
  }

  async #getObject(key: string) {
    const objectKey = this.#objectKey(key)
    try {
      return await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }))
    } catch (error) {
      // NoSuchBucket (also a 404) is a setup error, not a missing blob.
      if (errorName(error) === 'NoSuchKey') throw new BlobNotFoundError(key)
      throw error
    }
  }

  async get(key: string): Promise<Buffer> {
    const output = await this.#getObject(key)
    if (!output.Body) return Buffer.alloc(0)
    const bytes = await output.Body.transformToByteArray()
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  async openRead(key: string): Promise<Readable> {
    const output = await this.#getObject(key)
    const body: unknown = output.Body
    if (body instanceof Readable) return body
    if (body === undefined) return Readable.from([])
    // Not expected in Node (the SDK's Node handler gives an IncomingMessage), but any web stream will do.
    return Readable.fromWeb((body as { transformToWebStream(): WebReadableStream }).transformToWebStream())
  }

  localPath(key: string): null {
    this.#objectKey(key)
    return null
  }

  /** Nothing: a ranged request per download is not worth it; such files are served as application/octet-stream. */
  async readStart(key: string, _byteCount: number): Promise<Uint8Array> {
    this.#objectKey(key)
    return new Uint8Array()
  }

  async exists(key: string): Promise<boolean> {
    const objectKey = this.#objectKey(key)
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }))
      return true
    } catch (error) {
      // A HEAD response has no body, so a missing bucket is a 404 too; `checkAccess` tells the two apart.
      if (httpStatus(error) === 404 || errorName(error) === 'NotFound' || errorName(error) === 'NoSuchKey') {
        return false
      }
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.#objectKey(key)
    // DeleteObject succeeds for a key that holds nothing.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }))
  }

  async *listOlderThan(prefix: string, cutoff: Date): AsyncIterable<string> {
    assertValidPrefix(prefix)
    const cutoffMs = cutoff.getTime()
    let continuationToken: string | undefined
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          MaxKeys: this.#pageSize,
          ...(continuationToken !== undefined ? { ContinuationToken: continuationToken } : {}),
        }),
      )
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.LastModified === undefined) continue
        const key = object.Key.slice(this.prefix.length)
        // Objects this store cannot have written ("folder/" markers, names outside the key rules) are skipped,
        // as the file system store skips files it did not write.
        if (!object.Key.startsWith(this.prefix) || blobKeyProblem(key) !== null) continue
        if (object.LastModified.getTime() < cutoffMs) yield key
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
      if (page.IsTruncated && continuationToken === undefined) {
        throw new Error('S3 returned a truncated listing without a continuation token')
      }
    } while (continuationToken !== undefined)
  }

  /**
   * Lists one key under the prefix: fails when the bucket does not exist, the credentials are wrong or may not
   * list the bucket. Call it at start-up; `exists` alone cannot tell a missing bucket from a missing key.
   */
  async checkAccess(): Promise<void> {
    await this.client.send(
      new ListObjectsV2Command({ Bucket: this.bucket, ...(this.prefix ? { Prefix: this.prefix } : {}), MaxKeys: 1 }),
    )
  }

  /** Closes the client's kept-alive connections. */
  close(): void {
    this.client.destroy()
  }
}

export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  return new S3BlobStore(options)
}

const URL_PARAMETERS = new Set(['endpoint', 'region', 'forcePathStyle'])

/**
 * Store options from a setting such as
 * `s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true`.
 * Credentials are never part of it: they come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the SDK's
 * default chain.
 */
export function parseS3Url(url: string): S3BlobStoreOptions {
  const match = /^s3:\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/i.exec(url.trim())
  if (!match) {
    throw new S3SettingsError(
      `Invalid S3 URL ${JSON.stringify(url)}: expected s3://<bucket>[/<prefix>][?endpoint=...&region=...&forcePathStyle=true]`,
    )
  }
  const [, host = '', path = '', query = ''] = match
  if (host.includes('@')) {
    throw new S3SettingsError(
      'Invalid S3 URL: no credentials in the URL; use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    )
  }
  if (host.includes(':')) {
    throw new S3SettingsError(
      `Invalid S3 URL ${JSON.stringify(url)}: the host is the bucket name; give a service's address as ?endpoint=`,
    )
  }
  const options: S3BlobStoreOptions = { bucket: host }
  const prefix = path.replace(/^\//, '')
  if (prefix !== '') options.prefix = normalizeStorePrefix(prefix)

  const seen = new Set<string>()
  for (const [name, value] of new URLSearchParams(query)) {
    if (!URL_PARAMETERS.has(name)) {
      const hint = /key|secret|token|password/i.test(name)
        ? '; credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY'
        : ''
      throw new S3SettingsError(
        `Invalid S3 URL: unknown parameter ${JSON.stringify(name)} (known: ${[...URL_PARAMETERS].join(', ')})${hint}`,
      )
    }
    if (seen.has(name)) throw new S3SettingsError(`Invalid S3 URL: the parameter ${name} is given twice`)
    seen.add(name)
    if (name === 'endpoint') options.endpoint = value
    else if (name === 'region') options.region = value
    else if (value === 'true' || value === 'false') options.forcePathStyle = value === 'true'
    else throw new S3SettingsError(`Invalid S3 URL: forcePathStyle is true or false, not ${JSON.stringify(value)}`)
  }
  validateOptions(options)
  return options
}
