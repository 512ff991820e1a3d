// Reads a PDF content stream's operators for the preflight: the transformation matrix (q, Q, cm), the XObjects
// drawn (Do), inline images (BI ID EI), the fonts selected (Tf) and the colour spaces painted with (cs, CS, rg, RG,
// k, K, g, G). Nothing is drawn; text, paths and strings are skipped over. Tolerant of malformed input: an
// unknown byte is skipped, an unbalanced Q is ignored, and the graphics-state stack is bounded, so any bytes end
// in one linear pass.

import type { PDFDict } from 'pdf-lib'

/** Saved graphics states kept (q without Q); deeper saves are counted but not stored. */
const MAX_STATE_DEPTH = 256

const IDENTITY = [1, 0, 0, 1, 0, 0]

export interface ContentHandlers {
  /** An XObject drawn (`Do`) with the current transformation matrix. */
  drawXObject(name: string, resources: PDFDict | null, ctm: readonly number[]): void
  /** An inline image (BI ... ID ... EI) with its dictionary's entries. */
  inlineImage(entries: Map<string, string | number>, resources: PDFDict | null, ctm: readonly number[]): void
  /** A font selected (`Tf`). */
  font(name: string, resources: PDFDict | null): void
  /** A colour space named by `cs`/`CS`, or a device space set by `rg`, `k`, `g` and their stroking forms. */
  colourSpace(name: string, resources: PDFDict | null): void
}

type Operand = number | { name: string } | null

const isWhite = (byte: number) =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00
const isDelimiter = (byte: number) =>
  byte === 0x28 ||
  byte === 0x29 ||
  byte === 0x3c ||
  byte === 0x3e ||
  byte === 0x5b ||
  byte === 0x5d ||
  byte === 0x7b ||
  byte === 0x7d ||
  byte === 0x2f ||
  byte === 0x25

/** PDF matrices [a b c d e f]: m then n (the CTM after `m cm` is multiply(m, ctm)). */
export function multiply(m: readonly number[], n: readonly number[]): number[] {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m
  const [A = 1, B = 0, C = 0, D = 1, E = 0, F = 0] = n
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F]
}

/** Index after a literal string starting at `start` (the opening parenthesis), nesting and escapes followed. */
function skipString(bytes: Uint8Array, start: number): number {
  let depth = 0
  let i = start
  while (i < bytes.length) {
    const byte = bytes[i]
    if (byte === 0x5c) i += 2
    else {
      if (byte === 0x28) depth++
      else if (byte === 0x29 && --depth === 0) return i + 1
      i++
    }
  }
  return i
}

function readRegular(bytes: Uint8Array, start: number): number {
  let i = start
  while (i < bytes.length && !isWhite(bytes[i] as number) && !isDelimiter(bytes[i] as number)) i++
  return i
}

function decodeName(raw: string): string {
  return raw.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}

const text = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1')

/**
 * Index after an inline image's data: the `EI` that follows `start` with white space before and after it (or the
 * end). The data is binary, so this is a search, as readers do.
 */
function skipInlineData(bytes: Uint8Array, start: number): number {
  for (let i = start; i + 1 < bytes.length; i++) {
    if (bytes[i] !== 0x45 || bytes[i + 1] !== 0x49) continue
    const before = i === 0 || isWhite(bytes[i - 1] as number)
    const after = i + 2 >= bytes.length || isWhite(bytes[i + 2] as number)
    if (before && after) return i + 2
  }
  return bytes.length
}

/** Scans one content stream, calling `handlers` for what the preflight measures. */
export function scanContent(
  bytes: Uint8Array,
  resources: PDFDict | null,
  handlers: ContentHandlers,
  startCtm: readonly number[] = IDENTITY,
): void {
  let ctm: readonly number[] = startCtm
  const saved: (readonly number[])[] = []
  let unsaved = 0
  let operands: Operand[] = []
  let inline: Map<string, string | number> | null = null
  let i = 0
  const operator = (op: string) => {
    if (op === 'q') {
      if (saved.length < MAX_STATE_DEPTH) saved.push(ctm)
      else unsaved++
    } else if (op === 'Q') {
      if (unsaved > 0) unsaved--
      else ctm = saved.pop() ?? ctm
    } else if (op === 'cm') {
      const values = operands.slice(-6)
      if (values.length === 6 && values.every((value) => typeof value === 'number'))
        ctm = multiply(values as number[], ctm)
    } else if (op === 'Do' || op === 'Tf' || op === 'cs' || op === 'CS') {
      const name = operands.find((value) => value !== null && typeof value === 'object') as { name: string } | undefined
      if (name && op === 'Do') handlers.drawXObject(name.name, resources, ctm)
      else if (name && op === 'Tf') handlers.font(name.name, resources)
      else if (name) handlers.colourSpace(name.name, resources)
    } else if (op === 'rg' || op === 'RG') handlers.colourSpace('DeviceRGB', resources)
    else if (op === 'k' || op === 'K') handlers.colourSpace('DeviceCMYK', resources)
    else if (op === 'g' || op === 'G') handlers.colourSpace('DeviceGray', resources)
    operands = []
  }
  while (i < bytes.length) {
    const byte = bytes[i] as number
    if (isWhite(byte)) {
      i++
    } else if (byte === 0x25) {
      while (i < bytes.length && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++
    } else if (byte === 0x28) {
      i = skipString(bytes, i)
      operands.push(null)
    } else if (byte === 0x3c && bytes[i + 1] === 0x3c) {
      i += 2
      operands.push(null)
    } else if (byte === 0x3e && bytes[i + 1] === 0x3e) {
      i += 2
    } else if (byte === 0x3c) {
      const end = bytes.indexOf(0x3e, i)
      i = end === -1 ? bytes.length : end + 1
      operands.push(null)
    } else if (byte === 0x2f) {
      const end = readRegular(bytes, i + 1)
      operands.push({ name: decodeName(text(bytes, i + 1, end)) })
      i = end
    } else if (isDelimiter(byte)) {
      i++
    } else {
      const end = readRegular(bytes, i + 1)
      const token = text(bytes, i, end)
      i = end
      const number = Number(token)
      if (token !== '' && Number.isFinite(number) && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(token)) {
        operands.push(number)
      } else if (token === 'BI') {
        inline = new Map()
        operands = []
      } else if (token === 'ID' && inline) {
        for (let k = 0; k + 1 < operands.length; k += 2) {
          const key = operands[k]
          const value = operands[k + 1]
          if (key && typeof key === 'object')
            inline.set(key.name, value && typeof value === 'object' ? value.name : (value ?? 0))
        }
        handlers.inlineImage(inline, resources, ctm)
        i = skipInlineData(bytes, i + 1)
        inline = null
        operands = []
      } else if (token === 'true' || token === 'false' || token === 'null') {
        operands.push(null)
      } else {
        operator(token)
      }
    }
    // Operands of a malformed stream that never meets an operator are dropped, so the list stays small.
    if (operands.length > 64) operands = operands.slice(-8)
  }
}
