// Stored files (downloaded assets, thumbnails, rendered print files) behind one small interface, so the
// single-machine default (a directory) and a later S3-compatible store (docs/assets.md) are interchangeable.
// Keys are relative, slash-separated names such as `assets/ord_12/ast_40`.
import { randomBytes } from 'node:crypto'
import { constants as fsConstants } from 'node:fs'
import { copyFile, mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'

export interface BlobStore {
  /**
   * Stores the file at `source` (a path, copied) or the buffer under `key`, replacing what is there. A reader
   * sees the old content or the new, never a mixture or a partial file, also across a crash.
   */
  put(key: string, source: string | Buffer, contentType: string): Promise<void>
  /** The whole content; `BlobNotFoundError` when there is none. Meant for small files (thumbnails). */
  get(key: string): Promise<Buffer>
  /** A stream of the content; `BlobNotFoundError` when there is none. */
  openRead(key: string): Promise<Readable>
  /** The file's path for a store on the local disk (sharp reads paths fastest), null for remote stores. */
  localPath(key: string): string | null
  exists(key: string): Promise<boolean>
  /**
   * Up to `byteCount` bytes from the start of the content, to name a file's type by what it holds (assets are
   * kept without an extension). Empty when the store cannot read part of a file cheaply.
   */
  readStart(key: string, byteCount: number): Promise<Uint8Array>
  /** Removes the blob; a key that holds nothing is fine. */
  delete(key: string): Promise<void>
  /** Keys starting with `prefix` (a plain string prefix, as in S3) last written before `cutoff`, in byte order. */
  listOlderThan(prefix: string, cutoff: Date): AsyncIterable<string>
}

export class InvalidBlobKeyError extends Error {
  override name = 'InvalidBlobKeyError'
}

export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError'
  readonly code = 'BlobNotFound'
  readonly key: string

  constructor(key: string) {
    super(`No stored file under ${key}`)
    this.key = key
  }
}

// S3 allows 1024 bytes per key; the same limit here keeps keys portable between the two stores.
export const MAX_BLOB_KEY_LENGTH = 1024
// A temp file name adds 22 characters (".", ".", 16 hex, ".tmp") to a segment and must stay within the
// 255-byte file name limit of ext4, XFS, APFS and NTFS.
const MAX_SEGMENT_LENGTH = 200
// Segments start with a letter, digit or underscore: no ".", "..", hidden files, or names that read as
// command-line options; the only other characters are ".", "-" and "_". Temp files start with "." and so
// can never be taken for a key.
const SEGMENT_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/
const PREFIX_PATTERN = /^[A-Za-z0-9._/-]*$/
const TEMP_FILE_PATTERN = /^\..+\.[0-9a-f]{16}\.tmp$/

/** Why `key` is not a valid blob key, or null when it is. */
export function blobKeyProblem(key: string): string | null {
  if (typeof key !== 'string' || key.length === 0) return 'is empty'
  if (key.length > MAX_BLOB_KEY_LENGTH) return `is longer than ${MAX_BLOB_KEY_LENGTH} characters`
  for (const segment of key.split('/')) {
    if (segment.length === 0) return 'has an empty segment (a leading, trailing or double slash)'
    if (segment.length > MAX_SEGMENT_LENGTH) return `has a segment longer than ${MAX_SEGMENT_LENGTH} characters`
    if (!SEGMENT_PATTERN.test(segment)) {
      return `has the segment "${segment}": segments are letters, digits, ".", "-" and "_", starting with a letter, digit or "_"`
    }
  }
  return null
}

export function assertValidBlobKey(key: string): void {
  const problem = blobKeyProblem(key)
  if (problem !== null) throw new InvalidBlobKeyError(`Invalid blob key ${JSON.stringify(key)}: it ${problem}`)
}

