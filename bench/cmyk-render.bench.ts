// npm run bench:cmyk-render — where a CMYK lab's print file costs more than an sRGB lab's, stage by stage, in
// CPU time (every thread of the process, so a shared machine's other load inflates it less than wall time; the
// least of BENCH_ROUNDS rounds). docs/benchmarks.md ("The CMYK lab's render, stage by stage") keeps the figures.
//
// The poster of bench/pipeline.bench.ts (a 12 MP camera-like JPEG into GLOBAL-FAP-16x24's 4800 x 7200) through
// the renderer's own steps, built here one by one with sharp as src/adapters/image-renderer.ts builds them:
// - geometry: decode, EXIF turn, resize, flatten, to raw pixels without a profile;
// - sRGB / CMYK to raw: the same with the lab's colour step (sRGB's profile, or the CMYK profile of the bench's
//   CMYK lab: FOGRA39, relative colorimetric with black-point compensation);
// - sRGB / CMYK JPEG: the print file as encoded (quality 95, 4:4:4, no Huffman optimisation, no mozjpeg);
// - preview: the print-file preview made from that file (decoded at 1/8, to sRGB, 800 px, quality 80), and the
//   CMYK one as the renderer makes it from a JPEG photo (a soft proof: the photo at 533 x 800 through the profile
//   and back to sRGB);
// then the whole renderPrintFile of both print files of an order (the poster and the canvas, wrap Black) per colour;
// then the alternatives to lcms's conversion that were tried for the poster (bench/cmyk-lut.ts): a 52-point lookup
// table applied in JavaScript, the pixels handed back to sharp in a CMYK TIFF (into a fresh buffer each time, as a
// renderer would, or into one kept between renders), the conversion made at the photo's own 12 MP before the
// resize (what the renderer does since for an enlarged photo: the stage table above keeps the order after the
// resize, step by step), and what a fresh full-size buffer costs on its own (page faults). Run with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to see the same with glibc's large blocks on transparent huge pages.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import sharp, { type JpegOptions, type Sharp } from 'sharp'
import {
  createImageRenderer,
  DEFAULT_PREVIEW_EDGE,
  DEFAULT_PROFILES_DIRECTORY,
  loadSharp,
  PRINT_JPEG_QUALITY,
  THUMBNAIL_JPEG_QUALITY,
} from '../src/adapters/image-renderer.ts'
import { parseCatalogue, SAMPLE_CATALOGUE_PATH } from '../src/catalogue/catalogue.loader.ts'
import type { CatalogueFile } from '../src/domain/catalogue.types.ts'
import { cmykProfileFile } from '../src/domain/colour-profiles.ts'
import { printFileDpi } from '../src/domain/print-files.ts'
import { printAreaRequestOf } from '../src/domain/print-geometry.ts'
import type { LabColour } from '../src/domain/print-specs.ts'
import { cameraLikeJpeg } from './bench-support.ts'
import { applyCmykLut, buildCmykLut, cmykTiff } from './cmyk-lut.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const CMYK_LAB = 'de1'

/** Milliseconds of CPU (user + system, all threads) `task` takes, the least of ROUNDS runs. */
async function cpuMs(task: () => Promise<unknown>): Promise<number> {
  let least = Number.POSITIVE_INFINITY
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage()
    await task()
    const used = process.cpuUsage(before)
    least = Math.min(least, (used.user + used.system) / 1000)
  }
  return least
}

