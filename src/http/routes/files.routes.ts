// GET /files/<key>?expires=&signature=: stored files (thumbnails, print files, kept copies for labs) under
// signed, expiring links bound to their environment (domain/signed-urls.ts). The signature is the
// authorisation: no API key, no database lookup. An expired link is 410 LinkExpired, another environment's
// link or anything unsigned 404 EntityNotFound (docs/assets.md, "File links").
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { SNIFF_BYTES, sniffContentType } from '../../domain/content-type.ts'
import { environmentName } from '../../domain/environment.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { FILE_PATH_PREFIX, type FileEnvironment, type FileLinkCheck, type FileLinks } from '../../domain/signed-urls.ts'
import { sendError } from '../errors.ts'

/**
 * The signed link of `key` as a file route received it (its `expires` and `signature`), and the refusal to send
 * when it expired (`LinkExpired`, saying where a fresh one is: `freshFrom`) or belongs to the other environment
 * (`EntityNotFound`, naming that environment's address). Every route serving signed files checks its links here.
 */
export function checkSignedLink(
  request: FastifyRequest,
  deps: { links: FileLinks; environment: FileEnvironment },
  key: string,
  freshFrom: string,
): { link: FileLinkCheck; refusal: ServiceError | null } {
  const url = new URL(request.url, 'http://files.invalid')
  const link = deps.links.check(
    deps.environment,
    key,
    url.searchParams.get('expires'),
    url.searchParams.get('signature'),
  )
  if (link.status === 'expired') {
    const statusText = `This link expired at ${link.expiresAt.toISOString()}; ${freshFrom} for a fresh one`
    return { link, refusal: new ServiceError('LinkExpired', statusText, { expiredAt: link.expiresAt }) }
  }
  if (link.status === 'otherEnvironment') {
    const owner = environmentName(link.environment)
    const statusText = `This link belongs to the ${owner} environment: open it on the ${owner} address`
    return { link, refusal: new ServiceError('EntityNotFound', statusText) }
  }
  return { link, refusal: null }
}

export interface ServedFiles {
  openRead(key: string): Promise<NodeJS.ReadableStream>
  readStart(key: string, byteCount: number): Promise<Uint8Array>
  exists(key: string): Promise<boolean>
}

// Print files and thumbnails carry their extension; kept copies of assets are sniffed
// (by the local store only, adapters/blob-store.ts).
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
  app.get(`${FILE_PATH_PREFIX}*`, { schema: { hide: true }, config: { auth: false } }, async (request, reply) => {
    // The router has decoded the path already: a malformed escape never gets here (errors.ts answers it).
    const key = decodeURIComponent(new URL(request.url, 'http://files.invalid').pathname.slice(FILE_PATH_PREFIX.length))
    const { link, refusal } = checkSignedLink(request, deps, key, 'read the order again')
    if (refusal) return sendError(request, reply, refusal)
    if (link.status !== 'valid' || !(await deps.files.exists(key))) {
      return sendError(request, reply, new ServiceError('EntityNotFound', 'No such file, or the link is not valid'))
    }
    const type =
      TYPE_BY_EXTENSION[key.slice(key.lastIndexOf('.') + 1)] ??
      sniffContentType(await deps.files.readStart(key, SNIFF_BYTES)) ??
      'application/octet-stream'
    // Caches keep the file no longer than the link works.
    const secondsLeft = Math.max(0, Math.floor((link.expiresAt.getTime() - Date.now()) / 1000))
    return reply
      .type(type)
      .header('cache-control', `private, max-age=${Math.min(86_400, secondsLeft)}`)
      .send(await deps.files.openRead(key))
  })
}
