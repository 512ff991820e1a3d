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
// - preview: the print-file preview made from that file (decoded at 1/8, to sRGB, 800 px, quality 80);
// then the whole renderPrintFile of both print files of an order (the poster and the canvas, wrap Black) per colour.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import sharp from 'sharp'
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
    row("an order's two print files (renderPrintFile)", whole.srgb, whole.cmyk),
    '',
    `Print file bytes: sRGB ${files.srgb.length}, CMYK ${files.cmyk.length}. ` +
      `CMYK / sRGB for an order's print files: ${(whole.cmyk / whole.srgb).toFixed(2)}x.`,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

await main()
