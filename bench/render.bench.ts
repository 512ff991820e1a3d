// node bench/render.bench.ts — throughput of the render step (images per second) on generated camera-like
// JPEGs, next to the libvips command line (`vipsthumbnail`) doing the same resize and centre crop to the same
// size, quality and chroma, on the same inputs, in this one run on this machine: compare the ratio, not the
// absolute figures, across runs (docs/benchmarks.md).
//
// Cases: a 12 MP portrait photo (3000x4000) onto a 4800x7200 poster (fill: enlarged 1.8x, sides cut) and a
// 24 MP landscape photo (6000x4000) onto a 3054x3054 canvas (fill: reduced, sides cut). Sources have the same
// orientation as their print area, because vipsthumbnail cannot make the quarter turn the renderer would add.
// Each case runs sequentially (one image at a time; one vipsthumbnail process for all images) and at the
// renderer's concurrency (that many renders at once; as many vipsthumbnail processes, sharing the images).
//
// Set-up: if `vipsthumbnail` is not on PATH, installs Debian's libvips-tools (apt-get; this script's own
// set-up, never the tests'). Options (env): BENCH_IMAGES (images per case and mode, default 8), BENCH_ROUNDS
// (default 3): each figure is the median of that many rounds, sharp and vips alternating, because the machine
// is shared and a single run of either can be slowed by a neighbour.
// Prints a table and rewrites the block between the bench:render markers in docs/benchmarks.md.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { createImageRenderer, DEFAULT_RENDER_CONCURRENCY } from '../src/adapters/image-renderer.ts'
import {
  cameraLikeJpeg,
  ensureVips,
  item,
  VIPS_PROFILE_ARGS,
  VIPS_SAVE_OPTIONS,
  writeBenchmarksBlock,
} from './bench-support.ts'

