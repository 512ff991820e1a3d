import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { after, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  CreateBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { blobStoreBehaviour } from '../../test/support/blob-store-behaviour.ts'
import { S3RVER_CREDENTIALS, startS3rver } from '../../test/support/s3rver.ts'
import { tier } from '../../test/support/tiers.ts'
import { BlobNotFoundError, blobKeyProblem, InvalidBlobKeyError } from './blob-store.ts'
import {
  createS3BlobStore,
  parseS3Url,
  type S3BlobStore,
  type S3BlobStoreOptions,
  S3SettingsError,
} from './s3-blob-store.ts'

tier('pure')

const scratch = await mkdtemp(join(tmpdir(), 'printroute-s3-blob-store-'))

// Hermetic: no shared AWS config or credentials of the machine, no instance metadata lookups, no region.
process.env.AWS_CONFIG_FILE = join(scratch, 'no-aws-config')
process.env.AWS_SHARED_CREDENTIALS_FILE = join(scratch, 'no-aws-credentials')
process.env.AWS_EC2_METADATA_DISABLED = 'true'
for (const name of ['AWS_PROFILE', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) {
  delete process.env[name]
}

const s3rver = await startS3rver(join(scratch, 's3rver'))
const s3rverDirectory = s3rver.directory
const endpoint = s3rver.endpoint
const credentials = { ...S3RVER_CREDENTIALS }
const admin = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials })

const stores: S3BlobStore[] = []
after(async () => {
  for (const store of stores) store.close()
  admin.destroy()
  await s3rver.stop()
  await rm(scratch, { recursive: true, force: true })
})

let counter = 0
async function newStore(options: Partial<S3BlobStoreOptions> = {}): Promise<{ store: S3BlobStore; bucket: string }> {
  const bucket = `bucket-${++counter}`
  await admin.send(new CreateBucketCommand({ Bucket: bucket }))
  const store = createS3BlobStore({ bucket, endpoint, region: 'us-east-1', ...credentials, ...options })
  stores.push(store)
  return { store, bucket }
}

/** The names of the commands the store's client sends from now on. */
function recordCommands(store: S3BlobStore): string[] {
  const names: string[] = []
  store.client.middlewareStack.add(
    (next: any, context: any) => (args: any) => {
      names.push(context.commandName)
      return next(args)
    },
    { step: 'initialize' },
  )
  return names
}

async function listAll(iterable: AsyncIterable<string>): Promise<string[]> {
  const keys: string[] = []
  for await (const key of iterable) keys.push(key)
  return keys
}

async function objectKeys(bucket: string): Promise<string[]> {
  const page = await admin.send(new ListObjectsV2Command({ Bucket: bucket }))
  return (page.Contents ?? []).map((object) => object.Key!).sort()
}

async function contentType(bucket: string, objectKey: string): Promise<string | undefined> {
  return (await admin.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }))).ContentType
}

// s3rver reports a file's modification time as the object's LastModified; setting it is how these tests write
// "in the past", as the file system store's tests do with utimes.
async function setLastModified(bucket: string, objectKey: string, time: Date): Promise<void> {
  const segments = objectKey.split('/')
  const name = `${segments.pop()}._S3rver_object`
  await utimes(join(s3rverDirectory, bucket, ...segments, name), time, time)
}

const MIB = 1024 * 1024

blobStoreBehaviour({
  name: 'S3 store',
  async newStore({ smallPages = false } = {}) {
    const { store, bucket } = await newStore(smallPages ? { pageSize: 2 } : {})
    return {
      store,
      setWrittenAt: (key, time) => setLastModified(bucket, key, time),
      storedEntries: () => objectKeys(bucket),
    }
  },
  listsAcrossFoldersInByteOrder: false,
})

test('a buffer put under a key is read back whole and as a stream, with its content type; localPath is null', async () => {
  const { store, bucket } = await newStore()
  await store.put('assets/ord_12/ast_40', Buffer.from('hello print'), 'image/jpeg')
  assert.deepEqual(await store.get('assets/ord_12/ast_40'), Buffer.from('hello print'))
  const stream = await store.openRead('assets/ord_12/ast_40')
  assert.ok(stream instanceof Readable)
  assert.equal(await text(stream), 'hello print')
  assert.equal(store.localPath('assets/ord_12/ast_40'), null)
  // No ranged read per download: remote blobs are not sniffed (served as application/octet-stream).
  assert.equal((await store.readStart('assets/ord_12/ast_40', 12)).length, 0)
  assert.equal(await store.exists('assets/ord_12/ast_40'), true)
  assert.deepEqual(await objectKeys(bucket), ['assets/ord_12/ast_40'])
  assert.equal(await contentType(bucket, 'assets/ord_12/ast_40'), 'image/jpeg')
})