async function main(): Promise<void> {
  await loadSharp() // the renderer's libvips settings: cache off, one thread per image
  const file = JSON.parse(await readFile(SAMPLE_CATALOGUE_PATH, 'utf8')) as CatalogueFile
  const catalogue = parseCatalogue(file, 'sample catalogue')
  const colour = file.labs.find((lab) => lab.code === CMYK_LAB)?.defaultColour as LabColour | undefined
  if (colour?.space !== 'cmyk' || !colour.profile) throw new Error(`the sample's ${CMYK_LAB} is no longer a CMYK lab`)
  const profile = join(
    DEFAULT_PROFILES_DIRECTORY,
    cmykProfileFile(colour.profile, colour.intent, colour.blackPointCompensation),
  )
  process.stderr.write('generating the photos ...\n')
  const poster = await cameraLikeJpeg(3000, 4000)
  const canvas = await cameraLikeJpeg(6000, 4000)

  const geometry = () =>
    sharp(poster, { failOn: 'truncated' })
      .autoOrient()
      .resize({ width: 4800, height: 7200, fit: 'fill' })
      .flatten({ background: '#ffffff' })
  const srgb = () => geometry().toColourspace('srgb').withIccProfile('srgb')
  const cmyk = () => srgb().withIccProfile(profile)
  const jpeg = { quality: PRINT_JPEG_QUALITY, chromaSubsampling: '4:4:4', optimiseCoding: false, mozjpeg: false }
  const preview = (data: Buffer) =>
    sharp(data, { limitInputPixels: false, failOn: 'truncated' })
      .resize({ width: DEFAULT_PREVIEW_EDGE, height: DEFAULT_PREVIEW_EDGE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .withIccProfile('srgb')
      .jpeg({ quality: THUMBNAIL_JPEG_QUALITY })
      .toBuffer()
  const files = { srgb: await srgb().jpeg(jpeg).toBuffer(), cmyk: await cmyk().jpeg(jpeg).toBuffer() }
  // The renderer's CMYK preview from a JPEG photo: the photo at the preview's size through the profile and back.
  const softProof = async () => {
    const proof = await sharp(poster, { failOn: 'truncated' })
      .autoOrient()
      .resize({ width: 533, height: 800, fit: 'fill' })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .withIccProfile('srgb')
      .withIccProfile(profile)
      .tiff({ compression: 'none' })
      .toBuffer()
    return sharp(proof)
      .toColourspace('srgb')
      .withIccProfile('srgb')
      .jpeg({ quality: THUMBNAIL_JPEG_QUALITY })
      .toBuffer()
  }

  process.stderr.write(`measuring, ${ROUNDS} rounds each ...\n`)
  const geometryMs = await cpuMs(() => geometry().raw().toBuffer())
  const stages = {
    srgb: {
      raw: await cpuMs(() => srgb().raw().toBuffer()),
      jpeg: await cpuMs(() => srgb().jpeg(jpeg).toBuffer()),
      preview: await cpuMs(() => preview(files.srgb)),
    },
    cmyk: {
      raw: await cpuMs(() => cmyk().raw().toBuffer()),
      jpeg: await cpuMs(() => cmyk().jpeg(jpeg).toBuffer()),
      preview: await cpuMs(() => preview(files.cmyk)),
      softProof: await cpuMs(softProof),
    },
  }
  const renderer = createImageRenderer({ concurrency: 1 })
  // As the render step asks for them (services/pipeline/render-print-file.ts): the catalogue's size, spec and dpi.
  const printFile = (sku: string, attributes: Record<string, string>) => {
    const variant = catalogue.findVariant(sku, attributes)
    const size = variant?.printAreaSizes.default
    if (!variant || !size) throw new Error(`the sample has no ${sku}`)
    const area = printAreaRequestOf(variant, 'default', catalogue.colours)
    const dpi = printFileDpi(variant.printAreaSpecs.default)
    const target = { width: size.horizontalResolution, height: size.verticalResolution, dpi }
    return { ...target, sizing: 'fillPrintArea', format: 'jpeg', ...(area ? { area } : {}) } as const
  }
  const posterFile = printFile('GLOBAL-FAP-16x24', {})
  const canvasFile = printFile('GLOBAL-CAN-10x10', { wrap: 'Black' })
  const order = (labColour?: LabColour) => async () => {
    const lab = labColour ? { colour: labColour } : {}
    await renderer.renderPrintFile(poster, { ...posterFile, ...lab })
    await renderer.renderPrintFile(canvas, { ...canvasFile, ...lab })
  }
  const whole = { srgb: await cpuMs(order()), cmyk: await cpuMs(order(colour)) }
  const alternatives = await measureAlternatives(poster, geometry, profile, jpeg)

  const ms = (value: number) => value.toFixed(0)
  const row = (name: string, s: number, c: number) => `| ${name} | ${ms(s)} | ${ms(c)} | ${ms(c - s)} |`
  const lines = [
    `CPU ms, least of ${ROUNDS} rounds; sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}, lcms ` +
      `${sharp.versions.lcms ?? '?'}); poster 4800 x 7200 from a 12 MP JPEG; geometry alone (to raw) ${ms(geometryMs)}`,
    '',
    '| stage | sRGB lab | CMYK lab | CMYK - sRGB |',
    '|---|---:|---:|---:|',
    row('colour step (to raw, less the geometry)', stages.srgb.raw - geometryMs, stages.cmyk.raw - geometryMs),
    row('JPEG encode (JPEG less raw)', stages.srgb.jpeg - stages.srgb.raw, stages.cmyk.jpeg - stages.cmyk.raw),
    row('print file (geometry, colour, JPEG)', stages.srgb.jpeg, stages.cmyk.jpeg),
    row('preview from the file', stages.srgb.preview, stages.cmyk.preview),
    row('preview as rendered (CMYK: a soft proof from the photo)', stages.srgb.preview, stages.cmyk.softProof),
    row("an order's two print files (renderPrintFile)", whole.srgb, whole.cmyk),
    '',
    `Print file bytes: sRGB ${files.srgb.length}, CMYK ${files.cmyk.length}. ` +
      `CMYK / sRGB for an order's print files: ${(whole.cmyk / whole.srgb).toFixed(2)}x.`,
    '',
    `Alternatives for the poster's CMYK print file (GLIBC_TUNABLES=${process.env.GLIBC_TUNABLES ?? 'unset'}):`,
    '',
    '| poster (rounds interleaved) | CPU ms | vs the sRGB print file |',
    '|---|---:|---:|',
    ...alternatives.rows.map(
      ([name, value]) => `| ${name} | ${ms(value)} | ${(value / (alternatives.rows[0]?.[1] ?? 1)).toFixed(2)}x |`,
    ),
    '',
    alternatives.accuracy,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

type Pipeline = () => Sharp

/** The poster's CMYK print file made the other ways tried (bench/cmyk-lut.ts), and the table's agreement with lcms. */
async function measureAlternatives(
  poster: Buffer,
  geometry: Pipeline,
  profile: string,
  jpeg: JpegOptions,
): Promise<{ rows: [string, number][]; accuracy: string }> {
  const [width, height] = [4800, 7200]
  const icc = await readFile(profile)
  const lut = await buildCmykLut(profile)
  const kept = cmykTiff(width, height, icc)
  const fromTiff = (file: Buffer) =>
    sharp(file, { limitInputPixels: false })
      .pipelineColourspace('cmyk')
      .toColourspace('cmyk')
      .keepIccProfile()
      .jpeg(jpeg)
      .toBuffer()
  const viaLut = async (container: { file: Buffer; pixels: Uint32Array }) => {
    const rgb = await geometry().toColourspace('srgb').raw().toBuffer()
    applyCmykLut(lut, rgb, container.pixels, width * height)
    return fromTiff(container.file)
  }
  const rgb = await geometry().toColourspace('srgb').raw().toBuffer()
  const lcms = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .toColourspace('srgb')
    .withIccProfile(profile)
    .raw()
    .toBuffer()
  applyCmykLut(lut, rgb, kept.pixels, width * height)
  const table = new Uint8Array(kept.pixels.buffer, kept.pixels.byteOffset, width * height * 4)
  let largest = 0
  let withinOne = 0
  for (let at = 0; at < lcms.length; at++) {
    const difference = Math.abs((table[at] as number) - (lcms[at] as number))
    largest = Math.max(largest, difference)
    if (difference <= 1) withinOne++
  }
  const [first, second] = [await viaLut(kept), await viaLut(kept)]
  const embedded = (await sharp(first).metadata()).icc?.equals(icc)
  const cases: [string, () => Promise<unknown>][] = [
    ['sRGB print file (the renderer today): geometry, colour, JPEG', () => viaSrgb(geometry, jpeg)],
    [
      'CMYK print file, lcms in libvips after the resize (a photo not enlarged)',
      () => viaLcms(geometry, profile, jpeg),
    ],
    ['CMYK, lookup table in JavaScript, a fresh TIFF buffer each time', () => viaLut(cmykTiff(width, height, icc))],
    ['CMYK, lookup table in JavaScript, one TIFF buffer kept between renders', () => viaLut(kept)],
    [
      '  of which: geometry to raw RGB (a fresh 104 MB buffer)',
      () => geometry().toColourspace('srgb').raw().toBuffer(),
    ],
    [
      '  of which: the table applied (34.6 MP, kept output)',
      async () => applyCmykLut(lut, rgb, kept.pixels, width * height),
    ],
    ['  of which: the TIFF to a CMYK JPEG, profile kept', () => fromTiff(kept.file)],
    [
      "CMYK, lcms at the photo's 12 MP, then the resize in CMYK (the renderer's order)",
      () => sourceFirst(poster, profile, jpeg),
    ],
    ['writing a fresh 138 MB buffer', async () => Buffer.allocUnsafe(width * height * 4).fill(1)],
    ['writing a kept 138 MB buffer', async () => kept.pixels.fill(0x01010101)],
  ]
  // Rounds interleaved across the cases, so a change in the machine's load weighs on all of them alike.
  const least = cases.map(() => Number.POSITIVE_INFINITY)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, [, task]] of cases.entries()) {
      const before = process.cpuUsage()
      await task()
      const used = process.cpuUsage(before)
      least[index] = Math.min(least[index] as number, (used.user + used.system) / 1000)
    }
  }
  const rows = cases.map(([name], index): [string, number] => [name, least[index] as number])
  const share = ((withinOne / lcms.length) * 100).toFixed(2)
  const accuracy =
    `The table against lcms, 4800 x 7200 x 4 channel values: largest difference ${largest}, ${share}% within 1; ` +
    `profile embedded: ${embedded}; the same bytes twice: ${first.equals(second)}.`
  return { rows, accuracy }
}

function viaSrgb(geometry: Pipeline, jpeg: JpegOptions): Promise<Buffer> {
  return geometry().toColourspace('srgb').withIccProfile('srgb').jpeg(jpeg).toBuffer()
}

function viaLcms(geometry: Pipeline, profile: string, jpeg: JpegOptions): Promise<Buffer> {
  return geometry().toColourspace('srgb').withIccProfile(profile).jpeg(jpeg).toBuffer()
}

/**
 * The conversion at the source's resolution, before the resize: an uncompressed CMYK TIFF between two sharp
 * pipelines, the second resizing in CMYK: the renderer's order for an enlarged photo (convertedAtSource in
 * src/adapters/image-renderer.ts), built here by hand beside the alternatives.
 */
async function sourceFirst(poster: Buffer, profile: string, jpeg: JpegOptions): Promise<Buffer> {
  const tiff = await sharp(poster, { failOn: 'truncated' })
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .withIccProfile(profile)
    .tiff({ compression: 'none' })
    .toBuffer()
  return sharp(tiff, { limitInputPixels: false })
    .pipelineColourspace('cmyk')
    .resize({ width: 4800, height: 7200, fit: 'fill' })
    .toColourspace('cmyk')
    .keepIccProfile()
    .jpeg(jpeg)
    .toBuffer()
}

await main()
