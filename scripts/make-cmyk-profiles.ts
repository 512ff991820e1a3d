// Makes the CMYK profiles printroute ships (profiles/, docs/print-files.md#colour). Run by hand:
//
//   node scripts/make-cmyk-profiles.ts            the intent variants, from the shipped profiles
//   node scripts/make-cmyk-profiles.ts --base     also the base profile again, with ArgyllCMS's colprof
//
// Needs Debian's `icc-profiles-free` (the FOGRA39L characterisation data, Zlib licence), `argyll` (colprof, only
// for --base) and `liblcms2-utils` (transicc). Nothing here is run by the service or the tests; its output is.
//
// Why variants: sharp converts to an output profile with the perceptual intent and without black-point
// compensation, fixed in its libvips call (node_modules/sharp/src/pipeline.cc). A profile's perceptual table
// (B2A0) is what that conversion reads, so for every other intent and compensation this writes a copy of the base
// profile whose B2A0 is lcms's own conversion from Lab with that intent and compensation, sampled on a 33-point
// grid. The colorant tables (A2B*) and every other tag stay as they are: a reader of a print file interprets its
// CMYK numbers exactly as with the base profile. The pixels never leave libvips.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CMYK_PROFILES, cmykProfileFile } from '../src/domain/colour-profiles.ts'
import type { RenderingIntent } from '../src/domain/print-specs.ts'

const PROFILES = new URL('../profiles/', import.meta.url).pathname
const FOGRA39_DATA = '/usr/share/color/icc/FOGRA39L.ti3'
/** Grid points per Lab axis of the baked table: lcms itself optimises an 8-bit transform to a 33-point grid. */
const GRID = 33
const LCMS_INTENT: Record<RenderingIntent, number> = { perceptual: 0, relative: 1, saturation: 2, absolute: 3 }
const INTENT_WORDS: Record<RenderingIntent, string> = {
  perceptual: 'perceptual',
  relative: 'relative colorimetric',
  saturation: 'saturation',
  absolute: 'absolute colorimetric',
}