test('an empty buffer is stored as an empty object', async () => {
  const { store } = await newStore()
  await store.put('thumbnails/empty', Buffer.alloc(0), 'application/octet-stream')
  assert.deepEqual(await store.get('thumbnails/empty'), Buffer.alloc(0))
  assert.equal(await text(await store.openRead('thumbnails/empty')), '')
})

test('a file path put under a key is uploaded with one PutObject, and the source is left in place', async () => {
  const { store, bucket } = await newStore()
  const commands = recordCommands(store)
  const source = join(scratch, `source-${counter}.bin`)
  const content = Buffer.alloc(3 * MIB + 17, 7)
  await writeFile(source, content)
  await store.put('print-files/ord_1/ori_2.pdf', source, 'application/pdf')
  assert.deepEqual(commands, ['PutObjectCommand'])
  assert.deepEqual(await store.get('print-files/ord_1/ori_2.pdf'), content)
  assert.deepEqual(await readFile(source), content)
  assert.equal(await contentType(bucket, 'print-files/ord_1/ori_2.pdf'), 'application/pdf')
})

test('a file larger than the part size goes up as a multipart upload and reads back whole', async () => {
  const { store, bucket } = await newStore({ partSize: 5 * MIB })
  const commands = recordCommands(store)
  const source = join(scratch, `source-${counter}.tif`)
  const content = Buffer.alloc(2 * 5 * MIB + 3)
  for (let i = 0; i < content.length; i += 4096) content[i] = (i / 4096) % 251 // parts differ
  await writeFile(source, content)
  await store.put('assets/ord_1/ast_big', source, 'image/tiff')
  assert.deepEqual(commands, [
    'CreateMultipartUploadCommand',
    'UploadPartCommand',
    'UploadPartCommand',
    'UploadPartCommand',
    'CompleteMultipartUploadCommand',
  ])
  const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex')
  const streamed = createHash('md5')
  for await (const chunk of await store.openRead('assets/ord_1/ast_big')) streamed.update(chunk)
  assert.equal(streamed.digest('hex'), md5(content))
  assert.equal(md5(await store.get('assets/ord_1/ast_big')), md5(content))
  assert.equal(await contentType(bucket, 'assets/ord_1/ast_big'), 'image/tiff')
  assert.deepEqual(await objectKeys(bucket), ['assets/ord_1/ast_big'])

  // A file of exactly one part is a single PutObject.
  commands.length = 0
  await writeFile(source, content.subarray(0, 5 * MIB))
  await store.put('assets/ord_1/ast_part', source, 'image/tiff')
  assert.deepEqual(commands, ['PutObjectCommand'])
  assert.equal((await store.get('assets/ord_1/ast_part')).length, 5 * MIB)
})

test('a multipart upload that fails is aborted, and the key keeps its old content', async () => {
  const { store } = await newStore({ partSize: 5 * MIB })
  await store.put('assets/ord_1/ast_1', Buffer.from('old'), 'image/png')
  const commands = recordCommands(store)
  store.client.middlewareStack.add(
    (next: any, context: any) => (args: any) => {
      if (context.commandName === 'UploadPartCommand' && args.input.PartNumber === 2) {
        return Promise.reject(new Error('connection lost'))
      }
      return next(args)
    },
    { step: 'initialize' },
  )
  const source = join(scratch, `source-${counter}.bin`)
  await writeFile(source, Buffer.alloc(11 * MIB, 1))
  await assert.rejects(store.put('assets/ord_1/ast_1', source, 'image/png'), /connection lost/)
  assert.deepEqual(commands, [
    'CreateMultipartUploadCommand',
    'UploadPartCommand',
    'UploadPartCommand',
    'AbortMultipartUploadCommand',
  ])
  assert.equal((await store.get('assets/ord_1/ast_1')).toString(), 'old')
})

test('a put from a missing file fails with ENOENT before any request, leaving the key as it was', async () => {
  const { store } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('old'), 'image/png')
  const commands = recordCommands(store)
  await assert.rejects(store.put('assets/ord_1/ast_1', join(scratch, 'no-such-file'), 'image/png'), { code: 'ENOENT' })
  await assert.rejects(store.put('assets/ord_1/ast_2', join(scratch, 'no-such-file'), 'image/png'), { code: 'ENOENT' })
  assert.deepEqual(commands, [])
  assert.equal((await store.get('assets/ord_1/ast_1')).toString(), 'old')
  assert.equal(await store.exists('assets/ord_1/ast_2'), false)
})

