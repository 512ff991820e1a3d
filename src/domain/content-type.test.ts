import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { SNIFF_BYTES, sniffContentType } from './content-type.ts'

tier('pure')

function bytes(...parts: (string | number[])[]): Uint8Array {
  const chunks = parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part)))
  return new Uint8Array(Buffer.concat(chunks))
}

test('JPEG files are recognised whatever their first segment', () => {
  assert.equal(sniffContentType(bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF\0')), 'image/jpeg')
  assert.equal(sniffContentType(bytes([0xff, 0xd8, 0xff, 0xe1, 0x00, 0x10], 'Exif\0')), 'image/jpeg')
  assert.equal(sniffContentType(bytes([0xff, 0xd8, 0xff, 0xdb])), 'image/jpeg')
})

test('PNG files are recognised by the full 8-byte signature', () => {
  assert.equal(sniffContentType(bytes([0x89], 'PNG\r\n', [0x1a, 0x0a], '\0\0\0\rIHDR')), 'image/png')
  // A text file that merely begins with "PNG", or a signature mangled by a CRLF conversion, is not a PNG.
  assert.equal(sniffContentType(bytes('PNG image')), null)
  assert.equal(sniffContentType(bytes([0x89], 'PNG\n', [0x1a, 0x0a], '\0\0\0\r')), null)
})

test('TIFF files are recognised in both byte orders, BigTIFF included', () => {
  assert.equal(sniffContentType(bytes('II', [0x2a, 0x00, 0x08, 0x00, 0x00, 0x00])), 'image/tiff')
  assert.equal(sniffContentType(bytes('MM', [0x00, 0x2a, 0x00, 0x00, 0x00, 0x08])), 'image/tiff')
  assert.equal(sniffContentType(bytes('II', [0x2b, 0x00, 0x08, 0x00])), 'image/tiff')
  assert.equal(sniffContentType(bytes('MM', [0x00, 0x2b, 0x00, 0x08])), 'image/tiff')
  // The byte order mark must agree with the magic number's byte order.
  assert.equal(sniffContentType(bytes('II', [0x00, 0x2a, 0x00, 0x00])), null)
  assert.equal(sniffContentType(bytes('MM', [0x2a, 0x00, 0x00, 0x00])), null)
})

test('WebP files are recognised as RIFF containers of form type WEBP', () => {
  assert.equal(sniffContentType(bytes('RIFF', [0x24, 0x00, 0x00, 0x00], 'WEBPVP8 ')), 'image/webp')
  // Other RIFF formats (WAV, AVI) are not WebP.
  assert.equal(sniffContentType(bytes('RIFF', [0x24, 0x00, 0x00, 0x00], 'WAVEfmt ')), null)
  assert.equal(sniffContentType(bytes('RIFF', [0x24, 0x00, 0x00, 0x00], 'AVI LIST')), null)
})

test('PDF files are recognised by their header at byte 0 only', () => {
  assert.equal(sniffContentType(bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')), 'application/pdf')
  assert.equal(sniffContentType(bytes('%PDF-2.0\n')), 'application/pdf')
  assert.equal(sniffContentType(bytes('\n%PDF-1.4\n')), null)
  assert.equal(sniffContentType(bytes('%PDF')), null)
})

test('everything else is refused, whatever it pretends to be', () => {
  for (const other of [
    '<!DOCTYPE html><html>',
    '<html><body>Not found</body></html>',
    '{"error":"AccessDenied"}',
    '<?xml version="1.0"?><Error><Code>NoSuchKey</Code>',
    'GIF89a\x01\x00\x01\x00',
    'BM\x3a\x00\x00\x00\x00\x00',
    'PK\x03\x04\x14\x00\x00\x00',
    '\0\0\0\x20ftypavif',
    '',
  ]) {
    assert.equal(sniffContentType(bytes(other)), null, JSON.stringify(other))
  }
})

test('a truncated signature is not a match, and SNIFF_BYTES is enough for every format', () => {
  assert.equal(sniffContentType(bytes([0xff, 0xd8])), null)
  assert.equal(sniffContentType(bytes([0x89], 'PNG\r\n', [0x1a])), null)
  assert.equal(sniffContentType(bytes('II', [0x2a])), null)
  assert.equal(sniffContentType(bytes('RIFF', [0x24, 0x00, 0x00, 0x00], 'WEB')), null)
  assert.equal(sniffContentType(bytes('RIFF', [0x24, 0x00, 0x00, 0x00], 'WEBP').subarray(0, SNIFF_BYTES)), 'image/webp')
  assert.equal(SNIFF_BYTES, 12)
})

test('a Uint8Array view into a larger buffer is read from its own start', () => {
  const backing = bytes('junk', [0xff, 0xd8, 0xff, 0xe0])
  assert.equal(sniffContentType(backing.subarray(4)), 'image/jpeg')
})