const run = promisify(execFile)
const IMAGES = Number(process.env.BENCH_IMAGES ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONCURRENCY = DEFAULT_RENDER_CONCURRENCY
/** Distinct source files per case, used in turn. */
const SOURCES_PER_CASE = 2

interface Case {
  name: string
  source: { width: number; height: number }
  target: { width: number; height: number }
}

const CASES: Case[] = [
  {
    name: '12 MP 3000x4000 -> 4800x7200 fill',
    source: { width: 3000, height: 4000 },
    target: { width: 4800, height: 7200 },
  },
  {
    name: '24 MP 6000x4000 -> 3054x3054 fill',
    source: { width: 6000, height: 4000 },
    target: { width: 3054, height: 3054 },
  },
]

/** Images per second of one run of `task` (which handles IMAGES images). */
async function imagesPerSecond(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await task()
  return IMAGES / ((performance.now() - started) / 1000)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? item(sorted, middle) : (item(sorted, middle - 1) + item(sorted, middle)) / 2
}

/** Splits 0..IMAGES-1 into `parts` interleaved lists. */
function share(parts: number): number[][] {
  return Array.from({ length: parts }, (_, part) =>
    Array.from({ length: IMAGES }, (_, i) => i).filter((i) => i % parts === part),
  )
}

async function main(): Promise<void> {
  const vipsVersion = ensureVips()
  const dir = await mkdtemp(join(tmpdir(), 'printroute-render-bench-'))
  const renderer = createImageRenderer()
  const rows: string[] = []
  const notes: string[] = []
  try {
    for (const [caseIndex, benchCase] of CASES.entries()) {
      const caseDir = join(dir, `case${caseIndex}`)
      await mkdir(join(caseDir, 'sharp'), { recursive: true })
      await mkdir(join(caseDir, 'vips'), { recursive: true })
      process.stderr.write(`${benchCase.name}: generating ${SOURCES_PER_CASE} sources ...\n`)
      const sources: string[] = []
      for (let i = 0; i < SOURCES_PER_CASE; i++) {
        const path = join(caseDir, `source${i}.jpg`)
        await writeFile(path, await cameraLikeJpeg(benchCase.source.width, benchCase.source.height))
        sources.push(path)
      }
      // vipsthumbnail names each output after its input, so every image gets its own input file (a source
      // listed twice would write one output twice); both tools read the same files.
      const inputs: string[] = []
      for (let i = 0; i < IMAGES; i++) {
        const path = join(caseDir, fileName(i))
        await writeFile(path, await readFile(item(sources, i % SOURCES_PER_CASE)))
        inputs.push(path)
      }
      const sourceMiB = (await stat(item(sources, 0))).size / 1024 ** 2

      const { width, height } = benchCase.target
      const renderOne = async (i: number) => {
        const result = await renderer.renderPrintFile(item(inputs, i), {
          width,
          height,
          sizing: 'fillPrintArea',
          format: 'jpeg',
        })
        await writeFile(join(caseDir, 'sharp', fileName(i)), result.data)
      }
      const vipsBatch = (indexes: number[]) =>
        run('vipsthumbnail', [
          '--size',
          `${width}x${height}`,
          '--smartcrop',
          'centre',
          ...VIPS_PROFILE_ARGS,
          '-o',
          `${join(caseDir, 'vips', '%s.jpg')}${VIPS_SAVE_OPTIONS}`,
          ...indexes.map((i) => item(inputs, i)),
        ])

      // Warm-up: load code paths and fill the page cache with the sources.
      await renderOne(0)
      await vipsBatch([0])

      const modes = [
        {
          name: 'sequential',
          sharp: async () => {
            for (let i = 0; i < IMAGES; i++) await renderOne(i)
          },
          vips: () => vipsBatch(item(share(1), 0)),
        },
        {
          name: `${CONCURRENCY} at once`,
          sharp: () => Promise.all(Array.from({ length: IMAGES }, (_, i) => renderOne(i))),
          vips: () => Promise.all(share(CONCURRENCY).map(vipsBatch)),
        },
      ]
      const size = `${benchCase.source.width}x${benchCase.source.height} ${sourceMiB.toFixed(1)} MiB`
      for (const mode of modes) {
        const sharpRuns: number[] = []
        const vipsRuns: number[] = []
        for (let round = 1; round <= ROUNDS; round++) {
          process.stderr.write(`${benchCase.name}: ${mode.name}, round ${round} of ${ROUNDS} ...\n`)
          sharpRuns.push(await imagesPerSecond(mode.sharp))
          vipsRuns.push(await imagesPerSecond(mode.vips))
        }
        const s = median(sharpRuns)
        const v = median(vipsRuns)
        rows.push(
          `| ${benchCase.name} (${size}) | ${mode.name} | ${s.toFixed(2)} | ${v.toFixed(2)} | ${((100 * s) / v).toFixed(0)}% |`,
        )
      }
      notes.push(
        await compareOutputs(benchCase, join(caseDir, 'sharp', fileName(0)), join(caseDir, 'vips', fileName(0))),
      )
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }

  const cpu = cpus()
  const block = [
    `Command: \`node bench/render.bench.ts\`  (BENCH_IMAGES=${IMAGES}, BENCH_ROUNDS=${ROUNDS}: median of the rounds)`,
    `Machine: ${cpu.length} x ${cpu[0]?.model.trim()}, ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ` +
      `linux; sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}); ${vipsVersion} (Debian libvips-tools)`,
    `Date: ${new Date().toISOString()}`,
    `Renderer: concurrency ${CONCURRENCY}, sharp.concurrency(1), sharp.cache(false). vips: ` +
      `\`vipsthumbnail --size WxH --smartcrop centre ${VIPS_PROFILE_ARGS.join(' ')} -o out/%s.jpg${VIPS_SAVE_OPTIONS} in...\`, ` +
      `default threads (${cpu.length}), one process per concurrent lane.`,
    '',
    '| case | mode | sharp renderer images/s | vipsthumbnail images/s | renderer vs vips |',
    '|---|---|---:|---:|---:|',
    ...rows,
    '',
    ...notes.map((note) => `- ${note}`),
  ].join('\n')
  console.log(block)
  await writeBenchmarksBlock('render', block, { heading: '## Render throughput' })
}

/** Checks both tools made the same picture: same size, and the mean absolute difference per channel. */
async function compareOutputs(benchCase: Case, sharpPath: string, vipsPath: string): Promise<string> {
  const a = await sharp(sharpPath).raw().toBuffer({ resolveWithObject: true })
  const b = await sharp(vipsPath).raw().toBuffer({ resolveWithObject: true })
  const same = a.info.width === b.info.width && a.info.height === b.info.height
  let difference = Number.NaN
  if (same) {
    let sum = 0
    for (let i = 0; i < a.data.length; i++) sum += Math.abs((a.data[i] ?? 0) - (b.data[i] ?? 0))
    difference = sum / a.data.length
  }
  const [ma, mb] = await Promise.all([sharp(sharpPath).metadata(), sharp(vipsPath).metadata()])
  return (
    `${benchCase.name}: ${a.info.width}x${a.info.height}${same ? ' both' : ` vs ${b.info.width}x${b.info.height}`}, ` +
    `chroma ${ma.chromaSubsampling}/${mb.chromaSubsampling}, ICC ${ma.icc ? 'yes' : 'no'}/${mb.icc ? 'yes' : 'no'}, ` +
    `mean absolute difference ${difference.toFixed(2)} of 255 per channel`
  )
}

function fileName(index: number): string {
  return `in${String(index).padStart(3, '0')}.jpg`
}

await main()