/** The base profile: ArgyllCMS colprof on Fogra's FOGRA39 measurements, 330% total ink as in ISO 12647-2. */
function makeBase(file: string): void {
  const work = mkdtempSync(join(tmpdir(), 'printroute-profile-'))
  try {
    copyFileSync(FOGRA39_DATA, join(work, 'FOGRA39L.ti3'))
    execFileSync(
      'colprof',
      [
        '-qm',
        '-l330',
        '-L100',
        '-S',
        '/usr/share/color/argyll/ref/sRGB.icm',
        '-cmt',
        '-dpp',
        '-A',
        'printroute',
        '-M',
        'FOGRA39 characterisation data',
        '-D',
        'printroute FOGRA39 (coated offset, ISO 12647-2)',
        '-C',
        'No copyright. Made with ArgyllCMS colprof from FOGRA39L.ti3 (icc-profiles-free, Zlib licence).',
        'FOGRA39L',
      ],
      { cwd: work, stdio: 'inherit' },
    )
    copyFileSync(join(work, 'FOGRA39L.icc'), join(PROFILES, file))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** Lab (D50) of grid point (i, j, k) in the ICC v2 16-bit Lab encoding a lut16's input uses. */
function gridLab(i: number, j: number, k: number): [number, number, number] {
  const encoded = (index: number) => (index * 65535) / (GRID - 1)
  return [(encoded(i) / 65280) * 100, encoded(j) / 256 - 128, encoded(k) / 256 - 128]
}

/** CMYK percentages lcms (transicc) gives each grid point, converting Lab to `profile` with the intent. */
function sampleWithLcms(profile: string, intent: RenderingIntent, bpc: boolean): number[][] {
  const lines: string[] = []
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      for (let k = 0; k < GRID; k++)
        lines.push(
          gridLab(i, j, k)
            .map((value) => value.toFixed(6))
            .join(' '),
        )
    }
  }
  const args = ['-n', `-t${LCMS_INTENT[intent]}`, ...(bpc ? ['-b'] : []), '-i*Lab', `-o${profile}`]
  const output = execFileSync('transicc', args, {
    input: `${lines.join('\n')}\n`,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  const values = output
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
  if (values.length !== GRID ** 3 || values.some((cmyk) => cmyk.length !== 4 || cmyk.some(Number.isNaN))) {
    throw new Error(`transicc answered ${values.length} lines for ${GRID ** 3} grid points`)
  }
  return values
}

/** An ICC lut16Type ('mft2'): Lab in, CMYK out, identity curves and matrix, the sampled grid. */
function lut16(samples: number[][]): Buffer {
  // Signature, reserved, channels in and out, grid points, padding, the 3 x 3 matrix, the two curves' lengths.
  const header = Buffer.alloc(52)
  header.write('mft2', 0, 'ascii')
  header.writeUInt8(3, 8)
  header.writeUInt8(4, 9)
  header.writeUInt8(GRID, 10)
  for (const diagonal of [0, 4, 8]) header.writeInt32BE(0x10000, 12 + diagonal * 4)
  header.writeUInt16BE(2, 48)
  header.writeUInt16BE(2, 50)
  const identity = (channels: number) => {
    const table = Buffer.alloc(channels * 4)
    for (let channel = 0; channel < channels; channel++) table.writeUInt16BE(65535, channel * 4 + 2)
    return table
  }
  const grid = Buffer.alloc(samples.length * 8)
  samples.forEach((cmyk, index) => {
    cmyk.forEach((percent, channel) => {
      const value = Math.round((Math.min(100, Math.max(0, percent)) / 100) * 65535)
      grid.writeUInt16BE(value, index * 8 + channel * 2)
    })
  })
  return Buffer.concat([header, identity(3), grid, identity(4)])
}

/** An ICC v2 textDescriptionType ('desc') holding `text` (ASCII), no Unicode or ScriptCode part. */
function textDescription(text: string): Buffer {
  const ascii = Buffer.from(`${text}\0`, 'ascii')
  const head = Buffer.alloc(12)
  head.write('desc', 0, 'ascii')
  head.writeUInt32BE(ascii.length, 8)
  return Buffer.concat([head, ascii, Buffer.alloc(4 + 4 + 2 + 1 + 67)])
}

/** The profile with some tags' data replaced; every other tag copied as it is (shared data stays shared). */
function withTags(profile: Buffer, replaced: Record<string, Buffer>): Buffer {
  const count = profile.readUInt32BE(128)
  const tags: { signature: string; offset: number; size: number }[] = []
  for (let index = 0; index < count; index++) {
    const at = 132 + index * 12
    tags.push({
      signature: profile.toString('ascii', at, at + 4),
      offset: profile.readUInt32BE(at + 4),
      size: profile.readUInt32BE(at + 8),
    })
  }
  const pad = (length: number) => (4 - (length % 4)) % 4
  const table = Buffer.alloc(4 + count * 12)
  table.writeUInt32BE(count, 0)
  const parts: Buffer[] = []
  let position = 128 + table.length
  const placed = new Map<string, { offset: number; size: number }>()
  tags.forEach((tag, index) => {
    const own = replaced[tag.signature]
    const key = own ? `replaced:${tag.signature}` : `${tag.offset}:${tag.size}`
    let place = placed.get(key)
    if (!place) {
      const data = own ?? profile.subarray(tag.offset, tag.offset + tag.size)
      place = { offset: position, size: data.length }
      placed.set(key, place)
      parts.push(data, Buffer.alloc(pad(data.length)))
      position += data.length + pad(data.length)
    }
    table.write(tag.signature, 4 + index * 12, 'ascii')
    table.writeUInt32BE(place.offset, 4 + index * 12 + 4)
    table.writeUInt32BE(place.size, 4 + index * 12 + 8)
  })
  const header = Buffer.from(profile.subarray(0, 128))
  header.writeUInt32BE(position, 0)
  // A v2 profile: lcms forces compensation on a v4 profile's perceptual table, which would undo the bake.
  if (header.readUInt8(8) !== 2) throw new Error('the base profile must be ICC version 2')
  return Buffer.concat([header, table, ...parts])
}

const remakeBase = process.argv.includes('--base')
for (const [name, info] of Object.entries(CMYK_PROFILES)) {
  if (remakeBase) makeBase(info.file)
  const basePath = join(PROFILES, info.file)
  const base = readFileSync(basePath)
  const intents: RenderingIntent[] = ['perceptual', 'relative', 'saturation', 'absolute']
  for (const intent of intents) {
    for (const bpc of intent === 'absolute' ? [false] : [false, true]) {
      const file = cmykProfileFile(name, intent, bpc)
      if (file === info.file) continue
      const description = `${name}: ${INTENT_WORDS[intent]}${bpc ? ' with black-point compensation' : ''} in B2A0`
      const made = withTags(base, {
        B2A0: lut16(sampleWithLcms(basePath, intent, bpc)),
        desc: textDescription(description),
      })
      writeFileSync(join(PROFILES, file), made)
      console.log(`wrote profiles/${file} (${made.length} bytes)`)
    }
  }
}
