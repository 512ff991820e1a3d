// A local S3-compatible server (s3rver) on 127.0.0.1 for tests, in a child process, storing its objects under
// a directory of its own.
//
// s3rver runs in a child process: it makes its continuation tokens with DES, which OpenSSL 3 has only in its
// legacy provider, and only a command-line flag enables that. It stops when this process closes its stdin.
//
// One fix to s3rver there: it answers a PutObject once the body has been hashed, before its write stream has
// written the file, and writes in place, so a read (or a test's utimes) right after a put can meet a file still
// being written, and concurrent puts can mix. Its putObject here writes a temp file and renames it over the
// object before answering, which is what S3 guarantees: an object is replaced whole, when the request completes.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** The credentials s3rver accepts (its defaults). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const

export interface S3rver {
  /** `http://127.0.0.1:<port>` */
  endpoint: string
  /** Where s3rver keeps the buckets: `<directory>/<bucket>/<key path>._S3rver_object` per object. */
  directory: string
  stop(): Promise<void>
}

/** Starts s3rver on a free port of 127.0.0.1, storing under `directory` (created if missing). */
export async function startS3rver(directory: string): Promise<S3rver> {
  await mkdir(directory, { recursive: true })
  const s3rverModule = createRequire(import.meta.url).resolve('s3rver')
  const script = `
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { Transform } = require('node:stream')
const { pipeline } = require('node:stream/promises')
const S3rver = require(${JSON.stringify(s3rverModule)})
const FilesystemStore = require(${JSON.stringify(join(dirname(s3rverModule), 'stores', 'filesystem.js'))})
FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object')
  await fs.promises.mkdir(path.dirname(objectPath), { recursive: true })
  const temp = objectPath + '.' + crypto.randomBytes(8).toString('hex') + '.upload'
  const hash = crypto.createHash('md5')
  let size = 0
  const count = new Transform({
    transform(chunk, encoding, callback) {
      hash.update(chunk)
      size += chunk.length
      callback(null, chunk)
    },
  })
  const source = Buffer.isBuffer(object.content) ? [object.content] : object.content
  await pipeline(source, count, fs.createWriteStream(temp))
  await fs.promises.rename(temp, objectPath)
  const md5 = hash.digest('hex')
  await this.putMetadata(object.bucket, object.key, object.metadata, md5)
  return { size, md5 }
}
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(directory)} })
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'))
process.stdin.on('end', () => server.close().then(() => process.exit(0)))
process.stdin.resume()
`
  const child: ChildProcess = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--input-type=commonjs', '-e', script],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const [firstLine] = (await once(child.stdout!, 'data')) as [Buffer]
  const { port } = JSON.parse(firstLine.toString()) as { port: number }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    async stop() {
      const exited = once(child, 'exit')
      child.stdin!.end()
      await exited
    },
  }
}
