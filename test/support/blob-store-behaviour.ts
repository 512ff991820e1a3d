// What every blob store does alike, run against each one (the file system store, the S3 store): a store is
// chosen by configuration, so the pipeline and the retention job must not be able to tell them apart here.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BlobNotFoundError, type BlobStore } from '../../src/adapters/blob-store.ts'

export interface BlobStoreUnderTest {
  store: BlobStore
  /** Makes `key` look last written at `time` (a file's mtime, an object's LastModified). */
  setWrittenAt(key: string, time: Date): Promise<void>
  /** What the storage behind the store holds at its top (directory entries, object keys). */
  storedEntries(): Promise<string[]>
}

export interface BlobStoreKind {
  name: string
  /** A new, empty store; `smallPages`: one that lists a few keys per request, where the store pages at all. */
  newStore(options?: { smallPages?: boolean }): Promise<BlobStoreUnderTest>
  /**
   * Whether a listing across "folders" comes in byte order. S3 does ("assets-other/" before "assets/", '-' being
   * 0x2D and '/' 0x2F); s3rver lists folder by folder, so for it only the set is compared.
   */
  listsAcrossFoldersInByteOrder: boolean
}

async function listAll(iterable: AsyncIterable<string>): Promise<string[]> {
  const keys: string[] = []
  for await (const key of iterable) keys.push(key)
  return keys
}

export function blobStoreBehaviour(kind: BlobStoreKind): void {
  const acrossFolders = (keys: string[]) => (kind.listsAcrossFoldersInByteOrder ? keys : [...keys].sort())

  test(`${kind.name}: reading a missing key is a BlobNotFoundError; exists says false`, async () => {
    const { store } = await kind.newStore()
    await assert.rejects(store.get('assets/ord_9/ast_9'), BlobNotFoundError)
    await assert.rejects(store.openRead('assets/ord_9/ast_9'), (error: unknown) => {
      assert.ok(error instanceof BlobNotFoundError)
      assert.equal(error.code, 'BlobNotFound')
      assert.equal(error.key, 'assets/ord_9/ast_9')
      return true
    })
    assert.equal(await store.exists('assets/ord_9/ast_9'), false)
    // A key that is a directory ("folder") of other keys is not a blob either.
    await store.put('assets/ord_9/ast_9', Buffer.from('x'), 'image/png')
    assert.equal(await store.exists('assets/ord_9'), false)
    await assert.rejects(store.get('assets/ord_9'), BlobNotFoundError)
    await assert.rejects(store.openRead('assets/ord_9'), BlobNotFoundError)
    // A key below a blob is not found (on a file system: rather than an ENOTDIR).
    await assert.rejects(store.get('assets/ord_9/ast_9/more'), BlobNotFoundError)
    assert.equal(await store.exists('assets/ord_9/ast_9/more'), false)
  })

  test(`${kind.name}: listOlderThan yields, in order, the keys under a prefix last written before the cutoff`, async () => {
    const { store, setWrittenAt } = await kind.newStore()
    const old = new Date('2026-01-01T00:00:00Z')
    const recent = new Date('2026-02-15T00:00:00Z')
    const keys = {
      'assets/ord_1/ast_1': old,
      'assets/ord_1/ast_2': recent,
      'assets/ord_12/ast_3': old,
      'assets/ord_2/ast_4': old,
      'thumbnails/ord_1/ast_1.jpg': old,
      'assets-other/x': old,
    }
    for (const [key, time] of Object.entries(keys)) {
      await store.put(key, Buffer.from(key), 'image/png')
      await setWrittenAt(key, time)
    }
    const cutoff = new Date('2026-02-01T00:00:00Z')
    assert.deepEqual(await listAll(store.listOlderThan('assets/', cutoff)), [
      'assets/ord_1/ast_1',
      'assets/ord_12/ast_3',
      'assets/ord_2/ast_4',
    ])
    // A plain string prefix, as in S3: `assets/ord_1` also matches `assets/ord_12`.
    assert.deepEqual(await listAll(store.listOlderThan('assets/ord_1', cutoff)), [
      'assets/ord_1/ast_1',
      'assets/ord_12/ast_3',
    ])
    assert.deepEqual(await listAll(store.listOlderThan('assets/ord_1/', cutoff)), ['assets/ord_1/ast_1'])
    assert.deepEqual(acrossFolders(await listAll(store.listOlderThan('assets', cutoff))), [
      'assets-other/x',
      'assets/ord_1/ast_1',
      'assets/ord_12/ast_3',
      'assets/ord_2/ast_4',
    ])
    assert.deepEqual(acrossFolders(await listAll(store.listOlderThan('', cutoff))), [
      'assets-other/x',
      'assets/ord_1/ast_1',
      'assets/ord_12/ast_3',
      'assets/ord_2/ast_4',
      'thumbnails/ord_1/ast_1.jpg',
    ])
    assert.deepEqual(await listAll(store.listOlderThan('assets/', old)), []) // strictly before the cutoff
    assert.deepEqual(await listAll(store.listOlderThan('nothing/here/', cutoff)), [])
  })

  test(`${kind.name}: listOlderThan allows deleting what it yields while iterating (the retention job does)`, async () => {
    const { store, setWrittenAt, storedEntries } = await kind.newStore({ smallPages: true })
    const old = new Date('2026-01-01T00:00:00Z')
    const keys = [
      'assets/ord_1/ast_1',
      'assets/ord_1/ast_2',
      'assets/ord_2/ast_3',
      'assets/ord_2/ast_4',
      'assets/ord_3/x',
    ]
    for (const key of keys) {
      await store.put(key, Buffer.from(key), 'image/png')
      await setWrittenAt(key, old)
    }
    const deleted: string[] = []
    for await (const key of store.listOlderThan('assets/', new Date('2026-02-01T00:00:00Z'))) {
      await store.delete(key)
      deleted.push(key)
    }
    assert.deepEqual(deleted, keys)
    assert.deepEqual(await storedEntries(), [])
  })

  test(`${kind.name}: listOlderThan on a store never written to yields nothing`, async () => {
    const { store } = await kind.newStore()
    assert.deepEqual(await listAll(store.listOlderThan('', new Date(Date.now() + 60_000))), [])
  })
}
