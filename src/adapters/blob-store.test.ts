import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { text } from 'node:stream/consumers'
import { after, test } from 'node:test'
import { blobStoreBehaviour } from '../../test/support/blob-store-behaviour.ts'
import { tier } from '../../test/support/tiers.ts'
import {
  blobKeyProblem,
  createFileSystemBlobStore,
  type FileSystemBlobStore,
  InvalidBlobKeyError,
} from './blob-store.ts'

tier('pure')

const scratch = await mkdtemp(join(tmpdir(), 'printroute-blob-store-'))
after(() => rm(scratch, { recursive: true, force: true }))

let counter = 0
async function newStore(): Promise<{ store: FileSystemBlobStore; root: string }> {
  const root = join(scratch, `root-${++counter}`)
  return { store: createFileSystemBlobStore(root), root }
}

blobStoreBehaviour({
  name: 'file system store',
  async newStore() {
    const { store, root } = await newStore()
    return {
      store,
      setWrittenAt: (key, time) => utimes(join(root, key), time, time),
      storedEntries: () => readdir(root),
    }
  },
  listsAcrossFoldersInByteOrder: true,
})

async function listAll(iterable: AsyncIterable<string>): Promise<string[]> {
  const keys: string[] = []
  for await (const key of iterable) keys.push(key)
  return keys
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1))
    .sort()
}

test('the start of a stored file is read for sniffing its type: at most the bytes asked for', async () => {
  const { store } = await newStore()
  await store.put('assets/ord_12/ast_41', Buffer.from('hello print'), 'image/jpeg')
  assert.equal(Buffer.from(await store.readStart('assets/ord_12/ast_41', 5)).toString(), 'hello')
  assert.equal(Buffer.from(await store.readStart('assets/ord_12/ast_41', 64)).toString(), 'hello print')
})

test('a buffer put under a key is read back whole, as a stream, and sits at the key path', async () => {
  const { store, root } = await newStore()
  await store.put('assets/ord_12/ast_40', Buffer.from('hello print'), 'image/jpeg')
  assert.deepEqual(await store.get('assets/ord_12/ast_40'), Buffer.from('hello print'))
  assert.equal(await text(await store.openRead('assets/ord_12/ast_40')), 'hello print')
  assert.equal(store.localPath('assets/ord_12/ast_40'), join(root, 'assets', 'ord_12', 'ast_40'))
  assert.equal(await readFile(join(root, 'assets/ord_12/ast_40'), 'utf8'), 'hello print')
  assert.equal(await store.exists('assets/ord_12/ast_40'), true)
})

test('a file path put under a key is copied, and the source is left in place', async () => {
  const { store } = await newStore()
  const source = join(scratch, `source-${counter}.bin`)
  const content = Buffer.alloc(3 * 1024 * 1024 + 17, 7)
  await writeFile(source, content)
  await store.put('print-files/ord_1/ori_2.pdf', source, 'application/pdf')
  assert.deepEqual(await store.get('print-files/ord_1/ori_2.pdf'), content)
  assert.deepEqual(await readFile(source), content)
})

test('putting the same key again replaces the content, leaving no temp files', async () => {
  const { store, root } = await newStore()
  await store.put('thumbnails/ast_1.jpg', Buffer.from('first version, longer'), 'image/jpeg')
  await store.put('thumbnails/ast_1.jpg', Buffer.from('second'), 'image/jpeg')
  await store.put('thumbnails/ast_1.jpg', Buffer.from('second'), 'image/jpeg')
  assert.equal((await store.get('thumbnails/ast_1.jpg')).toString(), 'second')
  assert.deepEqual(await filesUnder(root), ['thumbnails/ast_1.jpg'])
})

test('concurrent puts of one key leave one complete version, never a mixture', async () => {
  const { store, root } = await newStore()
  const versions = ['a', 'b', 'c', 'd', 'e', 'f'].map((letter) => Buffer.alloc(256 * 1024, letter))
  await Promise.all(versions.map((version) => store.put('assets/ord_1/ast_1', version, 'image/png')))
  const stored = await store.get('assets/ord_1/ast_1')
  assert.ok(versions.some((version) => version.equals(stored)))
  assert.deepEqual(await filesUnder(root), ['assets/ord_1/ast_1'])
})

test('a put that fails (missing source) leaves neither the key nor a temp file, and keeps the old content', async () => {
  const { store, root } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('old'), 'image/png')
  await assert.rejects(store.put('assets/ord_1/ast_1', join(scratch, 'no-such-file'), 'image/png'), { code: 'ENOENT' })
  await assert.rejects(store.put('assets/ord_1/ast_2', join(scratch, 'no-such-file'), 'image/png'), { code: 'ENOENT' })
  assert.equal((await store.get('assets/ord_1/ast_1')).toString(), 'old')
  assert.equal(await store.exists('assets/ord_1/ast_2'), false)
  assert.deepEqual(await filesUnder(root), ['assets/ord_1/ast_1'])
})