test('putting the same key again replaces the content and the content type, leaving one object', async () => {
  const { store, bucket } = await newStore()
  await store.put('thumbnails/ast_1.jpg', Buffer.from('first version, longer'), 'image/png')
  await store.put('thumbnails/ast_1.jpg', Buffer.from('second'), 'image/jpeg')
  await store.put('thumbnails/ast_1.jpg', Buffer.from('second'), 'image/jpeg')
  assert.equal((await store.get('thumbnails/ast_1.jpg')).toString(), 'second')
  assert.deepEqual(await objectKeys(bucket), ['thumbnails/ast_1.jpg'])
  assert.equal(await contentType(bucket, 'thumbnails/ast_1.jpg'), 'image/jpeg')
})

test('concurrent puts of one key leave one complete version, never a mixture', async () => {
  const { store } = await newStore()
  const versions = ['a', 'b', 'c', 'd', 'e', 'f'].map((letter) => Buffer.alloc(256 * 1024, letter))
  // Each version goes up whole in one request, with its MD5 for the service to check; the service replaces
  // the object whole (S3 does, and the s3rver here does too).
  const sent: Buffer[] = []
  store.client.middlewareStack.add(
    (next: any, context: any) => (args: any) => {
      if (context.commandName !== 'PutObjectCommand') return next(args)
      assert.equal(args.input.ContentMD5, createHash('md5').update(args.input.Body).digest('base64'))
      sent.push(args.input.Body)
      return next(args)
    },
    { step: 'initialize' },
  )
  await Promise.all(versions.map((version) => store.put('assets/ord_1/ast_1', version, 'image/png')))
  assert.deepEqual(sent.map((body) => String.fromCharCode(body[0]!)).sort(), ['a', 'b', 'c', 'd', 'e', 'f'])
  assert.ok(
    sent.every((body) => body.equals(Buffer.alloc(256 * 1024, body[0]!))),
    'each request is one whole version',
  )
  const stored = await store.get('assets/ord_1/ast_1')
  assert.ok(
    versions.some((version) => version.equals(stored)),
    'the stored content is one of the versions',
  )
})

test('delete removes the blob and nothing else; missing keys and "folders" are fine', async () => {
  const { store, bucket } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('1'), 'image/png')
  await store.put('assets/ord_1/ast_2', Buffer.from('2'), 'image/png')
  await store.put('assets/ord_2/ast_3', Buffer.from('3'), 'image/png')

  await store.delete('assets/ord_1/ast_1')
  assert.equal(await store.exists('assets/ord_1/ast_1'), false)
  await assert.rejects(store.get('assets/ord_1/ast_1'), BlobNotFoundError)
  assert.equal(await store.exists('assets/ord_1/ast_2'), true)

  await store.delete('assets/ord_1') // a "folder" holding a key: nothing to do
  assert.equal(await store.exists('assets/ord_1/ast_2'), true)

  await store.delete('assets/ord_1/ast_2')
  await store.delete('assets/ord_2/ast_3')
  assert.deepEqual(await objectKeys(bucket), [])

  await store.delete('assets/ord_2/ast_3')
  await store.delete('never/written')
})

test('listOlderThan compares with the time each object was written', async () => {
  const { store } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('1'), 'image/png')
  await sleep(5)
  const between = new Date()
  // LastModified has whole seconds: the second write goes into a later second than the cutoff.
  await sleep(1000 - (between.getTime() % 1000) + 50)
  await store.put('assets/ord_1/ast_2', Buffer.from('2'), 'image/png')
  assert.deepEqual(await listAll(store.listOlderThan('assets/', between)), ['assets/ord_1/ast_1'])
  assert.deepEqual(await listAll(store.listOlderThan('assets/', new Date(Date.now() + 60_000))), [
    'assets/ord_1/ast_1',
    'assets/ord_1/ast_2',
  ])
  assert.deepEqual(await listAll(store.listOlderThan('assets/', new Date(Date.now() - 60_000))), [])
})

