// Evidence photos lose their metadata, keep their pixels, and bombs and non-images are refused before decoding.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import sharp from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import { normaliseEvidenceImage } from './evidence-image.ts'

tier('pure')

test('a JPEG with EXIF (a GPS position) comes back upright, the same size, without any metadata', async () => {
  const original = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#aa3322' } })
    .jpeg()
    .withExif({ IFD0: { Make: 'PhoneMaker' }, IFD3: { GPSLatitudeRef: 'N' } })
    .withMetadata({ orientation: 6 })
    .toBuffer()
  const before = await sharp(original).metadata()
  assert.ok(before.exif && before.orientation === 6, 'the fixture carries EXIF and an orientation')
  const result = await normaliseEvidenceImage(original)
  assert.equal(result.kind, 'image')
  if (result.kind !== 'image') return
  const metadata = await sharp(result.data).metadata()
  assert.equal(metadata.exif, undefined)
  assert.equal(metadata.xmp, undefined)
  assert.equal(result.contentType, 'image/jpeg')
  // Orientation 6 (rotate 90 degrees): the kept image is upright, so its sides are swapped.
  assert.deepEqual([result.width, result.height], [20, 40])
  assert.ok(!result.data.includes(Buffer.from('PhoneMaker')))
})

test('a PNG stays a PNG', async () => {
  const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#00ff0080' } })
    .png()
    .toBuffer()
  const result = await normaliseEvidenceImage(png)
  assert.equal(result.kind === 'image' && result.contentType, 'image/png')
})

test('text, a GIF and a truncated JPEG are refused with a reason', async () => {
  const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
    .gif()
    .toBuffer()
  const jpeg = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#123456' } })
    .jpeg()
    .toBuffer()
  for (const input of [Buffer.from('not an image'), gif, jpeg.subarray(0, Math.floor(jpeg.length / 2))]) {
    const result = await normaliseEvidenceImage(input)
    assert.equal(result.kind, 'refused')
  }
})

test('an image bomb is refused from its header: a PNG claiming 100,000 x 100,000 pixels', async () => {
  // A real, small PNG whose IHDR says 100k x 100k: decoding it would need 30 GB.
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .png()
    .toBuffer()
  const bomb = Buffer.from(png)
  bomb.writeUInt32BE(100_000, 16)
  bomb.writeUInt32BE(100_000, 20)
  const result = await normaliseEvidenceImage(bomb)
  assert.equal(result.kind, 'refused')
  assert.match(result.kind === 'refused' ? result.reason : '', /100000 x 100000 pixels/)
})
