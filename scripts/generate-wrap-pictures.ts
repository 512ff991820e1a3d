// Makes the pictures of docs/print-files.md, "Bleed and canvas wraps" (docs/images/wrap-*.png, committed): the
// sample image samples/square.jpg previewed by the real renderer as an 8 x 8 in canvas on 38 mm bars with 3 mm
// bleed and a 6 mm safe area, once per wrap, and as an A5 poster with bleed, each with its guide lines. Small
// files: previews 320 px on the longer side, PNG with a 64-colour palette. Run with
// `node scripts/generate-wrap-pictures.ts` after changing the layout or the lines; never imported by src/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { createImageRenderer } from '../src/adapters/image-renderer.ts'
import type { PrintAreaSpec } from '../src/domain/print-specs.ts'

const ROOT = join(import.meta.dirname, '..')
const OUTPUT_DIR = join(ROOT, 'docs', 'images')
const SOURCE = join(ROOT, 'samples', 'square.jpg')

const CANVAS: PrintAreaSpec = {
  trimMm: { width: 203.2, height: 203.2 },
  bleedMm: 3,
  safeMm: 6,
  wrapMm: 38,
  minDpi: 100,
  recommendedDpi: 300,
}
const POSTER: PrintAreaSpec = { ...CANVAS, trimMm: { width: 148, height: 210 }, wrapMm: null }

const PICTURES: { name: string; spec: PrintAreaSpec; wrap: string | null }[] = [
  { name: 'wrap-flat-bleed', spec: POSTER, wrap: null },
  { name: 'wrap-image', spec: CANVAS, wrap: 'ImageWrap' },
  { name: 'wrap-mirror', spec: CANVAS, wrap: 'MirrorWrap' },
  { name: 'wrap-black', spec: CANVAS, wrap: 'Black' },
]

mkdirSync(OUTPUT_DIR, { recursive: true })
const renderer = createImageRenderer()
for (const { name, spec, wrap } of PICTURES) {
  const preview = await renderer.renderPreview(SOURCE, {
    width: 1,
    height: 1,
    sizing: 'fillPrintArea',
    maxEdge: 320,
    area: { spec, wrap },
  })
  const png = await sharp(preview.data).png({ palette: true, colours: 64, compressionLevel: 9 }).toBuffer()
  writeFileSync(join(OUTPUT_DIR, `${name}.png`), png)
  console.log(`${name}.png ${preview.width} x ${preview.height}, ${png.length} bytes`)
}