test('a crash before the rename leaves only a temp file, which is never a key and can be swept', async () => {
  const { store, root } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('complete'), 'image/png')
  // What a crash mid-write leaves: a half temp file beside the key (named as the store names them).
  const abandoned = join(root, 'assets/ord_1/.ast_2.0123456789abcdef.tmp')
  await writeFile(abandoned, 'half')
  assert.equal(await store.exists('assets/ord_1/ast_2'), false)
  assert.deepEqual(await listAll(store.listOlderThan('', new Date('2100-01-01'))), ['assets/ord_1/ast_1'])

  const old = new Date('2026-01-01T00:00:00Z')
  assert.equal(await store.removeAbandonedTempFiles(old), 0) // too recent: may be a write in progress
  await utimes(abandoned, old, old)
  assert.equal(await store.removeAbandonedTempFiles(new Date('2026-01-02T00:00:00Z')), 1)
  assert.deepEqual(await filesUnder(root), ['assets/ord_1/ast_1'])
})

test('delete removes the blob and the directories it leaves empty, never the root; missing keys are fine', async () => {
  const { store, root } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('1'), 'image/png')
  await store.put('assets/ord_1/ast_2', Buffer.from('2'), 'image/png')
  await store.put('assets/ord_2/ast_3', Buffer.from('3'), 'image/png')

  await store.delete('assets/ord_1/ast_1')
  assert.equal(await store.exists('assets/ord_1/ast_1'), false)
  assert.equal(await store.exists('assets/ord_1/ast_2'), true)

  await store.delete('assets/ord_1/ast_2')
  await assert.rejects(stat(join(root, 'assets/ord_1')), { code: 'ENOENT' })
  assert.ok((await stat(join(root, 'assets'))).isDirectory()) // still holds ord_2

  await store.delete('assets/ord_2/ast_3')
  assert.deepEqual(await readdir(root), [])

  await store.delete('assets/ord_2/ast_3')
  await store.delete('never/written')
  await store.delete('assets') // a missing directory-like key: nothing to do
})

test('delete of a key that is a directory of other keys removes nothing', async () => {
  const { store } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('1'), 'image/png')
  await store.delete('assets/ord_1')
  assert.equal(await store.exists('assets/ord_1/ast_1'), true)
})

test('a put racing a delete that prunes its directory still lands', async () => {
  const { store } = await newStore()
  for (let round = 0; round < 25; round++) {
    await store.put('assets/ord_1/ast_1', Buffer.from('a'), 'image/png')
    await Promise.all([
      store.delete('assets/ord_1/ast_1'),
      store.put('assets/ord_1/ast_2', Buffer.from('b'), 'image/png'),
    ])
    assert.equal((await store.get('assets/ord_1/ast_2')).toString(), 'b')
    await store.delete('assets/ord_1/ast_2')
  }
})

test('listOlderThan ignores files the store did not write (hidden files, symlinks)', async () => {
  const { store, root } = await newStore()
  await store.put('assets/ord_1/ast_1', Buffer.from('1'), 'image/png')
  await writeFile(join(root, 'assets/.DS_Store'), 'x')
  await symlink(join(root, 'assets/ord_1/ast_1'), join(root, 'assets/ord_1/link'))
  assert.deepEqual(await listAll(store.listOlderThan('', new Date('2100-01-01'))), ['assets/ord_1/ast_1'])
})

test('keys with "..", absolute paths, backslashes or odd characters are refused before any file access', async () => {
  const { store, root } = await newStore()
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
    'assets/.ast_1.0123456789abcdef.tmp',
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
    await assert.rejects(store.get(key), InvalidBlobKeyError)
    await assert.rejects(store.openRead(key), InvalidBlobKeyError)
    await assert.rejects(store.exists(key), InvalidBlobKeyError)
    await assert.rejects(store.delete(key), InvalidBlobKeyError)
    assert.throws(() => store.localPath(key), InvalidBlobKeyError)
  }
  await assert.rejects(stat(root), { code: 'ENOENT' }) // nothing was created
  for (const good of ['assets/ord_12/ast_40', 'thumbnails/ast_40.jpg', 'a', '_x/y-z.1', `assets/${'a'.repeat(200)}`]) {
    assert.equal(blobKeyProblem(good), null, good)
  }
})

test('prefixes with "..", a leading slash or odd characters are refused', async () => {
  const { store } = await newStore()
  for (const bad of ['../', '/assets', 'assets/../', 'assets/./x', 'assets\\', 'a b']) {
    await assert.rejects(listAll(store.listOlderThan(bad, new Date())), InvalidBlobKeyError, bad)
  }
})

test('the error message says what is wrong with a key', async () => {
  const { store } = await newStore()
  await assert.rejects(store.get('assets/../x'), /Invalid blob key "assets\/..\/x": it has the segment ".."/)
  await assert.rejects(store.get('assets//x'), /empty segment/)
})
