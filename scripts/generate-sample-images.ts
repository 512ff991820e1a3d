// Makes the sample images printroute serves under /samples/ (samples/*.jpg, committed): small pictures drawn
// for the purpose, with corner marks and a centre cross so a crop or a rotation shows in the print file.
// Run with `node scripts/generate-sample-images.ts` after changing the drawing; never imported by src/.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'

const OUTPUT_DIR = join(import.meta.dirname, '..', 'samples')

interface Sample {
  name: string
  width: number
  height: number
}

const SAMPLES: Sample[] = [
  { name: 'landscape', width: 1800, height: 1200 },
  { name: 'portrait', width: 1200, height: 1800 },
  { name: 'square', width: 1500, height: 1500 },
]

function drawing({ name, width, height }: Sample): string {
  const horizon = Math.round(height * 0.62)
  const sun = Math.round(Math.min(width, height) * 0.11)
  const mark = Math.round(Math.min(width, height) * 0.06)
  const corner = (x: number, y: number, dx: number, dy: number) =>
    `<path d="M${x + dx * mark} ${y} H${x} V${y + dy * mark}" stroke="#ffffff" stroke-width="10" fill="none"/>`
  const label = Math.round(Math.min(width, height) * 0.05)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#1d3b6e"/><stop offset="1" stop-color="#f2a65a"/>
    </linearGradient>
    <linearGradient id="land" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#2e6b3f"/><stop offset="1" stop-color="#163d24"/>
    </linearGradient>
  </defs>
  <rect width="${width}" height="${height}" fill="url(#sky)"/>
  <circle cx="${Math.round(width * 0.72)}" cy="${Math.round(horizon * 0.55)}" r="${sun}" fill="#ffd56b"/>
  <path d="M0 ${horizon} Q${width * 0.25} ${horizon - height * 0.12} ${width * 0.5} ${horizon}
           T${width} ${horizon - height * 0.05} V${height} H0 Z" fill="url(#land)"/>
  <path d="M0 ${horizon + height * 0.1} Q${width * 0.4} ${horizon - height * 0.02} ${width} ${horizon + height * 0.14}
           V${height} H0 Z" fill="#0f2a19" opacity="0.7"/>
  <path d="M${width / 2 - mark} ${height / 2} H${width / 2 + mark} M${width / 2} ${height / 2 - mark} V${height / 2 + mark}"
        stroke="#ffffff" stroke-width="6" opacity="0.8"/>
  ${corner(30, 30, 1, 1)}${corner(width - 30, 30, -1, 1)}${corner(30, height - 30, 1, -1)}${corner(width - 30, height - 30, -1, -1)}
  <text x="50%" y="${Math.round(height * 0.14)}" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold"
        font-size="${label}" fill="#ffffff">printroute sample</text>
  <text x="50%" y="${Math.round(height * 0.14) + Math.round(label * 1.2)}" text-anchor="middle" font-family="DejaVu Sans"
        font-size="${Math.round(label * 0.6)}" fill="#ffffff">${name} ${width} x ${height}</text>
</svg>`
}

mkdirSync(OUTPUT_DIR, { recursive: true })
for (const sample of SAMPLES) {
  const path = join(OUTPUT_DIR, `${sample.name}.jpg`)
  const info = await sharp(Buffer.from(drawing(sample)))
    .jpeg({ quality: 82, mozjpeg: true })
    .withMetadata({ density: 300 })
    .toFile(path)
  console.log(`wrote ${path}: ${info.width}x${info.height}, ${info.size} bytes`)
}
