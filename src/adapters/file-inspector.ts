// The preflight's file inspector (docs/print-files.md, "Preflight"): measures a stored PDF or image within
// explicit limits (domain/limits.ts, PREFLIGHT_LIMITS) and never throws for a bad file. Each inspection runs in a
// child process of its own (file-inspection-child.ts) because a hostile file must not cost the service: the child's
// V8 heap is capped, its resident memory is watched and the process killed (SIGKILL, so it cannot linger) at the
// memory limit or the deadline, and the answer is then `unreadable` with the bound it hit. Files over the byte
// limit are answered without starting a process. At most `concurrency` children run at once; further requests
// wait their turn without blocking the caller's event loop.

import { type ChildProcess, fork } from 'node:child_process'
import { readFile, stat } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { PREFLIGHT_LIMITS, type PreflightLimits } from '../domain/limits.ts'
import type { FileInspection, FileInspector } from '../domain/preflight.ts'
import type { InspectionAnswer, InspectionRequest } from './file-inspection-child.ts'
import type { BoxFixRequest } from './pdf-box-fix.ts'
import type { RenderedThumbnail, ThumbnailRequest } from './pdf-thumbnails.ts'

const CHILD = fileURLToPath(new URL('./file-inspection-child.ts', import.meta.url))
/** How often the child's resident memory is read (Linux /proc; elsewhere the heap cap alone bounds it). */
const MEMORY_POLL_MS = 50

export interface InspectionRun {
  readonly inspection: FileInspection
  /** The inspecting process's peak resident memory in bytes (null when no process was needed). */
  readonly peakRssBytes: number | null
  readonly elapsedMs: number
}

export type BoxFixResult = { readonly pagesChanged: number } | { readonly failed: string }

export type ThumbnailsResult = { readonly thumbnails: readonly RenderedThumbnail[] } | { readonly failed: string }

export interface BoundedFileInspector extends FileInspector {
  /** The inspection with what it cost (for the benchmark and the logs). */
  inspectMeasured(path: string, contentType: string): Promise<InspectionRun>
  /**
   * The safe box fix (preflight report's `fixes`: SetTrimBox, SetBleedBox) on printroute's copy: writes
   * `outputPath` when a page was changed, within the same limits as an inspection.
   */
  fixPdfBoxes(inputPath: string, outputPath: string, book: BoxFixRequest): Promise<BoxFixResult>
  /**
   * Page thumbnails of a PDF with the trim, bleed and safe lines drawn on them (pdf-thumbnails.ts), within the
   * same limits as an inspection: a file that overruns them gets none.
   */
  renderPdfThumbnails(path: string, request: ThumbnailRequest): Promise<ThumbnailsResult>
  readonly limits: PreflightLimits
}

function createLimiter(concurrency: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await task()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}

async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
    return match ? Number(match[1]) * 1024 : null
  } catch {
    return null
  }
}

type ChildOutcome =
  | { answer: InspectionAnswer; peakRssBytes: number }
  | { overran: 'time' | 'memory' | 'crash'; detail: string; peakRssBytes: number }

/** Runs one request in a fresh child, bounded by the limits; resolves whatever the child does. */
function runChild(request: InspectionRequest, limits: PreflightLimits): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child: ChildProcess = fork(CHILD, [], {
      execArgv: [`--max-old-space-size=${limits.maxMemoryMb}`, '--disable-warning=ExperimentalWarning'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let peak = 0
    let stderr = ''
    let settled = false
    let overran: 'time' | 'memory' | null = null
    const finish = (outcome: ChildOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(deadline)
      clearInterval(watch)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      resolve(outcome)
    }
    const deadline = setTimeout(() => {
      overran = 'time'
      child.kill('SIGKILL')
    }, limits.timeoutMs)
    const watch = setInterval(() => {
      if (child.pid === undefined) return
      void residentBytes(child.pid).then((bytes) => {
        if (bytes === null) return
        peak = Math.max(peak, bytes)
        if (bytes > limits.maxMemoryMb * 1_048_576 && overran === null) {
          overran = 'memory'
          child.kill('SIGKILL')
        }
      })
    }, MEMORY_POLL_MS)
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000)
    })
    child.on('message', (answer: InspectionAnswer) => {
      finish({ answer, peakRssBytes: Math.max(peak, answer.maxRssKb * 1024) })
    })
    child.on('error', (error) => finish({ overran: 'crash', detail: error.message, peakRssBytes: peak }))
    // 'close', not 'exit': it comes after the IPC channel and stderr are drained, so a last answer is not lost.
    child.on('close', (code, signal) => {
      if (overran) return finish({ overran, detail: '', peakRssBytes: peak })
      // V8 aborts a process whose heap reached --max-old-space-size: that is the memory limit too.
      if (/heap out of memory|Allocation failed/i.test(stderr)) {
        return finish({ overran: 'memory', detail: '', peakRssBytes: peak })
      }
      finish({ overran: 'crash', detail: signal ? `signal ${signal}` : `exit code ${code}`, peakRssBytes: peak })
    })
    child.send(request)
  })
}

