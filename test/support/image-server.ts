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

/** One bit of a cell's pattern in detailedPhoto: a small integer hash, so no two cells need look alike. */
function cellBit(column: number, row: number, index: number): boolean {
  let hash = Math.imul(column, 73_856_093) ^ Math.imul(row, 19_349_663) ^ Math.imul(index, 83_492_791)
  hash = Math.imul(hash ^ (hash >>> 13), 0x5bd1e995)
  return ((hash ^ (hash >>> 15)) & 1) === 1
}

/**
 * A photo-like test image with detail everywhere, so that any misplacement shows: a colour gradient across and
 * down (no two places have the same colour), a dark grid every 64 px, and in each cell a 3x3 text-like pattern of
 * light blocks that differs from cell to cell and has no symmetry (a shift by whole cells, a turn or a flip shows
 * too). Softened by a 1.5 px blur, as a camera's optics soften a real photo: pixel-sharp edges would alias
 * differently at every scale, which is no property of a print. `orientation` writes that EXIF orientation over
 * the stored pixels (sharp's numbering: 6 shows them turned a quarter clockwise, 8 anticlockwise).
 */
export async function detailedPhoto(width: number, height: number, orientation?: number): Promise<Buffer> {
  const cell = 64
  const line = 4
  const block = 16
  const pad = (cell - 3 * block) / 2
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let pixel = [
        40 + (180 * x) / (width - 1),
        40 + (180 * y) / (height - 1),
        200 - (150 * (x + y)) / (width + height),
      ]
      const [cellX, cellY] = [x % cell, y % cell]
      if (cellX < line || cellY < line) pixel = [15, 15, 15]
      else if (cellX >= pad && cellX < pad + 3 * block && cellY >= pad && cellY < pad + 3 * block) {
        const index = Math.floor((cellX - pad) / block) + 3 * Math.floor((cellY - pad) / block)
        if (cellBit(Math.floor(x / cell), Math.floor(y / cell), index)) pixel = [245, 245, 245]
      }
      raw.set(
        pixel.map((value) => Math.round(value)),
        (y * width + x) * 3,
      )
    }
  }
  const blurred = await sharp(raw, { raw: { width, height, channels: 3 } })
    .blur(1.5)
    .raw()
    .toBuffer()
  const image = sharp(blurred, { raw: { width, height, channels: 3 } })
  return (orientation ? image.withMetadata({ orientation }) : image).jpeg({ quality: 92 }).toBuffer()
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
