// GET /files/<key>?expires=&signature=: stored files (thumbnails, print files, kept copies for labs) under
// signed, expiring links bound to their environment (domain/signed-urls.ts). The signature is the
// authorisation: no API key, no database lookup. An expired link is 410 LinkExpired, another environment's
// link or anything unsigned 404 EntityNotFound (docs/assets.md, "File links").
import { open } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { sniffContentType } from '../../domain/content-type.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { FILE_PATH_PREFIX, type FileEnvironment, type FileLinks } from '../../domain/signed-urls.ts'
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
  deps: { files: ServedFiles; links: FileLinks; environment: FileEnvironment },
): void {
  const environmentName = { live: 'Live', sandbox: 'Sandbox' } as const
  app.get(`${FILE_PATH_PREFIX}*`, { schema: { hide: true }, config: { auth: false } }, async (request, reply) => {
    const url = new URL(request.url, 'http://files.invalid')
    // The router has decoded the path already: a malformed escape never gets here (errors.ts answers it).
    const key = decodeURIComponent(url.pathname.slice(FILE_PATH_PREFIX.length))
    const link = deps.links.check(
      deps.environment,
      key,
      url.searchParams.get('expires'),
      url.searchParams.get('signature'),
    )
    if (link.status === 'expired') {
      const statusText = `This link expired at ${link.expiresAt.toISOString()}; read the order again for a fresh one`
      return sendError(request, reply, new ServiceError('LinkExpired', statusText, { expiredAt: link.expiresAt }))
    }
    if (link.status === 'otherEnvironment') {
      const owner = environmentName[link.environment]
      const statusText = `This link belongs to the ${owner} environment: open it on the ${owner} address`
      return sendError(request, reply, new ServiceError('EntityNotFound', statusText))
    }
    if (link.status === 'invalid' || !(await deps.files.exists(key))) {
      return sendError(request, reply, new ServiceError('EntityNotFound', 'No such file, or the link is not valid'))
    }
    const type =
      TYPE_BY_EXTENSION[key.slice(key.lastIndexOf('.') + 1)] ??
      sniffContentType(await firstBytes(deps.files, key)) ??
      'application/octet-stream'
    // Caches keep the file no longer than the link works.
    const secondsLeft = Math.max(0, Math.floor((link.expiresAt.getTime() - Date.now()) / 1000))
    return reply
      .type(type)
      .header('cache-control', `private, max-age=${Math.min(86_400, secondsLeft)}`)
      .send(await deps.files.openRead(key))
  })
}
