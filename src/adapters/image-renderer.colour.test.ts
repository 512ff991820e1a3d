import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import sharp from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import { cmykProfileFile } from '../domain/colour-profiles.ts'
import type { PrintFileManifest } from '../domain/print-files.ts'
import { type LabColour, RENDERING_INTENTS, SRGB_COLOUR } from '../domain/print-specs.ts'
import {
  createImageRenderer,
  DEFAULT_PROFILES_DIRECTORY,
  PrintFileMismatchError,
  type RasterPrintFileFormat,
} from './image-renderer.ts'

tier('pure')

// The colour step checked against an independent colour engine: lcms2's own `transicc` (Debian liblcms2-utils,
// installed by .ci/run when missing), a separate program converting from its built-in sRGB to the shipped base
// profile with the catalogue's intent and compensation. The renderer converts in libvips through the profile
// variant that bakes them in (domain/colour-profiles.ts); the two are compared in Lab, each CMYK value read back
// through the base profile by transicc, within TOLERANCE_DELTA_E (docs/print-files.md#colour says why).

const renderer = createImageRenderer()
const BASE_PROFILE = join(DEFAULT_PROFILES_DIRECTORY, 'printroute-fogra39.icc')
/** CIE 1976 colour difference allowed per patch: under the ~2.3 of a just noticeable difference. */
const TOLERANCE_DELTA_E = 2
const PATCH = 16

type Rgb = readonly [number, number, number]
const PATCHES: readonly { name: string; rgb: Rgb }[] = [
  { name: 'red', rgb: [255, 0, 0] },
  { name: 'green', rgb: [0, 255, 0] },
  { name: 'blue', rgb: [0, 0, 255] },
  { name: 'cyan', rgb: [0, 255, 255] },
  { name: 'magenta', rgb: [255, 0, 255] },
  { name: 'yellow', rgb: [255, 255, 0] },
  { name: 'white', rgb: [255, 255, 255] },
  { name: 'light grey', rgb: [192, 192, 192] },
  { name: 'mid grey', rgb: [128, 128, 128] },
  { name: 'dark grey', rgb: [64, 64, 64] },
  { name: 'black', rgb: [0, 0, 0] },
  { name: 'light skin', rgb: [224, 172, 140] },
  { name: 'dark skin', rgb: [141, 85, 36] },
]

/** A row of flat patches, PATCH pixels square each, as a PNG without a profile (taken as sRGB). */
async function patchImage(): Promise<Buffer> {
  const width = PATCH * PATCHES.length
  const raw = Buffer.alloc(width * PATCH * 3)
  for (let y = 0; y < PATCH; y++) {
    for (let x = 0; x < width; x++) raw.set(PATCHES[Math.floor(x / PATCH)]?.rgb ?? [0, 0, 0], (y * width + x) * 3)
  }
  return sharp(raw, { raw: { width, height: PATCH, channels: 3 } })
    .png()
    .toBuffer()
}

/** The CMYK percentages at each patch's centre, read back from the file (not through the renderer). */
async function patchCmyk(file: Buffer): Promise<number[][]> {
  const { data, info } = await sharp(file).pipelineColourspace('cmyk').toColourspace('cmyk').raw().toBuffer({
    resolveWithObject: true,
  })
  assert.equal(info.channels, 4)
  return PATCHES.map((_, index) => {
    const offset = ((PATCH / 2) * info.width + index * PATCH + PATCH / 2) * 4
    return [...data.subarray(offset, offset + 4)].map((value) => (value / 255) * 100)
  })
}

