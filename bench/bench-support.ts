// Pieces the benchmarks share: test photos, the vips command line, PostgreSQL reachability and the
// docs/benchmarks.md block each benchmark rewrites.
import { execFileSync } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import sharp from 'sharp'
import { PRINT_JPEG_QUALITY } from '../src/adapters/image-renderer.ts'

export const BENCHMARKS_MD = join(import.meta.dirname, '..', 'docs', 'benchmarks.md')

/**
 * vipsthumbnail arguments matching the renderer: sRGB transform with the profile embedded (`-i`/`-e`; `strip`
 * would drop the profile too), quality, 4:4:4 chroma, no Huffman optimisation.
 */
export const VIPS_PROFILE_ARGS = ['--import-profile', 'srgb', '--export-profile', 'srgb']
export const VIPS_SAVE_OPTIONS = `[Q=${PRINT_JPEG_QUALITY},subsample-mode=off,optimize-coding=false]`

/** The vips version; installs Debian's libvips-tools first when `vipsthumbnail` is missing (benchmarks only). */
export function ensureVips(): string {
  const version = () => execFileSync('vipsthumbnail', ['--vips-version'], { encoding: 'utf8' }).trim()
  try {
    return version()
  } catch {
    process.stderr.write('vipsthumbnail not found: installing libvips-tools with apt-get ...\n')
  }
  const install = () => execFileSync('apt-get', ['install', '-y', 'libvips-tools'], { stdio: 'inherit' })
  try {
    install()
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' })
    install()
  }
  return version()
}

/**
 * A camera-like JPEG: smooth colour regions (a 16x12 grid of random colours, enlarged with a cubic kernel)
 * under fine grain (Gaussian noise, soft-light blended), saved at quality 92 with 4:2:0 chroma like a camera.
 * Pure noise would make decoding unrealistically slow; flat colour, unrealistically fast.
 */
export async function cameraLikeJpeg(width: number, height: number): Promise<Buffer> {
  const cells = Buffer.from(Array.from({ length: 16 * 12 * 3 }, () => Math.floor(Math.random() * 256)))
  const grain = await sharp({
    create: { width, height, channels: 3, background: 'grey', noise: { type: 'gaussian', mean: 128, sigma: 28 } },
  })
    .raw()
    .toBuffer()
  const base = await sharp(cells, { raw: { width: 16, height: 12, channels: 3 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer()
  return sharp(base, { raw: { width, height, channels: 3 } })
    .composite([{ input: grain, raw: { width, height, channels: 3 }, blend: 'soft-light' }])
    .jpeg({ quality: 92, chromaSubsampling: '4:2:0' })
    .toBuffer()
}

export async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

export function item<T>(list: readonly T[], index: number): T {
  const value = list[index]
  if (value === undefined) throw new Error(`no item ${index}`)
  return value
}

/**
 * Replaces the text between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` in docs/benchmarks.md.
 * When the markers are missing, a section `heading` with them is added before the heading `before` (if the
 * file has it) or at the end.
 */
export async function writeBenchmarksBlock(
  name: string,
  block: string,
  section: { heading: string; before?: string },
): Promise<void> {
  const start = `<!-- bench:${name}:start -->`
  const end = `<!-- bench:${name}:end -->`
  let text = await readFile(BENCHMARKS_MD, 'utf8')
  if (!text.includes(start)) {
    const added = `${section.heading}\n\n${start}\n${end}\n\n`
    const at = section.before ? text.indexOf(section.before) : -1
    text = at >= 0 ? `${text.slice(0, at)}${added}${text.slice(at)}` : `${text.trimEnd()}\n\n${added}`
  }
  const from = text.indexOf(start) + start.length
  const to = text.indexOf(end)
  if (to < from) throw new Error(`${BENCHMARKS_MD}: ${end} must follow ${start}`)
  await writeFile(BENCHMARKS_MD, `${text.slice(0, from)}\n${block.trimEnd()}\n${text.slice(to)}`)
}