test('listOlderThan follows continuation tokens over several pages', async () => {
  const { store } = await newStore({ pageSize: 2 })
  const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((letter) => `assets/ord_1/ast_${letter}`)
  for (const key of keys) await store.put(key, Buffer.from(key), 'image/png')
  await store.put('thumbnails/ord_1/ast_a.jpg', Buffer.from('t'), 'image/jpeg')
  const commands = recordCommands(store)
  assert.deepEqual(await listAll(store.listOlderThan('assets/', new Date(Date.now() + 60_000))), keys)
  assert.deepEqual(commands, Array(4).fill('ListObjectsV2Command'))
})

test('listOlderThan skips objects the store cannot have written (folder markers, other names)', async () => {
  const { store, bucket } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('1'), 'image/png')
  for (const foreign of ['assets/.DS_Store', 'assets/ord 2/x', 'assets/ord_3/']) {
    await admin.send(new PutObjectCommand({ Bucket: bucket, Key: foreign, Body: 'x' }))
  }
  assert.deepEqual(await listAll(store.listOlderThan('', new Date(Date.now() + 60_000))), ['assets/ord_1/ast_1'])
})

test('with a prefix, keys live under it, and objects beside it are neither seen nor touched', async () => {
  const { store, bucket } = await newStore({ prefix: 'printroute' }) // the final slash is added
  assert.equal(store.prefix, 'printroute/')
  await admin.send(new PutObjectCommand({ Bucket: bucket, Key: 'assets/ord_1/ast_1', Body: 'not ours' }))
  await admin.send(new PutObjectCommand({ Bucket: bucket, Key: 'printroute-old/assets/x', Body: 'not ours' }))
  await store.put('assets/ord_1/ast_1', Buffer.from('ours'), 'image/png')
  assert.deepEqual(await objectKeys(bucket), [
    'assets/ord_1/ast_1',
    'printroute-old/assets/x',
    'printroute/assets/ord_1/ast_1',
  ])
  assert.equal((await store.get('assets/ord_1/ast_1')).toString(), 'ours')
  assert.equal(await contentType(bucket, 'printroute/assets/ord_1/ast_1'), 'image/png')
  assert.deepEqual(await listAll(store.listOlderThan('', new Date(Date.now() + 60_000))), ['assets/ord_1/ast_1'])
  await store.delete('assets/ord_1/ast_1')
  assert.deepEqual(await objectKeys(bucket), ['assets/ord_1/ast_1', 'printroute-old/assets/x'])
  assert.equal(String(store), `s3://${bucket}/printroute/ at ${endpoint}`)
})

test('keys with "..", absolute paths, backslashes or odd characters are refused before any request', async () => {
  const { store } = await newStore()
  const commands = recordCommands(store)
  const bad = [
    '',
    '/etc/passwd',
    '../outside',
    'assets/../../outside',
    'assets/./ast_1',
    'assets//ast_1',
    'assets/ast_1/',
    '..',
    '.',
    '.hidden',
    'assets\\ast_1',
    'C:/Windows/win.ini',
    'assets/ast 1',
    'assets/ast_1\n',
    'assets/ast\u00e9',
    'assets/\0',
    '-rf',
    `assets/${'a'.repeat(201)}`,
    `${'a/'.repeat(512)}a`,
  ]
  for (const key of bad) {
    assert.notEqual(blobKeyProblem(key), null, JSON.stringify(key))
    await assert.rejects(store.put(key, Buffer.from('x'), 'image/png'), InvalidBlobKeyError, JSON.stringify(key))
    await assert.rejects(store.put(key, join(scratch, 'no-such-file'), 'image/png'), InvalidBlobKeyError)
    await assert.rejects(store.get(key), InvalidBlobKeyError)
    await assert.rejects(store.openRead(key), InvalidBlobKeyError)
    await assert.rejects(store.exists(key), InvalidBlobKeyError)
    await assert.rejects(store.delete(key), InvalidBlobKeyError)
    assert.throws(() => store.localPath(key), InvalidBlobKeyError)
  }
  assert.deepEqual(commands, [])
  await assert.rejects(store.get('assets/../x'), /Invalid blob key "assets\/..\/x": it has the segment ".."/)
})

