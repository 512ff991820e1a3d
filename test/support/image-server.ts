// A local HTTP server standing in for the customer's image host: tests point asset URLs at it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'

export interface ServedFile {
  body: Buffer
  type: string
}

export interface ImageServer {
  /** `http://127.0.0.1:<port>`, for URLs a test spells out itself (a query string, a path it checks). */
  base: string
  url(name: string): string
  /** Every request's path and query, in the order they came. */
  requests: string[]
  close(): Promise<void>
}

/** A one-colour JPEG: quick to make and to render. */
export async function solidJpeg(
  width: number,
  height: number,
  background: { r: number; g: number; b: number } | string,
): Promise<ServedFile> {
  const body = await sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .toBuffer()
  return { body, type: 'image/jpeg' }
}

/** A photo-like test image: four coloured quadrants, so crops and rotations are visible. */
export async function quadrantPhoto(width: number, height: number): Promise<Buffer> {
  const half = (w: number, h: number, r: number, g: number, b: number) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer()
  const [tl, tr, bl, br] = await Promise.all([
    half(Math.ceil(width / 2), Math.ceil(height / 2), 220, 30, 30),
    half(Math.floor(width / 2), Math.ceil(height / 2), 30, 200, 30),
    half(Math.ceil(width / 2), Math.floor(height / 2), 30, 30, 220),
    half(Math.floor(width / 2), Math.floor(height / 2), 230, 230, 30),
  ])
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      { input: tl, left: 0, top: 0 },
      { input: tr, left: Math.ceil(width / 2), top: 0 },
      { input: bl, left: 0, top: Math.ceil(height / 2) },
      { input: br, left: Math.ceil(width / 2), top: Math.ceil(height / 2) },
    ])
    .jpeg({ quality: 90 })
    .toBuffer()
}

/**
 * An HTTP server on 127.0.0.1 answering `/name` (the query ignored) with `files[name]`, and any other path
 * with `otherwise`: by default one small generated 300x500 JPEG, or 404 when `otherwise` is null.
 */
export async function startImageServer(
  files: Record<string, ServedFile> = {},
  otherwise?: ServedFile | null,
): Promise<ImageServer> {
  const fallback = otherwise === undefined ? await solidJpeg(300, 500, { r: 40, g: 120, b: 200 }) : otherwise
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '')
    const file = files[(request.url ?? '').split('?')[0] ?? ''] ?? fallback
    if (!file) {
      response.writeHead(404).end('not found')
      return
    }
    response.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    url: (name) => `${base}/${name}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