function overrunReason(outcome: Extract<ChildOutcome, { overran: string }>, limits: PreflightLimits): string {
  if (outcome.overran === 'time') {
    const ms = limits.timeoutMs
    return `took longer than ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}`
  }
  if (outcome.overran === 'memory') return `needed more than ${limits.maxMemoryMb} MB`
  return `the inspection stopped unexpectedly (${outcome.detail})`
}

export function createFileInspector(overrides: Partial<PreflightLimits> = {}): BoundedFileInspector {
  const limits: PreflightLimits = { ...PREFLIGHT_LIMITS, ...overrides }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  const limit = createLimiter(limits.concurrency)

  async function inspectMeasured(path: string, contentType: string): Promise<InspectionRun> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    let size: number
    try {
      size = (await stat(path)).size
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return {
        inspection: { kind: 'unreadable', reason: `the file cannot be opened (${reason})` },
        peakRssBytes: null,
        elapsedMs: elapsed(),
      }
    }
    if (size > limits.maxBytes) {
      const reason = `the file is ${(size / 1_048_576).toFixed(0)} MB, more than the ${(limits.maxBytes / 1_048_576).toFixed(0)} MB preflight reads`
      return { inspection: { kind: 'unreadable', reason }, peakRssBytes: null, elapsedMs: elapsed() }
    }
    const request: InspectionRequest = {
      op: 'inspect',
      path,
      contentType,
      maxPages: limits.maxPages,
      maxPixels: limits.maxPixels,
    }
    const outcome = await limit(() => runChild(request, limits))
    let inspection: FileInspection
    if ('overran' in outcome) inspection = { kind: 'unreadable', reason: overrunReason(outcome, limits) }
    else if (outcome.answer.op === 'inspect') inspection = outcome.answer.inspection
    else if (outcome.answer.op === 'failed') inspection = { kind: 'unreadable', reason: outcome.answer.reason }
    else inspection = { kind: 'unreadable', reason: 'the inspector answered another request' }
    return { inspection, peakRssBytes: outcome.peakRssBytes, elapsedMs: elapsed() }
  }

  return {
    limits,
    inspectMeasured,
    inspect: async (path, contentType) => (await inspectMeasured(path, contentType)).inspection,
    async fixPdfBoxes(inputPath, outputPath, book) {
      const size = (await stat(inputPath)).size
      if (size > limits.maxBytes)
        return { failed: `the file is more than the ${limits.maxBytes} bytes preflight reads` }
      const outcome = await limit(() => runChild({ op: 'fix-boxes', path: inputPath, outputPath, book }, limits))
      if ('overran' in outcome) return { failed: overrunReason(outcome, limits) }
      if (outcome.answer.op === 'fix-boxes') return { pagesChanged: outcome.answer.pagesChanged }
      return { failed: outcome.answer.op === 'failed' ? outcome.answer.reason : 'unexpected answer' }
    },
    async renderPdfThumbnails(path, request) {
      const size = (await stat(path)).size
      if (size > limits.maxBytes)
        return { failed: `the file is more than the ${limits.maxBytes} bytes preflight reads` }
      const outcome = await limit(() => runChild({ op: 'thumbnails', path, request }, limits))
      if ('overran' in outcome) return { failed: overrunReason(outcome, limits) }
      if (outcome.answer.op === 'thumbnails') return { thumbnails: outcome.answer.thumbnails }
      return { failed: outcome.answer.op === 'failed' ? outcome.answer.reason : 'unexpected answer' }
    },
  }
}