test('a key that is valid alone but too long for S3 with the store prefix is refused', async () => {
  const { store } = await newStore({ prefix: 'printroute/' })
  const key = `${`${'abcdefghij'.repeat(20)}/`.repeat(5)}${'x'.repeat(19)}`
  assert.equal(key.length, 1024)
  assert.equal(blobKeyProblem(key), null)
  await assert.rejects(store.put(key, Buffer.from('x'), 'image/png'), /with the store's prefix "printroute\/"/)
  assert.throws(() => store.localPath(key), InvalidBlobKeyError)
})

test('prefixes with "..", a leading slash or odd characters are refused', async () => {
  const { store } = await newStore()
  const commands = recordCommands(store)
  for (const bad of ['../', '/assets', 'assets/../', 'assets/./x', 'assets\\', 'a b']) {
    await assert.rejects(listAll(store.listOlderThan(bad, new Date())), InvalidBlobKeyError, bad)
  }
  assert.deepEqual(commands, [])
})

test('checkAccess passes for a bucket that exists and fails for one that does not', async () => {
  const { store } = await newStore({ prefix: 'printroute/' })
  await store.checkAccess()
  const missing = createS3BlobStore({ bucket: 'no-such-bucket', endpoint, region: 'us-east-1', ...credentials })
  stores.push(missing)
  await assert.rejects(missing.checkAccess(), { name: 'NoSuchBucket' })
  // A missing bucket is a setup error, never taken for a missing blob.
  await assert.rejects(missing.get('assets/ord_1/ast_1'), { name: 'NoSuchBucket' })
})

test('the credentials given are the ones used', async () => {
  const { bucket } = await newStore()
  // s3rver knows the access key S3RVER only (and does not check SigV4 signatures themselves).
  const wrong = createS3BlobStore({
    bucket,
    endpoint,
    region: 'us-east-1',
    accessKeyId: 'AKIAOTHER',
    secretAccessKey: 'S3RVER',
  })
  stores.push(wrong)
  await assert.rejects(wrong.put('assets/ord_1/ast_1', Buffer.from('x'), 'image/png'), { name: 'InvalidAccessKeyId' })
  await assert.rejects(wrong.get('assets/ord_1/ast_1'), { name: 'InvalidAccessKeyId' })
})

test('without credentials in the options the default chain reads AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY', async () => {
  const { bucket } = await newStore()
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER'
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER'
  try {
    const store = createS3BlobStore({ bucket, endpoint })
    stores.push(store)
    await store.put('assets/ord_1/ast_1', Buffer.from('env'), 'image/png')
    assert.equal((await store.get('assets/ord_1/ast_1')).toString(), 'env')
  } finally {
    delete process.env.AWS_ACCESS_KEY_ID
    delete process.env.AWS_SECRET_ACCESS_KEY
  }
})

test('the region is the option, else AWS_REGION, else us-east-1', async () => {
  const named = createS3BlobStore({ bucket: 'some-bucket', endpoint, region: 'eu-west-1' })
  const fallback = createS3BlobStore({ bucket: 'some-bucket', endpoint })
  stores.push(named, fallback)
  assert.equal(await named.client.config.region(), 'eu-west-1')
  assert.equal(await fallback.client.config.region(), 'us-east-1')
  process.env.AWS_REGION = 'ap-southeast-2'
  try {
    const fromEnvironment = createS3BlobStore({ bucket: 'some-bucket' })
    stores.push(fromEnvironment)
    assert.equal(await fromEnvironment.client.config.region(), 'ap-southeast-2')
  } finally {
    delete process.env.AWS_REGION
  }
})

test('path-style addressing is the default with an endpoint, virtual-hosted without', async () => {
  const withEndpoint = createS3BlobStore({ bucket: 'some-bucket', endpoint })
  const virtualHosted = createS3BlobStore({ bucket: 'some-bucket', endpoint, forcePathStyle: false })
  const aws = createS3BlobStore({ bucket: 'some-bucket', region: 'eu-west-1' })
  stores.push(withEndpoint, virtualHosted, aws)
  assert.equal(withEndpoint.client.config.forcePathStyle, true)
  assert.equal(virtualHosted.client.config.forcePathStyle, false)
  assert.equal(aws.client.config.forcePathStyle, false)
})

test('store options that cannot work are refused up front', () => {
  const base = { bucket: 'printroute-files' }
  const bad: [Partial<S3BlobStoreOptions>, RegExp][] = [
    [{ bucket: '' }, /bucket name/],
    [{ bucket: 'ab' }, /bucket name/],
    [{ bucket: 'a/b' }, /bucket name/],
    [{ bucket: '-files' }, /bucket name/],
    [{ prefix: '../x' }, /key prefix/],
    [{ prefix: '/printroute' }, /key prefix/],
    [{ prefix: 'a//b/' }, /key prefix/],
    [{ prefix: 'print route/' }, /key prefix/],
    [{ endpoint: 'minio:9000' }, /endpoint/],
    [{ endpoint: 'ftp://minio:9000' }, /only http and https/],
    [{ endpoint: 'http://key:secret@minio:9000' }, /no credentials/],
    [{ endpoint: 'http://minio:9000/?x=1' }, /no query/],
    [{ region: 'eu west' }, /region/],
    [{ accessKeyId: 'AKIA' }, /both/],
    [{ secretAccessKey: 'secret' }, /both/],
    [{ pageSize: 0 }, /page size/],
    [{ pageSize: 1001 }, /page size/],
    [{ pageSize: 1.5 }, /page size/],
    [{ partSize: 5 * MIB - 1 }, /part size/],
  ]
  for (const [options, message] of bad) {
    assert.throws(() => createS3BlobStore({ ...base, ...options }), S3SettingsError, JSON.stringify(options))
    assert.throws(() => createS3BlobStore({ ...base, ...options }), message, JSON.stringify(options))
  }
})

test('parseS3Url reads bucket, prefix, endpoint, region and path style', () => {
  assert.deepEqual(
    parseS3Url('s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true'),
    {
      bucket: 'bucket',
      prefix: 'prefix/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    },
  )
  assert.deepEqual(parseS3Url('s3://printroute-files'), { bucket: 'printroute-files' })
  assert.deepEqual(parseS3Url('s3://printroute-files/'), { bucket: 'printroute-files' })
  assert.deepEqual(parseS3Url(' s3://printroute-files/shop/printroute/ '), {
    bucket: 'printroute-files',
    prefix: 'shop/printroute/',
  })
  assert.deepEqual(parseS3Url('s3://files?forcePathStyle=false&region=auto'), {
    bucket: 'files',
    region: 'auto',
    forcePathStyle: false,
  })
  assert.deepEqual(parseS3Url('s3://files/p?endpoint=https%3A%2F%2Facct.r2.cloudflarestorage.com'), {
    bucket: 'files',
    prefix: 'p/',
    endpoint: 'https://acct.r2.cloudflarestorage.com',
  })
})

test('parseS3Url refuses what it cannot read, and credentials in any form', () => {
  const bad: [string, RegExp][] = [
    ['', /expected s3:\/\/<bucket>/],
    ['printroute-files', /expected s3:\/\/<bucket>/],
    ['https://printroute-files.s3.amazonaws.com/', /expected s3:\/\/<bucket>/],
    ['s3://files#fragment', /expected s3:\/\/<bucket>/],
    ['s3://', /bucket name/],
    ['s3:///prefix', /bucket name/],
    ['s3://AKIA:secret@files/', /AWS_ACCESS_KEY_ID/],
    ['s3://files:9000/', /\?endpoint=/],
    ['s3://files//x', /key prefix/],
    ['s3://files/../x', /key prefix/],
    ['s3://files/a b', /key prefix/],
    ['s3://files?accessKeyId=AKIA', /unknown parameter "accessKeyId".*AWS_ACCESS_KEY_ID/],
    ['s3://files?secretAccessKey=x', /AWS_SECRET_ACCESS_KEY/],
    [
      's3://files?endpoint_url=http://minio',
      /unknown parameter "endpoint_url" \(known: endpoint, region, forcePathStyle\)/,
    ],
    ['s3://files?region=eu-west-1&region=us-east-1', /region is given twice/],
    ['s3://files?forcePathStyle=yes', /forcePathStyle is true or false/],
    ['s3://files?forcePathStyle', /forcePathStyle is true or false/],
    ['s3://files?endpoint=minio:9000', /endpoint/],
    ['s3://files?endpoint=http://user:pw@minio:9000', /no credentials/],
  ]
  for (const [url, message] of bad) {
    assert.throws(() => parseS3Url(url), S3SettingsError, url)
    assert.throws(() => parseS3Url(url), message, url)
  }
})

test('a store made from a parsed URL works against the service', async () => {
  const { bucket } = await newStore()
  const store = createS3BlobStore({
    ...parseS3Url(`s3://${bucket}/printroute?endpoint=${endpoint}&region=us-east-1&forcePathStyle=true`),
    ...credentials,
  })
  stores.push(store)
  await store.put('assets/ord_1/ast_1', Buffer.from('via url'), 'image/png')
  assert.deepEqual(await objectKeys(bucket), ['printroute/assets/ord_1/ast_1'])
  assert.equal((await store.get('assets/ord_1/ast_1')).toString(), 'via url')
})
