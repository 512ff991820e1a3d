// The alternative to libvips' lcms conversion that `npm run bench:cmyk-render` measures (docs/benchmarks.md, "The
// CMYK lab's pace"): a small 3D lookup table of the very conversion the renderer makes, applied in JavaScript with
// tetrahedral interpolation, and the pixels handed back to sharp as an uncompressed CMYK TIFF carrying the profile,
// so libvips encodes them as CMYK with the profile embedded and no second conversion. Kept here, not in the
// renderer: on the machine measured it was no faster than lcms (moving the pixels out of libvips and back costs
// what the table saves).
import sharp from 'sharp'

/**
 * The table: lcms's own result (sharp's `withIccProfile`, as the renderer converts) at every node of a grid of
 * `STEP`-spaced 8-bit sRGB values (0, 5, ..., 255: 52 nodes a side, 140,608 nodes), each node's C and Y packed into
 * one 32-bit integer (16 bits each) and M and K into another, so one multiplication weighs two channels.
 */
export interface CmykLut {
  readonly nodes: number
  readonly cy: Int32Array
  readonly mk: Int32Array
  /** Per pair of (base node, fractions) keys: see `keys` below. */
  readonly keyR: Int32Array
  readonly keyG: Int32Array
  readonly keyB: Int32Array
  /** For each fraction triple: the offsets of the 2nd and 3rd corner of its tetrahedron and the 4 weights. */
  readonly tetrahedra: Int32Array
  /** Rounded division by STEP of a weighted sum (0 .. 255 * STEP). */
  readonly divide: Uint8Array
}

/** Nodes every 5 code values: 255 is a multiple, so 0 and 255 are nodes, and the table (1.1 MB) fits in L2/L3. */
const STEP = 5
/** A pixel's key: its base node's index above FRACTION_BITS, its fractions' tetrahedron entry below. */
const FRACTION_BITS = 11

export async function buildCmykLut(profilePath: string): Promise<CmykLut> {
  const nodes = 255 / STEP + 1
  const count = nodes ** 3
  const grid = Buffer.alloc(count * 3)
  let at = 0
  for (let r = 0; r < nodes; r++) {
    for (let g = 0; g < nodes; g++) {
      for (let b = 0; b < nodes; b++) {
        grid[at++] = r * STEP
        grid[at++] = g * STEP
        grid[at++] = b * STEP
      }
    }
  }
  const { data, info } = await sharp(grid, { raw: { width: count, height: 1, channels: 3 } })
    .toColourspace('srgb')
    .withIccProfile(profilePath)
    .raw()
    .toBuffer({ resolveWithObject: true })
  if (info.channels !== 4) throw new Error(`the grid came out with ${info.channels} channels, not CMYK`)
  const cy = new Int32Array(count)
  const mk = new Int32Array(count)
  for (let node = 0; node < count; node++) {
    const [c = 0, m = 0, y = 0, k = 0] = data.subarray(node * 4, node * 4 + 4)
    cy[node] = c | (y << 16)
    mk[node] = m | (k << 16)
  }
  return { nodes, cy, mk, ...keys(nodes), tetrahedra: tetrahedra(nodes), divide: divisions() }
}

/** Per channel value: its base node's stride (scaled above FRACTION_BITS) plus its fraction's share of the entry. */
function keys(nodes: number): Pick<CmykLut, 'keyR' | 'keyG' | 'keyB'> {
  const fractions = STEP + 1
  const keyR = new Int32Array(256)
  const keyG = new Int32Array(256)
  const keyB = new Int32Array(256)
  for (let value = 0; value < 256; value++) {
    const base = Math.min(Math.floor(value / STEP), nodes - 2)
    const fraction = value - base * STEP
    keyR[value] = base * nodes * nodes * 2 ** FRACTION_BITS + fraction * fractions * fractions * 8
    keyG[value] = base * nodes * 2 ** FRACTION_BITS + fraction * fractions * 8
    keyB[value] = base * 2 ** FRACTION_BITS + fraction * 8
  }
  return { keyR, keyG, keyB }
}

/** The tetrahedron of each fraction triple: corners along the axes in decreasing fraction, barycentric weights. */
function tetrahedra(nodes: number): Int32Array {
  const fractions = STEP + 1
  const table = new Int32Array(fractions ** 3 * 8)
  for (let fr = 0; fr <= STEP; fr++) {
    for (let fg = 0; fg <= STEP; fg++) {
      for (let fb = 0; fb <= STEP; fb++) {
        const [a, b, c] = [
          { fraction: fr, stride: nodes * nodes },
          { fraction: fg, stride: nodes },
          { fraction: fb, stride: 1 },
        ].sort((x, y) => y.fraction - x.fraction) as [Axis, Axis, Axis]
        const entry = ((fr * fractions + fg) * fractions + fb) * 8
        table.set(
          [
            a.stride,
            a.stride + b.stride,
            STEP - a.fraction,
            a.fraction - b.fraction,
            b.fraction - c.fraction,
            c.fraction,
          ],
          entry,
        )
      }
    }
  }
  return table
}

