// node bench/render-memory.ts — peak memory (RSS) of rendering a 100-megapixel photo to a 6000 x 7200 print
// file with the image renderer's default settings (pixel limit, concurrency, sharp cache off, one libvips
// thread per image). The source, 12000 x 8400 of Gaussian noise (the hardest case for the JPEG decoder), is
// written to a temporary file first; each measurement then runs in a fresh child process, so its peak RSS
// (process.resourceUsage().maxRSS, which the kernel tracks exactly) is the render's alone, not the set-up's.
//
// Scenarios: the landscape source into the portrait area (turned a quarter turn, so libvips must hold the
// resized image in memory), the same into a landscape 7200 x 6000 area (no turn: streamed), and `concurrency`
// turned renders at once (the renderer's worst case). Options (env): none. Prints a table; the figures are
// copied by hand into docs/print-files.md.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import {
  createImageRenderer,
  DEFAULT_MAX_INPUT_PIXELS,
  DEFAULT_RENDER_CONCURRENCY,
  type PrintFileOptions,
} from '../src/adapters/image-renderer.ts'

const SOURCE = { width: 12_000, height: 8_400 }
const MiB = 1024 * 1024

interface Scenario {
  name: string
  target: PrintFileOptions
  copies: number
}

const SCENARIOS: Scenario[] = [
  {
    name: 'turned: 12000x8400 -> 6000x7200 fill, jpeg',
    target: { width: 6000, height: 7200, sizing: 'fillPrintArea', format: 'jpeg' },
    copies: 1,
  },
  {
    name: 'not turned: 12000x8400 -> 7200x6000 fill, jpeg',
    target: { width: 7200, height: 6000, sizing: 'fillPrintArea', format: 'jpeg' },
    copies: 1,
  },
  {
    name: `turned, ${DEFAULT_RENDER_CONCURRENCY} at once (renderer concurrency)`,
    target: { width: 6000, height: 7200, sizing: 'fillPrintArea', format: 'jpeg' },
    copies: DEFAULT_RENDER_CONCURRENCY,
  },
]

interface Measurement {
  baselineRssMiB: number
  peakRssMiB: number
  sampledPeakRssMiB: number
  seconds: number
  outputMiB: number
  rotated: boolean
}

/** Child: render `copies` print files at once from `path` and print the measurement as one JSON line. */
async function measure(path: string, scenario: Scenario): Promise<void> {
  const renderer = createImageRenderer()
  const baselineRssMiB = process.resourceUsage().maxRSS / 1024
  let sampledPeak = process.memoryUsage.rss()
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss())
  }, 5)
  const started = performance.now()
  const results = await Promise.all(
    Array.from({ length: scenario.copies }, () => renderer.renderPrintFile(path, scenario.target)),
  )
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  const measurement: Measurement = {
    baselineRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    sampledPeakRssMiB: sampledPeak / MiB,
    seconds,
    outputMiB: results.reduce((sum, r) => sum + r.data.length, 0) / MiB,
    rotated: results.some((r) => r.rotated),
  }
  process.stdout.write(`${JSON.stringify(measurement)}\n`)
}

function runChild(path: string, index: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [import.meta.filename, '--measure', path, String(index)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(output) as Measurement)
      else reject(new Error(`measurement ${index} exited with ${code}`))
    })
  })
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'printroute-render-memory-'))
  try {
    const path = join(dir, 'source-100mp.jpg')
    process.stderr.write(`writing ${SOURCE.width}x${SOURCE.height} noise JPEG to ${path} ...\n`)
    await sharp({
      create: {
        ...SOURCE,
        channels: 3,
        background: { r: 128, g: 128, b: 128 },
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .jpeg({ quality: 90 })
      .toFile(path)
    const sourceMiB = (await stat(path)).size / MiB

    const rows: string[] = []
    for (const [index, scenario] of SCENARIOS.entries()) {
      process.stderr.write(`measuring: ${scenario.name} ...\n`)
      const m = await runChild(path, index)
      rows.push(
        `| ${scenario.name} | ${m.rotated ? 'yes' : 'no'} | ${m.baselineRssMiB.toFixed(0)} | ${m.peakRssMiB.toFixed(0)} | ` +
          `${(m.peakRssMiB - m.baselineRssMiB).toFixed(0)} | ${m.seconds.toFixed(1)} | ${m.outputMiB.toFixed(1)} |`,
      )
    }

    const cpu = cpus()
    console.log('Command: `node bench/render-memory.ts`')
    console.log(
      `Machine: ${cpu.length} x ${cpu[0]?.model.trim()}, ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ` +
        `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`,
    )
    console.log(`Date: ${new Date().toISOString()}`)
    console.log(
      `Source: ${SOURCE.width}x${SOURCE.height} Gaussian-noise JPEG (q90), ${sourceMiB.toFixed(0)} MiB. Renderer: ` +
        `maxInputPixels ${DEFAULT_MAX_INPUT_PIXELS}, concurrency ${DEFAULT_RENDER_CONCURRENCY}, ` +
        'sharp.cache(false), sharp.concurrency(1)',
    )
    console.log('')
    console.log('| scenario | turned | RSS before MiB | peak RSS MiB | peak - before MiB | seconds | output MiB |')
    console.log('|---|---|---:|---:|---:|---:|---:|')
    for (const row of rows) console.log(row)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--measure') {
  const [path, index] = process.argv.slice(3)
  const scenario = SCENARIOS[Number(index)]
  if (!path || !scenario) throw new Error('usage: render-memory.ts --measure <path> <scenario index>')
  await measure(path, scenario)
} else {
  await main()
}
