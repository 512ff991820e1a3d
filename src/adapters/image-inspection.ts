// Measures an image for the preflight from its header alone (sharp's metadata): format, pixel size after EXIF
// orientation, colour space, embedded profile. Nothing is decoded, so a PNG whose header claims 100,000 x 100,000
// pixels costs no more than any other: it is answered `tooLarge`, as the renderer would refuse it.

import type { FileInspection } from '../domain/preflight.ts'

/** The formats printroute renders (as adapters/image-renderer.ts accepts them). */
const ACCEPTED_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'tiff', 'gif', 'heif', 'avif'])

export async function inspectImage(path: string, contentType: string, maxPixels: number): Promise<FileInspection> {
  const { default: sharp } = await import('sharp')
  let metadata: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>
  try {
    // limitInputPixels: false only for the header: the size is compared with maxPixels below, and nothing decodes.
    metadata = await sharp(path, { limitInputPixels: false }).metadata()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { kind: 'unreadable', reason: `the image cannot be read (${message.slice(0, 200)})` }
  }
  if (!ACCEPTED_FORMATS.has(metadata.format))
    return { kind: 'not-supported', contentType: metadata.format || contentType }
  const { width, height } = metadata.autoOrient ?? metadata
  if (!width || !height) return { kind: 'unreadable', reason: 'the image header gives no pixel size' }
  return {
    kind: 'image',
    format: metadata.format,
    widthPx: width,
    heightPx: height,
    colourSpace: metadata.space ?? 'srgb',
    hasProfile: metadata.hasProfile === true,
    tooLarge: width * height > maxPixels,
  }
}