/** A `listOlderThan` prefix: a plain string prefix of keys, in every store (the file system's and S3's). */
export function assertValidPrefix(prefix: string): void {
  if (
    typeof prefix !== 'string' ||
    !PREFIX_PATTERN.test(prefix) ||
    prefix.startsWith('/') ||
    prefix.split('/').some((segment) => segment === '..' || segment === '.')
  ) {
    throw new InvalidBlobKeyError(`Invalid blob key prefix ${JSON.stringify(prefix)}`)
  }
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException)?.code ?? '')
}

// Makes a rename (or an unlink) in `directory` durable. Windows cannot open directories for fsync; there
// NTFS journaling of metadata is what durability rests on.
async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    handle = await open(directory, 'r')
    await handle.sync()
  } catch (error) {
    if (!isErrno(error, 'EISDIR', 'EPERM', 'EACCES', 'EINVAL')) throw error
  } finally {
    await handle?.close()
  }
}

/**
 * Blobs as files under `rootDir` (printroute uses `<data dir>/files`), one file per key at the key's path.
 * The content type is not recorded: local files are served with the type sniffed from their first bytes.
 */
export class FileSystemBlobStore implements BlobStore {
  readonly rootDir: string

  constructor(rootDir: string) {
    this.rootDir = resolve(rootDir)
  }

