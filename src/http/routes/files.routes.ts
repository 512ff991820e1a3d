// GET /files/<key>?expires=&signature=: stored files (thumbnails, print files, kept copies for labs) under
// signed URLs. The signature is the authorisation: no API key, no database lookup.
import { open } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { sniffContentType } from '../../domain/content-type.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { FILE_PATH_PREFIX, verifyFilePath } from '../../domain/signed-urls.ts'
import { sendError } from '../errors.ts'

export interface ServedFiles {
  openRead(key: string): Promise<NodeJS.ReadableStream>
  localPath(key: string): string | null
  exists(key: string): Promise<boolean>
}

/** The first bytes of a stored file, to name its type by its content (assets are kept without extension). */
async function firstBytes(files: ServedFiles, key: string): Promise<Uint8Array> {
  const path = files.localPath(key)
  if (!path) return new Uint8Array()
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(16)
    const { bytesRead } = await handle.read(buffer, 0, 16, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

// Print files and thumbnails carry their extension; kept copies of assets are sniffed (local files only).
const TYPE_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  tiff: 'image/tiff',
  pdf: 'application/pdf',
}

export function registerFileRoutes(
  app: FastifyInstance,
  deps: { files: ServedFiles; signingSecret: string; now: () => Date },
): void {
  app.get(`${FILE_PATH_PREFIX}*`, { schema: { hide: true }, config: { auth: false } }, async (request, reply) => {
    const url = new URL(request.url, 'http://files.invalid')
    const key = decodeURIComponent(url.pathname.slice(FILE_PATH_PREFIX.length))
    const valid = verifyFilePath(
      deps.signingSecret,
      key,
      url.searchParams.get('expires'),
      url.searchParams.get('signature'),
      deps.now(),
    )
    if (!valid || !(await deps.files.exists(key))) {
      return sendError(request, reply, new ServiceError('EntityNotFound', 'No such file, or the link has expired'))
    }
    const type =
      TYPE_BY_EXTENSION[key.slice(key.lastIndexOf('.') + 1)] ??
      sniffContentType(await firstBytes(deps.files, key)) ??
      'application/octet-stream'
    return reply
      .type(type)
      .header('cache-control', 'private, max-age=86400')
      .send(await deps.files.openRead(key))
  })
}
