import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { PDFDocument, rgb } from 'pdf-lib'
import sharp from 'sharp'
import { tier } from '../../test/support/tiers.ts'
import type { LabColour } from '../domain/print-specs.ts'
import { createPdfColourConverter, ghostscriptArguments } from './pdf-colour-converter.ts'
import { inspectPdf } from './pdf-inspection.ts'

tier('pure')

// CI installs Debian's ghostscript (.ci/run): a machine without it fails here rather than skip the conversion.
const GHOSTSCRIPT = process.env.PRINTROUTE_TEST_GHOSTSCRIPT ?? 'gs'

const CMYK: LabColour = {
  space: 'cmyk',
  profile: 'printroute-fogra39',
  intent: 'relative',
  blackPointCompensation: true,
}

/** Two pages drawn in RGB: a filled rectangle (the `rg` operator) and an RGB image. */
async function rgbPdf(): Promise<Buffer> {
  const document = await PDFDocument.create()
  const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 220, g: 30, b: 40 } } })
    .png()
    .toBuffer()
  const image = await document.embedPng(png)
  for (let index = 0; index < 2; index++) {
    const page = document.addPage([300, 400])
    page.drawRectangle({ x: 20, y: 20, width: 200, height: 100, color: rgb(0.1, 0.6, 0.9) })
    page.drawImage(image, { x: 50, y: 200, width: 100, height: 100 })
  }
  return Buffer.from(await document.save())
}

async function spacesOf(pdf: Buffer): Promise<{ pageCount: number; spaces: Set<string>; imageSpaces: Set<string> }> {
  const inspection = await inspectPdf(pdf, 10)
  assert.equal(inspection.kind, 'pdf')
  if (inspection.kind !== 'pdf') throw new Error('not a PDF')
  return {
    pageCount: inspection.pageCount,
    spaces: new Set(inspection.pages.flatMap((page) => page.colourSpaces)),
    imageSpaces: new Set(inspection.pages.flatMap((page) => page.images.map((image) => image.colourSpace))),
  }
}

describe('the PDF colour converter (Ghostscript)', () => {
  it('is installed where the tests run (CI installs ghostscript)', () => {
    const version = execFileSync(GHOSTSCRIPT, ['--version'], { encoding: 'utf8' }).trim()
    assert.match(version, /^\d+\.\d+/)
  })

  it('converts an RGB PDF to CMYK with the shipped profile: no DeviceRGB left, CMYK content, the same pages', async () => {
    const input = await rgbPdf()
    const before = await spacesOf(input)
    assert.ok(before.spaces.has('DeviceRGB'), `the input is RGB: ${[...before.spaces]}`)
    const warnings: string[] = []
    const convert = createPdfColourConverter({
      ghostscript: GHOSTSCRIPT,
      warn: (_f, message) => warnings.push(message),
    })
    const output = await convert(input, CMYK)
    assert.deepEqual(warnings, [])
    assert.ok(output, 'converted')
    const after = await spacesOf(output)
    assert.equal(after.pageCount, 2)
    assert.ok(!after.spaces.has('DeviceRGB'), `no DeviceRGB after: ${[...after.spaces]}`)
    assert.ok(!after.imageSpaces.has('DeviceRGB'), `no RGB image after: ${[...after.imageSpaces]}`)
    assert.ok(after.spaces.has('DeviceCMYK'), `CMYK after: ${[...after.spaces]}`)
  })

  it('names the profile, the intent and the compensation to Ghostscript, with -dSAFER', () => {
    const args = ghostscriptArguments(
      '/p/x.icc',
      { ...CMYK, intent: 'saturation', blackPointCompensation: false },
      'o',
      'i',
    )
    for (const flag of ['-dSAFER', '-sOutputICCProfile=/p/x.icc', '-dRenderIntent=2', '-dBlackPtComp=0']) {
      assert.ok(args.includes(flag), flag)
    }
    assert.deepEqual(args.slice(-3), ['-o', 'o', 'i'])
    assert.ok(ghostscriptArguments('/p', { ...CMYK, intent: 'absolute' }, 'o', 'i').includes('-dRenderIntent=3'))
  })

  it('answers null and warns when the program is missing', async () => {
    const warnings: Record<string, unknown>[] = []
    const convert = createPdfColourConverter({
      ghostscript: '/nonexistent/gs',
      warn: (fields) => warnings.push(fields),
    })
    assert.equal(await convert(await rgbPdf(), CMYK), null)
    assert.equal(warnings.length, 1)
    assert.match(String(warnings[0]?.reason), /ENOENT/)
  })

  it('answers null when the output is over the size bound, and for an sRGB lab without running anything', async () => {
    const warnings: string[] = []
    const convert = createPdfColourConverter({
      ghostscript: GHOSTSCRIPT,
      maxOutputBytes: 10,
      warn: (fields) => warnings.push(String(fields.reason)),
    })
    assert.equal(await convert(await rgbPdf(), CMYK), null)
    assert.match(warnings[0] ?? '', /over the 10 allowed/)
    const srgb: LabColour = { space: 'srgb', profile: null, intent: 'perceptual', blackPointCompensation: false }
    assert.equal(await convert(await rgbPdf(), srgb), null)
    assert.equal(warnings.length, 1)
  })

  it('stops a conversion at its time bound and answers null', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'printroute-gs-test-'))
    try {
      const hanging = join(dir, 'gs')
      writeFileSync(hanging, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 })
      const warnings: string[] = []
      const convert = createPdfColourConverter({
        ghostscript: hanging,
        timeoutMs: 100,
        warn: (fields) => warnings.push(String(fields.reason)),
      })
      assert.equal(await convert(await rgbPdf(), CMYK), null)
      assert.match(warnings[0] ?? '', /^stopped after 100 ms/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('answers null when Ghostscript refuses the file (not a PDF)', async () => {
    const warnings: string[] = []
    const convert = createPdfColourConverter({ ghostscript: GHOSTSCRIPT, warn: (_f, m) => warnings.push(m) })
    assert.equal(await convert(Buffer.from('%PDF-1.4 this is not really a PDF'), CMYK), null)
    assert.equal(warnings.length, 1)
  })
})
