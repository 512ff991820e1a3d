// The baseline of `npm run bench:preflight`: what printroute did with the same file before the preflight, in a
// fresh process of its own like the inspector's child, so the two peaks compare. `pdf`: adapters/pdf-check.ts
// (pdf-lib reads the file and counts its pages); `image`: sharp reads the header (the renderer's probe). Prints
// one JSON line: the answer, the time it took and the process's peak resident memory.
import { readFileSync } from 'node:fs'
import { checkPdf } from '../src/adapters/pdf-check.ts'

const [kind, path] = process.argv.slice(2)
if (!path || (kind !== 'pdf' && kind !== 'image')) throw new Error('usage: preflight-baseline.ts pdf|image PATH')
const started = performance.now()
let answer: unknown
if (kind === 'pdf') {
  answer = await checkPdf(path, null)
} else {
  const { default: sharp } = await import('sharp')
  const { width, height, format } = await sharp(path, { limitInputPixels: false }).metadata()
  answer = { width, height, format }
}
const elapsedMs = Math.round(performance.now() - started)
process.stdout.write(`${JSON.stringify({ answer, elapsedMs, peakRssBytes: peakKb() * 1024 })}\n`)

/** VmHWM (Linux): getrusage's maxRSS would carry the parent's peak across fork and exec. */
function peakKb(): number {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
  return match ? Number(match[1]) : process.resourceUsage().maxRSS
}