/** transicc over lines of numbers: one line of output numbers per input line. */
function transicc(args: string[], values: readonly (readonly number[])[]): number[][] {
  const output = execFileSync('transicc', ['-n', ...args], {
    input: `${values.map((value) => value.join(' ')).join('\n')}\n`,
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  return output
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
}

const LCMS_INTENT = { perceptual: 0, relative: 1, saturation: 2, absolute: 3 } as const

function deltaE(a: readonly number[], b: readonly number[]): number {
  return Math.hypot((a[0] ?? 0) - (b[0] ?? 0), (a[1] ?? 0) - (b[1] ?? 0), (a[2] ?? 0) - (b[2] ?? 0))
}

const COLOURS: LabColour[] = RENDERING_INTENTS.flatMap((intent) =>
  (intent === 'absolute' ? [false] : [false, true]).map((blackPointCompensation) => ({
    space: 'cmyk' as const,
    profile: 'printroute-fogra39',
    intent,
    blackPointCompensation,
  })),
)

for (const colour of COLOURS) {
  const name = `${colour.intent}${colour.blackPointCompensation ? ' with black-point compensation' : ''}`
  test(`CMYK ${name}: every patch within ΔE ${TOLERANCE_DELTA_E} of lcms's transicc, the profile embedded`, async () => {
    const input = await patchImage()
    const width = PATCH * PATCHES.length
    for (const format of ['tiff', 'jpeg'] as const) {
      const rendered = await renderer.renderPrintFile(input, {
        width,
        height: PATCH,
        sizing: 'fillPrintArea',
        format,
        colour,
      })
      assert.equal(rendered.colourSpace, 'cmyk')
      const metadata = await sharp(rendered.data).metadata()
      assert.equal(metadata.channels, 4)
      const file = cmykProfileFile('printroute-fogra39', colour.intent, colour.blackPointCompensation)
      assert.ok(metadata.icc?.equals(readFileSync(join(DEFAULT_PROFILES_DIRECTORY, file))), `${file} is embedded`)

      const got = await patchCmyk(rendered.data)
      const reference = transicc(
        [
          `-t${LCMS_INTENT[colour.intent]}`,
          ...(colour.blackPointCompensation ? ['-b'] : []),
          '-i*sRGB',
          `-o${BASE_PROFILE}`,
        ],
        PATCHES.map((patch) => patch.rgb),
      )
      const labGot = transicc(['-t1', `-i${BASE_PROFILE}`, '-o*Lab'], got)
      const labReference = transicc(['-t1', `-i${BASE_PROFILE}`, '-o*Lab'], reference)
      PATCHES.forEach((patch, index) => {
        const difference = deltaE(labGot[index] ?? [], labReference[index] ?? [])
        assert.ok(
          difference <= TOLERANCE_DELTA_E,
          `${format} ${patch.name}: CMYK ${got[index]?.map((v) => v.toFixed(1))} vs transicc ` +
            `${reference[index]?.map((v) => v.toFixed(1))}, ΔE ${difference.toFixed(2)}`,
        )
      })
    }
  })
}

test('the intent matters: relative with compensation and perceptual give different blacks', async () => {
  // So the test above would notice a renderer that ignored the intent: the patches differ between the two.
  const input = await patchImage()
  const render = (colour: LabColour) =>
    renderer.renderPrintFile(input, {
      width: PATCH * PATCHES.length,
      height: PATCH,
      sizing: 'fillPrintArea',
      format: 'tiff',
      colour,
    })
  const [perceptual] = COLOURS
  const relative = COLOURS.find((colour) => colour.intent === 'relative' && colour.blackPointCompensation)
  assert.ok(perceptual && relative)
  const a = await patchCmyk((await render(perceptual)).data)
  const b = await patchCmyk((await render(relative)).data)
  const black = PATCHES.findIndex((patch) => patch.name === 'black')
  const largest = Math.max(...(a[black] ?? []).map((value, channel) => Math.abs(value - (b[black]?.[channel] ?? 0))))
  assert.ok(largest > 5, `black differs by ${largest.toFixed(1)}%`)
})

// ---- resolution -----------------------------------------------------------------------------------------

test('the resolution is written into JPEG, TIFF and PNG print files: 480 x 720 px at 30 dpi opens as 16 x 24 in', async () => {
  // A camera's EXIF (make, orientation) must not come along with the density.
  const input = await sharp({ create: { width: 600, height: 900, channels: 3, background: '#c08060' } })
    .withExif({ IFD0: { Make: 'CameraMaker', Model: 'X1' } })
    .jpeg()
    .toBuffer()
  for (const format of ['jpeg', 'tiff', 'png'] as const) {
    for (const colour of format === 'png' ? [SRGB_COLOUR] : [SRGB_COLOUR, COLOURS[3] as LabColour]) {
      const rendered = await renderer.renderPrintFile(input, {
        width: 480,
        height: 720,
        sizing: 'fillPrintArea',
        format,
        colour,
        dpi: 30,
      })
      const metadata = await sharp(rendered.data).metadata()
      assert.equal(metadata.density, 30, `${format} ${colour.space}`)
      assert.equal(metadata.resolutionUnit, 'inch', `${format} ${colour.space}`)
      assert.equal((metadata.width ?? 0) / (metadata.density ?? 1), 16)
      assert.equal((metadata.height ?? 0) / (metadata.density ?? 1), 24)
      assert.ok(!metadata.exif?.toString('latin1').includes('CameraMaker'), 'no camera EXIF')
      assert.ok((metadata.orientation ?? 1) === 1)
    }
  }
})

// ---- today's sRGB bytes ---------------------------------------------------------------------------------

/** A deterministic gradient (no profile): the input the golden hashes below were made from. */
async function gradient(): Promise<Buffer> {
  const width = 240
  const height = 160
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      raw.set([(x * 255) / (width - 1), (y * 255) / (height - 1), ((x + y) * 7) % 256], (y * width + x) * 3)
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer()
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/**
 * SHA-256 of the print files the renderer made before the colour and resolution steps existed, with sharp 0.35.5
 * (libvips 8.18.7). Another sharp may encode differently: then the hashes are made again with the renderer of the
 * commit before (the pinned versions below fail first, saying so).
 */
const BEFORE = {
  jpeg: '1f8492481684d1fc9548cff4cc949ea2a6b29ed03040bc378ccafeb9349424ed',
  png: '64c383d581e42546b3a3b23cd205569a2c6d90a76d87ccd4c3736ad8bc4b6720',
  tiff: '1dcf43a24848f30a892d797d1d314ece59253cfdc3992610b9ac0e24899c59d2',
} as const

test("an sRGB lab's print files keep today's bytes; with a resolution, today's pixels and profile", async () => {
  assert.deepEqual(
    { sharp: sharp.versions.sharp, libvips: sharp.versions.vips },
    { sharp: '0.35.5', libvips: '8.18.7' },
    'the hashes of BEFORE were made with these versions',
  )
  const input = await gradient()
  assert.equal(sha256(input), 'd95aa902738326d385f692144c573ea7784f79df452c128562b91fee2c999ef0')
  for (const format of ['jpeg', 'png', 'tiff'] as const) {
    const options = { width: 300, height: 200, sizing: 'fillPrintArea' as const, format }
    const implicit = await renderer.renderPrintFile(input, options)
    const explicit = await renderer.renderPrintFile(input, { ...options, colour: SRGB_COLOUR })
    assert.equal(sha256(implicit.data), BEFORE[format], format)
    assert.equal(sha256(explicit.data), BEFORE[format], format)
    const withDpi = await renderer.renderPrintFile(input, { ...options, colour: SRGB_COLOUR, dpi: 300 })
    const [pixels, pixelsBefore] = await Promise.all(
      [withDpi.data, implicit.data].map((data) => sharp(data).raw().toBuffer()),
    )
    assert.ok(pixels?.equals(pixelsBefore as Buffer), `${format}: the same pixels`)
    const [profile, profileBefore] = await Promise.all(
      [withDpi.data, implicit.data].map(async (data) => (await sharp(data).metadata()).icc),
    )
    assert.ok(profile?.equals(profileBefore as Buffer), `${format}: the same embedded sRGB profile`)
  }
})

// ---- reproducibility ------------------------------------------------------------------------------------

async function renderCmyk(format: RasterPrintFileFormat) {
  const input = await gradient()
  const colour = COLOURS.find((candidate) => candidate.intent === 'relative' && candidate.blackPointCompensation)
  assert.ok(colour)
  const rendered = await renderer.renderPrintFile(input, {
    width: 320,
    height: 200,
    sizing: 'fitPrintArea',
    format,
    colour,
    dpi: 150,
  })
  return { input, rendered }
}

test('a print file made twice has the same bytes, and its manifest says what made it', async () => {
  for (const format of ['jpeg', 'tiff'] as const) {
    const first = await renderCmyk(format)
    const second = await renderCmyk(format)
    assert.equal(sha256(second.rendered.data), sha256(first.rendered.data), format)
    const { manifest } = first.rendered
    assert.equal(manifest.outputSha256, sha256(first.rendered.data))
    assert.equal(manifest.inputSha256, sha256(first.input))
    assert.deepEqual(manifest.target, { width: 320, height: 200, sizing: 'fitPrintArea', format, dpi: 150 })
    assert.deepEqual(manifest.plan, first.rendered.plan)
    const file = 'printroute-fogra39.relative-bpc.icc'
    assert.deepEqual(manifest.colour, {
      space: 'cmyk',
      profile: 'printroute-fogra39',
      profileFile: file,
      profileSha256: sha256(readFileSync(join(DEFAULT_PROFILES_DIRECTORY, file))),
      intent: 'relative',
      blackPointCompensation: true,
      convertedAt: 'printFile',
    })
    assert.deepEqual(manifest.renderer, { sharp: sharp.versions.sharp, libvips: sharp.versions.vips })
  }
})

test('a fresh process makes the same bytes from the manifest', async () => {
  const { input, rendered } = await renderCmyk('jpeg')
  const script = `
    import { createImageRenderer } from ${JSON.stringify(new URL('./image-renderer.ts', import.meta.url).href)}
    const chunks = []
    for await (const chunk of process.stdin) chunks.push(chunk)
    const { input, manifest } = JSON.parse(Buffer.concat(chunks).toString())
    const again = await createImageRenderer().reproducePrintFile(Buffer.from(input, 'base64'), manifest)
    process.stdout.write(again.manifest.outputSha256)
  `
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify({ input: input.toString('base64'), manifest: rendered.manifest }),
  })
  assert.equal(output.toString(), rendered.manifest.outputSha256)
})

test('reproducing refuses another input, another renderer or different bytes, naming what differs', async () => {
  const { input, rendered } = await renderCmyk('tiff')
  const again = await renderer.reproducePrintFile(input, rendered.manifest)
  assert.ok(again.data.equals(rendered.data))

  const refused = async (changed: Buffer, manifest: PrintFileManifest, reason: RegExp) => {
    await assert.rejects(renderer.reproducePrintFile(changed, manifest), (error) => {
      assert.ok(error instanceof PrintFileMismatchError)
      assert.match(error.message, reason)
      return true
    })
  }
  await refused(
    await gradient().then((data) => Buffer.concat([data, Buffer.from([0])])),
    rendered.manifest,
    /input's SHA-256/,
  )
  await refused(
    input,
    { ...rendered.manifest, renderer: { sharp: '0.1.0', libvips: '8.0.0' } },
    /made with sharp 0\.1\.0/,
  )
  await refused(input, { ...rendered.manifest, outputSha256: '0'.repeat(64) }, /bytes' SHA-256/)
  await refused(
    input,
    { ...rendered.manifest, colour: { ...rendered.manifest.colour, profileSha256: '0'.repeat(64) } },
    /not the file it was made with/,
  )
})

/** A photo-sized JPEG (or PNG): a smooth gradient on the left, sRGB's pure green (outside FOGRA39) on the right. */
async function gradientAndGreen(format: 'jpeg' | 'png'): Promise<Buffer> {
  const width = 900
  const height = 1350
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const left = x < width / 2
      raw.set(left ? [(x * 255) / (width / 2), (y * 255) / height, 120] : [0, 255, 0], (y * width + x) * 3)
    }
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } })
  return (format === 'jpeg' ? image.jpeg({ quality: 95 }) : image.png()).toBuffer()
}

