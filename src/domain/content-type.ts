// What an asset really is, decided by its first bytes ("magic numbers"), never by the Content-Type header a
// server claims: hosts routinely send application/octet-stream or text/html for images, and a lab must never
// receive an HTML error page as a print file. Only formats the renderer (sharp/libvips, pdf-lib) reads.
// Hand-written rather than the file-type package: file-type is asynchronous and reads up to 4,100 bytes,
// where the download decides after 12 and refuses a web page without fetching the rest; given 12 bytes it
// does not recognise a classic TIFF (it reads on into the IFD to tell camera raw files apart, which it then
// names image/x-canon-cr2, image/x-nikon-nef, ... rather than TIFF); and it calls "%PDF" without the "-"
// a PDF. Five fixed signatures say exactly what the renderer accepts.

export type SniffedContentType = 'image/jpeg' | 'image/png' | 'image/tiff' | 'image/webp' | 'application/pdf'

/** Bytes `sniffContentType` needs to decide every supported format (WebP: "RIFF", 4 size bytes, "WEBP"). */
export const SNIFF_BYTES = 12

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false
  for (let index = 0; index < signature.length; index++) {
    if (bytes[offset + index] !== signature[index]) return false
  }
  return true
}

// JPEG: SOI marker FF D8 followed by the first segment's FF (JFIF, Exif and raw JPEG alike).
const JPEG = [0xff, 0xd8, 0xff]
// PNG: the fixed 8-byte signature (PNG specification, section 5.2).
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
// TIFF 6.0 section 2: "II" (little-endian) or "MM" (big-endian), then 42 in that byte order.
// BigTIFF (43 instead of 42) is TIFF too, and libtiff reads it.
const TIFF_LITTLE_ENDIAN = [0x49, 0x49, 0x2a, 0x00]
const TIFF_BIG_ENDIAN = [0x4d, 0x4d, 0x00, 0x2a]
const BIGTIFF_LITTLE_ENDIAN = [0x49, 0x49, 0x2b, 0x00]
const BIGTIFF_BIG_ENDIAN = [0x4d, 0x4d, 0x00, 0x2b]
// WebP: a RIFF container whose form type is "WEBP" (RFC 9649, section 2.5).
const RIFF = [0x52, 0x49, 0x46, 0x46]
const WEBP = [0x57, 0x45, 0x42, 0x50]
// PDF: the header "%PDF-" (ISO 32000-1, section 7.5.2), required at byte 0 here although some readers
// tolerate junk before it: a file that needs that tolerance is better refused than printed wrongly.
const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d]

/**
 * The supported type the bytes start with, or null. Give at least `SNIFF_BYTES` bytes when the file has
 * that many; fewer bytes only match the formats whose signature they contain in full.
 */
export function sniffContentType(firstBytes: Uint8Array): SniffedContentType | null {
  if (startsWith(firstBytes, JPEG)) return 'image/jpeg'
  if (startsWith(firstBytes, PNG)) return 'image/png'
  if (
    startsWith(firstBytes, TIFF_LITTLE_ENDIAN) ||
    startsWith(firstBytes, TIFF_BIG_ENDIAN) ||
    startsWith(firstBytes, BIGTIFF_LITTLE_ENDIAN) ||
    startsWith(firstBytes, BIGTIFF_BIG_ENDIAN)
  ) {
    return 'image/tiff'
  }
  if (startsWith(firstBytes, RIFF) && startsWith(firstBytes, WEBP, 8)) return 'image/webp'
  if (startsWith(firstBytes, PDF)) return 'application/pdf'
  return null
}
