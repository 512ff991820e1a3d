// A book's PDF converted to a CMYK lab's colour by Ghostscript (docs/print-files.md#pdfs-and-colour). Ghostscript
// is AGPL: printroute never links or ships it, it runs the `gs` executable the operator names (`--ghostscript`) as
// a separate program, without a shell, with a time and an output-size bound. Whatever goes wrong (no such
// program, a refusal, a timeout, an output too large or not a PDF) the conversion answers null: the caller passes
// the PDF through as before and the reason is logged as a warning.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PDFDocument } from 'pdf-lib'
import { CMYK_PROFILES } from '../domain/colour-profiles.ts'
import type { LabColour, RenderingIntent } from '../domain/print-specs.ts'
import { DEFAULT_PROFILES_DIRECTORY } from './image-renderer.ts'

/** Ghostscript's -dRenderIntent numbers (the ICC order): 0 perceptual, 1 relative colorimetric, 2 saturation, 3 absolute. */
const GS_RENDER_INTENT: Readonly<Record<RenderingIntent, number>> = {
  perceptual: 0,
  relative: 1,
  saturation: 2,
  absolute: 3,
}

export const DEFAULT_CONVERSION_TIMEOUT_MS = 120_000

export interface PdfColourConverterOptions {
  /** The `gs` executable (an absolute path, or a name found on PATH). */
  ghostscript: string
  /** Where the CMYK profiles are; DEFAULT_PROFILES_DIRECTORY when absent. */
  profilesDirectory?: string
  /** Longest a conversion may run before it is stopped (default 120 s). */
  timeoutMs?: number
  /** Largest converted file accepted: this many bytes, else 4 times the input plus 16 MiB. */
  maxOutputBytes?: number
  /** Where a failed conversion is reported (the caller passes the PDF through). */
  warn?: (fields: Record<string, unknown>, message: string) => void
}

/** Converts a PDF to `colour` (a CMYK lab colour); null when it was not converted (see the log). */
export type PdfColourConverter = (input: Buffer, colour: LabColour) => Promise<Buffer | null>

/** Ghostscript's arguments for one conversion (exported for the tests and the docs). */
export function ghostscriptArguments(profilePath: string, colour: LabColour, output: string, input: string): string[] {
  return [
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-dQUIET',
    '-sDEVICE=pdfwrite',
    '-dCompatibilityLevel=1.6',
    '-sColorConversionStrategy=CMYK',
    '-dProcessColorModel=/DeviceCMYK',
    `-sOutputICCProfile=${profilePath}`,
    `-dRenderIntent=${GS_RENDER_INTENT[colour.intent]}`,
    `-dBlackPtComp=${colour.blackPointCompensation ? 1 : 0}`,
    '-o',
    output,
    input,
  ]
}

function run(file: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // No shell; a bounded amount of its chatter kept for the warning; killed at the time bound.
    execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, windowsHide: true },
      (error, _stdout, stderr) => {
        if (!error) return resolve()
        const detail = String(stderr).trim().slice(0, 500)
        const reason = error.killed ? `stopped after ${timeoutMs} ms` : error.message.split('\n')[0]
        reject(new Error(detail ? `${reason}: ${detail}` : reason))
      },
    )
  })
}

async function pageCountOf(pdf: Buffer): Promise<number> {
  const document = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false })
  return document.getPageCount()
}

export function createPdfColourConverter(options: PdfColourConverterOptions): PdfColourConverter {
  const profilesDirectory = options.profilesDirectory ?? DEFAULT_PROFILES_DIRECTORY
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONVERSION_TIMEOUT_MS
  return async (input, colour) => {
    if (colour.space !== 'cmyk' || colour.profile === null) return null
    const info = CMYK_PROFILES[colour.profile]
    if (!info) {
      options.warn?.({ profile: colour.profile }, 'PDF passed through unconverted: unknown CMYK profile')
      return null
    }
    const maxOutputBytes = options.maxOutputBytes ?? input.length * 4 + 16 * 1024 * 1024
    const workDir = await mkdtemp(join(tmpdir(), 'printroute-gs-'))
    try {
      const inPath = join(workDir, 'in.pdf')
      const outPath = join(workDir, 'out.pdf')
      await writeFile(inPath, input)
      await run(
        options.ghostscript,
        ghostscriptArguments(join(profilesDirectory, info.file), colour, outPath, inPath),
        timeoutMs,
      )
      const { size } = await stat(outPath)
      if (size > maxOutputBytes) throw new Error(`its output of ${size} bytes is over the ${maxOutputBytes} allowed`)
      const output = await readFile(outPath)
      if (output.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error('its output is not a PDF')
      // Ghostscript answers success with a blank page for a file it could not read: the pages must all be there.
      const [pagesIn, pagesOut] = await Promise.all([pageCountOf(input), pageCountOf(output)])
      if (pagesIn !== pagesOut) throw new Error(`its output has ${pagesOut} pages, the input ${pagesIn}`)
      return output
    } catch (error) {
      options.warn?.(
        { ghostscript: options.ghostscript, reason: (error as Error).message },
        'PDF passed through unconverted: Ghostscript failed',
      )
      return null
    } finally {
      await rm(workDir, { recursive: true, force: true })
    }
  }
}