/** Mean of each sRGB channel of a box of a decoded image. */
function boxMean(image: { data: Buffer; info: { width: number } }, box: { x: number; y: number; size: number }) {
  const sums = [0, 0, 0]
  for (let y = box.y; y < box.y + box.size; y++) {
    for (let x = box.x; x < box.x + box.size; x++) {
      for (let c = 0; c < 3; c++)
        sums[c] = (sums[c] as number) + (image.data[(y * image.info.width + x) * 3 + c] as number)
    }
  }
  return sums.map((sum) => sum / (box.size * box.size))
}

test("a CMYK print file's preview shows the file's colours: a soft proof from a JPEG, the file reduced otherwise", async () => {
  const colour = COLOURS.find((candidate) => candidate.intent === 'relative' && candidate.blackPointCompensation)
  assert.ok(colour)
  const canvas = {
    spec: { trimMm: { width: 100, height: 150 }, bleedMm: 3, safeMm: 5, wrapMm: 20, minDpi: 50, recommendedDpi: 300 },
    wrap: 'MirrorWrap',
  } as const
  for (const source of ['jpeg', 'png'] as const) {
    for (const area of [null, canvas]) {
      const where = `${source} source, ${area ? 'a mirrored canvas' : 'no spec'}`
      const rendered = await renderer.renderPrintFile(await gradientAndGreen(source), {
        width: 1200,
        height: 1800,
        sizing: 'fillPrintArea',
        format: 'jpeg',
        colour,
        ...(area ? { area } : {}),
      })
      // What the file itself looks like on a screen, reduced here independently of the renderer's preview.
      const file = await sharp(rendered.data)
        .resize({ width: 800, height: 800, fit: 'inside' })
        .toColourspace('srgb')
        .raw()
        .toBuffer({ resolveWithObject: true })
      const preview = await sharp(rendered.preview).raw().toBuffer({ resolveWithObject: true })
      assert.deepEqual([preview.info.width, preview.info.height], [file.info.width, file.info.height], where)
      let difference = 0
      for (let at = 0; at < file.data.length; at++) {
        difference += Math.abs((file.data[at] as number) - (preview.data[at] as number))
      }
      assert.ok(difference / file.data.length < 2.5, `${where}: mean difference ${difference / file.data.length}`)
      // The green is the press's, not the screen's: far from sRGB's pure green, as close to the file's as before.
      const box = { x: Math.round(file.info.width * 0.7), y: Math.round(file.info.height * 0.5), size: 20 }
      const [inFile, inPreview] = [boxMean(file, box), boxMean(preview, box)]
      assert.ok(Math.abs((inPreview[0] as number) - 0) + Math.abs((inPreview[2] as number) - 0) > 60, where)
      for (let c = 0; c < 3; c++) {
        assert.ok(Math.abs((inFile[c] as number) - (inPreview[c] as number)) < 3, `${where}: channel ${c}`)
      }
    }
  }
})