  #path(key: string): string {
    assertValidBlobKey(key)
    return join(this.rootDir, ...key.split('/'))
  }

  async put(key: string, source: string | Buffer, _contentType: string): Promise<void> {
    const target = this.#path(key)
    const directory = dirname(target)
    // A concurrent `delete` may remove the (then empty) directory between mkdir and creating the temp file, or
    // prune a parent while mkdir creates the path one level at a time (mkdir then fails with ENOENT); creating it
    // again settles either race.
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(directory, { recursive: true })
        await this.#writeAtomically(target, source)
        return
      } catch (error) {
        const directoryIsGone = isErrno(error, 'ENOENT') && !(await stat(directory).catch(() => null))
        if (!directoryIsGone || attempt === 5) throw error
      }
    }
  }

  async #writeAtomically(target: string, source: string | Buffer): Promise<void> {
    const directory = dirname(target)
    const temp = join(directory, `.${target.slice(directory.length + 1)}.${randomBytes(8).toString('hex')}.tmp`)
    try {
      if (typeof source === 'string') {
        await copyFile(source, temp, fsConstants.COPYFILE_EXCL)
        const handle = await open(temp, 'r+')
        try {
          await handle.sync()
        } finally {
          await handle.close()
        }
      } else {
        const handle = await open(temp, 'wx')
        try {
          await handle.writeFile(source)
          await handle.sync()
        } finally {
          await handle.close()
        }
      }
      // rename(2) replaces the target atomically: readers see the old file or the new one.
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
    await syncDirectory(directory)
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.#path(key))
    } catch (error) {
      if (isErrno(error, 'ENOENT', 'ENOTDIR', 'EISDIR')) throw new BlobNotFoundError(key)
      throw error
    }
  }

  async openRead(key: string): Promise<Readable> {
    const path = this.#path(key)
    let handle: Awaited<ReturnType<typeof open>>
    try {
      handle = await open(path, 'r')
    } catch (error) {
      if (isErrno(error, 'ENOENT', 'ENOTDIR')) throw new BlobNotFoundError(key)
      throw error
    }
    // Opened first, so a missing file is reported here rather than as a stream error; the stream then owns
    // the handle and closes it at its end.
    const info = await handle.stat()
    if (!info.isFile()) {
      await handle.close()
      throw new BlobNotFoundError(key)
    }
    return handle.createReadStream()
  }

  localPath(key: string): string {
    return this.#path(key)
  }

  async readStart(key: string, byteCount: number): Promise<Uint8Array> {
    const handle = await open(this.#path(key), 'r')
    try {
      const buffer = Buffer.alloc(byteCount)
      const { bytesRead } = await handle.read(buffer, 0, byteCount, 0)
      return buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  }

  async exists(key: string): Promise<boolean> {
    const info = await stat(this.#path(key)).catch((error) => {
      if (isErrno(error, 'ENOENT', 'ENOTDIR')) return null
      throw error
    })
    return info?.isFile() ?? false
  }

  async delete(key: string): Promise<void> {
    const path = this.#path(key)
    try {
      const info = await stat(path)
      if (!info.isFile()) return // a directory holding other keys, not a blob
    } catch (error) {
      if (isErrno(error, 'ENOENT', 'ENOTDIR')) return
      throw error
    }
    await rm(path, { force: true })
    // Prune directories left empty (the retention job empties one `assets/<order>/` after another), up to
    // but never including the root. A directory still holding anything stops the walk.
    let directory = dirname(path)
    while (directory !== this.rootDir && directory.startsWith(this.rootDir + sep)) {
      try {
        await rmdir(directory)
      } catch {
        break
      }
      directory = dirname(directory)
    }
  }

  async *listOlderThan(prefix: string, cutoff: Date): AsyncIterable<string> {
    assertValidPrefix(prefix)
    const slash = prefix.lastIndexOf('/')
    const base = prefix.slice(0, slash + 1) // the deepest directory every matching key lies under
    yield* this.#walk(base, prefix, cutoff.getTime())
  }

  async *#walk(directoryKey: string, prefix: string, cutoffMs: number): AsyncGenerator<string> {
    const directory = directoryKey === '' ? this.rootDir : join(this.rootDir, ...directoryKey.split('/'))
    let entries: import('node:fs').Dirent[]
    try {
      entries = await readdir(directory, { withFileTypes: true })
    } catch (error) {
      if (isErrno(error, 'ENOENT', 'ENOTDIR')) return
      throw error
    }
    // Sorted as the keys they lead to ("assets/" after "assets-other/", '/' being 0x2F), so the whole walk
    // yields keys in byte order, the order S3 lists them in.
    const sortName = (entry: import('node:fs').Dirent) => (entry.isDirectory() ? `${entry.name}/` : entry.name)
    entries.sort((a, b) => (sortName(a) < sortName(b) ? -1 : sortName(a) > sortName(b) ? 1 : 0))
    for (const entry of entries) {
      if (!SEGMENT_PATTERN.test(entry.name)) continue // temp files and anything not written by this store
      const key = `${directoryKey}${entry.name}`
      if (entry.isDirectory()) {
        // Descend only where keys with the prefix can be: `assets/ord_1` matches `assets/ord_1/...` and
        // `assets/ord_12/...`, so the test is on the shorter of the two strings.
        const childKey = `${key}/`
        if (childKey.startsWith(prefix) || prefix.startsWith(childKey)) yield* this.#walk(childKey, prefix, cutoffMs)
      } else if (entry.isFile() && key.startsWith(prefix)) {
        const info = await stat(join(directory, entry.name)).catch(() => null) // deleted meanwhile: skip
        if (info && info.mtimeMs < cutoffMs) yield key
      }
    }
  }

  /**
   * Removes temp files a crash left behind (named `.<name>.<16 hex>.tmp`, never visible as keys) that were
   * last written before `cutoff`; returns how many. Give a cutoff well before any write still running.
   */
  async removeAbandonedTempFiles(cutoff: Date): Promise<number> {
    let removed = 0
    const visit = async (directory: string): Promise<void> => {
      const entries = await readdir(directory, { withFileTypes: true }).catch(() => [])
      for (const entry of entries) {
        const path = join(directory, entry.name)
        if (entry.isDirectory()) await visit(path)
        else if (entry.isFile() && TEMP_FILE_PATTERN.test(entry.name)) {
          const info = await stat(path).catch(() => null)
          if (info && info.mtimeMs < cutoff.getTime()) {
            await rm(path, { force: true })
            removed++
          }
        }
      }
    }
    await visit(this.rootDir)
    return removed
  }
}

export function createFileSystemBlobStore(rootDir: string): FileSystemBlobStore {
  return new FileSystemBlobStore(rootDir)
}
