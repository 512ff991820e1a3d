// A claim's photo (docs/claims.md#evidence), made safe to keep and show: the header is read first, so an image bomb
// (a small file that decodes to billions of pixels) is refused before anything is decoded; then the image is decoded
// once, turned upright by its EXIF orientation, and encoded afresh in its own format. sharp writes no metadata unless
// asked, so the camera's EXIF (GPS position, serial numbers), XMP, IPTC and comments never reach the operator or the
// lab. Used for merchants' and labs' evidence alike.
import { MAX_EVIDENCE_PIXELS } from '../domain/claims.ts'

export type EvidenceImage =
  | { kind: 'image'; data: Buffer; contentType: 'image/jpeg' | 'image/png'; width: number; height: number }
  /** Not a JPEG or PNG, or not decodable: `reason` says what, for the error body. */
  | { kind: 'refused'; reason: string }

const FORMATS = { jpeg: 'image/jpeg', png: 'image/png' } as const

/** The photo re-encoded without its metadata, or why it is refused. */
export async function normaliseEvidenceImage(input: Buffer, maxPixels = MAX_EVIDENCE_PIXELS): Promise<EvidenceImage> {
  const { default: sharp } = await import('sharp')
  let metadata: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>
  try {
    // The header only (nothing decodes): the pixel count is compared with the limit below.
    metadata = await sharp(input, { limitInputPixels: false }).metadata()
  } catch {
    return { kind: 'refused', reason: 'is not a JPEG or PNG image' }
  }
  const format = metadata.format
  if (format !== 'jpeg' && format !== 'png') return { kind: 'refused', reason: 'is not a JPEG or PNG image' }
  const { width = 0, height = 0 } = metadata
  if (width < 1 || height < 1) return { kind: 'refused', reason: 'gives no pixel size' }
  if (width * height > maxPixels) {
    return { kind: 'refused', reason: `has ${width} x ${height} pixels; at most ${maxPixels} pixels are accepted` }
  }
  try {
    // failOn 'error': a truncated or corrupt file is refused rather than kept half grey.
    const image = sharp(input, { limitInputPixels: maxPixels, failOn: 'error' }).rotate()
    const encoded = format === 'jpeg' ? image.jpeg({ quality: 90 }) : image.png()
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true })
    return { kind: 'image', data, contentType: FORMATS[format], width: info.width, height: info.height }
  } catch {
    return { kind: 'refused', reason: 'cannot be decoded (the file is damaged or truncated)' }
  }
}