// ---- where the conversion runs ---------------------------------------------------------------------------

/** A decoded CMYK file's raw bands, not converted on the way (sharp would otherwise bring it to sRGB). */
async function cmykPixels(file: Buffer) {
  return sharp(file).pipelineColourspace('cmyk').toColourspace('cmyk').raw().toBuffer({ resolveWithObject: true })
}

test('an enlarged photo for a CMYK lab is converted at its own size: the same geometry and profile, within a level', async () => {
  const colour = COLOURS.find((candidate) => candidate.intent === 'relative' && candidate.blackPointCompensation)
  assert.ok(colour)
  const photo = await gradientAndGreen('jpeg') // 900 x 1350, enlarged 4 times in area below
  const options = { width: 1800, height: 2700, sizing: 'fillPrintArea', format: 'tiff', colour, dpi: 150 } as const
  const atSource = await renderer.renderPrintFile(photo, options)
  const atPrintFile = await renderer.renderPrintFile(photo, { ...options, convertAt: 'printFile' })
  assert.equal(atSource.manifest.colour.convertedAt, 'source')
  assert.equal(atPrintFile.manifest.colour.convertedAt, 'printFile')
  assert.notEqual(atSource.manifest.outputSha256, atPrintFile.manifest.outputSha256, 'the two orders differ')
  const metadata = await sharp(atSource.data).metadata()
  assert.deepEqual([metadata.width, metadata.height, metadata.channels, metadata.space], [1800, 2700, 4, 'cmyk'])
  assert.equal(metadata.density, 150)
  const profile = readFileSync(join(DEFAULT_PROFILES_DIRECTORY, 'printroute-fogra39.relative-bpc.icc'))
  assert.ok(metadata.icc?.equals(profile), 'the profile is embedded byte for byte')
  // The pixels: the same conversion, interpolated in CMYK instead of sRGB. Equal but where the resize blends
  // unlike colours (here only the gradient's edge with the green, and JPEG's 8x8 blocks in the photo).
  const [a, b] = [await cmykPixels(atSource.data), await cmykPixels(atPrintFile.data)]
  assert.equal(a.data.length, b.data.length)
  let sum = 0
  let overTwo = 0
  for (let at = 0; at < a.data.length; at++) {
    const difference = Math.abs((a.data[at] as number) - (b.data[at] as number))
    sum += difference
    if (difference > 2) overTwo++
  }
  assert.ok(sum / a.data.length < 1, `mean difference ${sum / a.data.length}`)
  assert.ok(overTwo / a.data.length < 0.01, `${overTwo} of ${a.data.length} values more than 2 apart`)

  // Made again from its manifest: the same bytes; a manifest from before the choice (no convertedAt) gives the
  // other order's bytes, as it was made.
  const again = await renderer.reproducePrintFile(photo, atSource.manifest)
  assert.equal(again.manifest.outputSha256, atSource.manifest.outputSha256)
  const { convertedAt: _, ...older } = atPrintFile.manifest.colour
  const olderAgain = await renderer.reproducePrintFile(photo, { ...atPrintFile.manifest, colour: older })
  assert.equal(olderAgain.manifest.outputSha256, atPrintFile.manifest.outputSha256)
})

