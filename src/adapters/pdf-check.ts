// Book pages arrive as one PDF per item. They are not rendered: the lab prints the file as it is, so the
// service only checks that the file is a PDF it can read and that its page count is the item's `pageCount`
// (the price depends on it), and then passes the bytes on unchanged. docs/print-files.md, "PDF checks".

import { readFile } from 'node:fs/promises'

export type InvalidPdfReason = 'unreadable' | 'encrypted' | 'noPages' | 'pageCountMismatch'

/** The PDF cannot be printed as ordered; retrying cannot help. */
export class InvalidPdfError extends Error {
  readonly code = 'InvalidPdf'
  readonly reason: InvalidPdfReason
  /** Pages found, when the file could be read. */
  readonly pageCount: number | null
  readonly expectedPageCount: number | null

  constructor(
    reason: InvalidPdfReason,
    message: string,
    details: { pageCount?: number | null; expectedPageCount?: number | null; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'InvalidPdfError'
    this.reason = reason
    this.pageCount = details.pageCount ?? null
    this.expectedPageCount = details.expectedPageCount ?? null
  }
}

/**
 * Reads the PDF (a buffer, or a file path) and returns its page count; throws InvalidPdfError when it is not
 * a readable, unencrypted PDF with at least one page, or when `expectedPageCount` is given and differs.
 * The input is never modified. A missing file throws the file system's own error (not the customer's fault).
 */
export async function checkPdf(
  input: Buffer | string,
  expectedPageCount: number | null,
): Promise<{ pageCount: number }> {
  if (expectedPageCount !== null && (!Number.isInteger(expectedPageCount) || expectedPageCount < 1)) {
    throw new RangeError(`expectedPageCount must be a positive integer or null, got ${expectedPageCount}`)
  }
  const bytes = typeof input === 'string' ? await readFile(input) : input
  // A PDF starts with "%PDF-" within its first 1024 bytes (ISO 32000-1, 7.5.2, and readers' leniency).
  if (bytes.subarray(0, 1024).indexOf('%PDF-') === -1) {
    throw new InvalidPdfError('unreadable', 'file is not a PDF (no %PDF- header)')
  }

  let pageCount: number
  try {
    // throwOnInvalidObject: a damaged object may be a page, so refuse the file rather than skip the object
    // (pdf-lib would skip it with a console warning). updateMetadata: false leaves pdf-lib's in-memory copy as
    // it is; the bytes passed on are the customer's either way.
    // pdf-lib is loaded by the first PDF: most processes never check one.
    const { PDFDocument } = await import('pdf-lib')
    const document = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: true })
    pageCount = document.getPageCount()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/encrypted/i.test(message)) {
      throw new InvalidPdfError('encrypted', 'PDF is encrypted; labs need an unprotected file', { cause: error })
    }
    throw new InvalidPdfError('unreadable', `PDF cannot be read: ${message}`, { cause: error })
  }

  if (pageCount === 0) throw new InvalidPdfError('noPages', 'PDF has no pages', { pageCount, expectedPageCount })
  if (expectedPageCount !== null && pageCount !== expectedPageCount) {
    throw new InvalidPdfError(
      'pageCountMismatch',
      `PDF has ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}, pageCount says ${expectedPageCount}`,
      { pageCount, expectedPageCount },
    )
  }
  return { pageCount }
}