interface Axis {
  fraction: number
  stride: number
}

function divisions(): Uint8Array {
  const divide = new Uint8Array(255 * STEP + 1)
  for (let sum = 0; sum < divide.length; sum++) divide[sum] = Math.round(sum / STEP)
  return divide
}

/** `pixels` RGB pixels (3 bytes each) to packed CMYK (C in the low byte), no allocation per pixel. */
export function applyCmykLut(lut: CmykLut, rgb: Uint8Array, out: Uint32Array, pixels: number): void {
  const { cy, mk, keyR, keyG, keyB, tetrahedra: table, divide } = lut
  const far = lut.nodes * lut.nodes + lut.nodes + 1
  const fractionMask = 2 ** FRACTION_BITS - 1
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += 3) {
    const key =
      (keyR[rgb[at] as number] as number) +
      (keyG[rgb[at + 1] as number] as number) +
      (keyB[rgb[at + 2] as number] as number)
    const n0 = key >> FRACTION_BITS
    const entry = key & fractionMask
    const n1 = n0 + (table[entry] as number)
    const n2 = n0 + (table[entry + 1] as number)
    const n3 = n0 + far
    const w0 = table[entry + 2] as number
    const w1 = table[entry + 3] as number
    const w2 = table[entry + 4] as number
    const w3 = table[entry + 5] as number
    const a = (cy[n0] as number) * w0 + (cy[n1] as number) * w1 + (cy[n2] as number) * w2 + (cy[n3] as number) * w3
    const b = (mk[n0] as number) * w0 + (mk[n1] as number) * w1 + (mk[n2] as number) * w2 + (mk[n3] as number) * w3
    out[pixel] =
      (divide[a & 0xffff] as number) |
      ((divide[b & 0xffff] as number) << 8) |
      ((divide[a >>> 16] as number) << 16) |
      ((divide[b >>> 16] as number) << 24)
  }
}

/** Rows per TIFF strip: libtiff hands libvips one strip at a time, so strips stay small. */
const ROWS_PER_STRIP = 64

/**
 * An uncompressed, chunky CMYK TIFF (Photometric Separated, InkSet CMYK) with `icc` as its ICC profile, its pixels
 * left for the caller to write at `pixels` (4-byte aligned, so a Uint32Array can view them). sharp reads it with
 * `pipelineColourspace('cmyk').toColourspace('cmyk').keepIccProfile()` as CMYK, unconverted, profile kept.
 */
export function cmykTiff(width: number, height: number, icc: Buffer): { file: Buffer; pixels: Uint32Array } {
  const strips = Math.ceil(height / ROWS_PER_STRIP)
  const entries = 12
  const ifd = 8
  const bits = ifd + 2 + entries * 12 + 4
  const offsets = bits + 8
  const counts = offsets + strips * 4
  const profile = counts + strips * 4
  const start = (profile + icc.length + 15) & ~15
  const file = Buffer.allocUnsafe(start + width * height * 4)
  file.fill(0, 0, start)
  file.write('II', 0, 'latin1')
  file.writeUInt16LE(42, 2)
  file.writeUInt32LE(ifd, 4)
  file.writeUInt16LE(entries, ifd)
  const SHORT = 3
  const LONG = 4
  const UNDEFINED = 7
  const fields: [tag: number, type: number, count: number, value: number][] = [
    [256, LONG, 1, width],
    [257, LONG, 1, height],
    [258, SHORT, 4, bits],
    [259, SHORT, 1, 1], // no compression
    [262, SHORT, 1, 5], // separated
    [273, LONG, strips, strips === 1 ? start : offsets],
    [277, SHORT, 1, 4],
    [278, LONG, 1, ROWS_PER_STRIP],
    [279, LONG, strips, strips === 1 ? width * height * 4 : counts],
    [284, SHORT, 1, 1], // chunky
    [332, SHORT, 1, 1], // CMYK inks
    [34675, UNDEFINED, icc.length, profile],
  ]
  fields.forEach(([tag, type, count, value], index) => {
    const at = ifd + 2 + index * 12
    file.writeUInt16LE(tag, at)
    file.writeUInt16LE(type, at + 2)
    file.writeUInt32LE(count, at + 4)
    if (type === SHORT && count === 1) file.writeUInt16LE(value, at + 8)
    else file.writeUInt32LE(value, at + 8)
  })
  for (let band = 0; band < 4; band++) file.writeUInt16LE(8, bits + band * 2)
  for (let strip = 0; strip < strips; strip++) {
    file.writeUInt32LE(start + strip * ROWS_PER_STRIP * width * 4, offsets + strip * 4)
    file.writeUInt32LE(Math.min(ROWS_PER_STRIP, height - strip * ROWS_PER_STRIP) * width * 4, counts + strip * 4)
  }
  icc.copy(file, profile)
  return { file, pixels: new Uint32Array(file.buffer, file.byteOffset + start, width * height) }
}