test('a mirrored canvas converted at the source: its band is the face edge mirrored, exactly, in CMYK', async () => {
  const colour = COLOURS.find((candidate) => candidate.intent === 'relative' && candidate.blackPointCompensation)
  assert.ok(colour)
  const area = {
    spec: { trimMm: { width: 100, height: 150 }, bleedMm: 3, safeMm: 5, wrapMm: 20, minDpi: 50, recommendedDpi: 400 },
    wrap: 'MirrorWrap',
  } as const
  const options = { width: 1800, height: 2700, sizing: 'fillPrintArea', format: 'tiff', colour, area } as const
  const rendered = await renderer.renderPrintFile(await gradientAndGreen('jpeg'), options)
  assert.equal(rendered.manifest.colour.convertedAt, 'source')
  const layout = rendered.plan.layout
  assert.ok(layout && layout.edges.kind === 'mirror')
  const { data, info } = await cmykPixels(rendered.data)
  assert.deepEqual([info.width, info.height], [layout.width, layout.height])
  const depth = layout.wrap + layout.bleed
  const pixel = (x: number, y: number) => data.readUInt32BE((y * info.width + x) * 4)
  for (const y of [layout.face.top, layout.face.top + 7, layout.face.top + Math.floor(layout.face.height / 2)]) {
    for (let d = 0; d < depth; d++) {
      const right: number = layout.face.left + layout.face.width
      assert.equal(pixel(layout.face.left - 1 - d, y), pixel(layout.face.left + d, y), `left band, row ${y}, ${d}`)
      assert.equal(pixel(right + d, y), pixel(right - 1 - d, y), `right band, row ${y}, ${d}`)
    }
  }
  // Geometry with a colour of its own converts after the resize, as do sources that are not photos.
  for (const [why, other] of [
    ['a Black band', { ...options, area: { ...area, wrap: 'Black' } }],
    ['fit margins', { width: 1800, height: 1800, sizing: 'fitPrintArea', format: 'tiff', colour }],
  ] as const) {
    const made = await renderer.renderPrintFile(await gradientAndGreen('jpeg'), other)
    assert.equal(made.manifest.colour.convertedAt, 'printFile', why)
  }
  const png = await renderer.renderPrintFile(await gradientAndGreen('png'), options)
  assert.equal(png.manifest.colour.convertedAt, 'printFile', 'a PNG source')
})
