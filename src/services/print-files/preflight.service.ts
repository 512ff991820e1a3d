// Preflight as a service (docs/api.md#preflight): a file checked against a product before it is ordered, and the
// same check of every order asset after its download (services/pipeline/download-file.ts calls `checkFile`, then
// `applyFixes` for a PDF, so the copy printroute keeps and passes to the lab has the safe box fixes).
// The engine is two parts: the inspector measures a stored file in a bounded child process
// (adapters/file-inspector.ts, given by app/ as a FileInspector), the pure checks judge the measures against the
// product's specification in the catalogue (domain/preflight-checks.ts). A stand-alone preflight is downloaded in its POST by the pipeline's
// fetcher (same address rules and size limit, so a refused URL is a 400 on `url`), kept in the blob store under
// `preflights/<id>`, and inspected by the run-preflight job; the row and its report live PREFLIGHT_LIFETIME_SECONDS,
// then the expire-preflights job deletes them.
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { JobEnqueuer } from '../../adapters/job-queue.ts'
import type { AccountScope } from '../../domain/account-scope.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import type { Variant } from '../../domain/catalogue.types.ts'
import { catalogueValidationFailed, matchPreviewItem } from '../../domain/catalogue-matching.ts'
import { addFailure, type Failures, hasFailures } from '../../domain/failures.ts'
import { formatId, parseRequestId } from '../../domain/ids.ts'
import { jobRequest } from '../../domain/jobs.ts'
import type { Item } from '../../domain/order.ts'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import type { PipelineOrder, PipelinePreflight } from '../../domain/pipeline/pipeline-order.ts'
import {
  type FileInspection,
  type FileInspector,
  type MakingLabColour,
  type PreflightCheck,
  type PreflightFix,
  type PreflightReport,
  type PreflightStatus,
  type PreflightTarget,
  preflightStatusOf,
} from '../../domain/preflight.ts'
import { appliedPdfBoxFixes, isPdfBoxFix, preflightReport } from '../../domain/preflight-checks.ts'
import {
  type PreflightThumbnail,
  THUMBNAIL_MAX_SIDE,
  type ThumbnailGuideSpec,
  thumbnailPages,
} from '../../domain/preflight-thumbnails.ts'
import { type PixelBox, type PrintLayout, planPrintLayout, printAreaRequestOf } from '../../domain/print-geometry.ts'
import {
  claimPreflight,
  deleteExpiredPreflights,
  findPreflightForCaller,
  finishPreflight,
  insertPreflight,
  nextPreflightNumber,
  readPreflight,
  type StoredPreflight,
} from '../../repositories/preflights.repository.ts'
import type { Caller } from '../accounts.service.ts'
import { type ServiceLogger, silentLogger } from '../observability.ts'
import { findCallersOrder } from '../orders.service.ts'
import { refuseUnknownSampleUrl, type UnknownSampleUrlCheck } from '../own-samples.ts'
import type {
  AssetFetcher,
  FileStore,
  PdfBoxFixer,
  PdfThumbnailRenderer,
  PreflightSubject,
  ScratchFileProvider,
} from '../pipeline/ports.ts'

/** A preflight's report and the request are kept 7 days (docs/api.md#preflight), then deleted. */
export const PREFLIGHT_LIFETIME_SECONDS = 7 * 24 * 60 * 60

/** A finished check: the status its checks make and the report (as the pipeline keeps it for an asset). */
export type PreflightResult = PipelinePreflight

/** POST /v4.0/files/preflight's body. */
export interface PreflightInput {
  url: string
  sku: string
  printArea?: string | null
  pageCount?: number | null
  attributes?: Readonly<Record<string, string>> | null
}

/** A preflight as GET /v4.0/files/preflight/{id} shows it. */
export interface PreflightView {
  id: string
  status: PreflightStatus
  request: { url: string; sku: string; printArea: string; pageCount: number | null; attributes: Record<string, string> }
  /** The pages the file has; null until inspected, and for an image. */
  pageCount: number | null
  checks: PreflightCheck[]
  fixes: PreflightFix[]
  validSkus: string[]
  /** The PDF pages with a thumbnail (GET /v4.0/files/preflight/{id}/pages/{page}.png); empty for an image. */
  thumbnails: PreflightThumbnail[]
  createdAt: string
  /** When the report was made; null while Pending or Running. */
  completedAt: string | null
  expiresAt: string
}

/**
 * Where the print area's lines fall on its print file, in print-file pixels (the preview is the same picture
 * reduced): the whole file is the bleed, `trim` is where it is cut, `face` the front (inside a canvas's wrap band;
 * the trim for flat products), `safe` where nothing important should be cut.
 */
export interface PrintAreaGuides {
  width: number
  height: number
  trim: PixelBox
  face: PixelBox
  safe: PixelBox
}

/**
 * An order asset's preflight (GET /v4.0/orders/{id}/preflight): Pending until downloaded, then its report's
 * status; NotChecked when it was downloaded without a report (the engine failed to run, or the order is older
 * than preflight), so the file went on unchecked.
 */
export interface OrderAssetPreflight {
  itemId: string
  assetId: string
  printArea: string
  status: 'Pending' | 'Passed' | 'PassedWithWarnings' | 'Failed' | 'NotChecked'
  pageCount: number | null
  checks: PreflightCheck[]
  fixes: PreflightFix[]
  /** The print area's lines on its print file; null when the catalogue gives the area no spec. */
  guides: PrintAreaGuides | null
  /** A PDF's pages with a thumbnail (GET /v4.0/orders/{id}/assets/{assetId}/pages/{page}.png). */
  thumbnails: PreflightThumbnail[]
}

export interface PreflightDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  jobs: JobEnqueuer
  fetcher: AssetFetcher
  files: Pick<FileStore, 'put' | 'get' | 'delete' | 'listOlderThan'>
  withScratchFile: ScratchFileProvider
  /** Writes a stored file's bytes to a scratch path for the inspector (adapters/scratch-files.ts). */
  writeScratchFile: (path: string, data: Buffer) => Promise<void>
  /** Measures a stored file in a bounded child process (adapters/file-inspector.ts). */
  inspector: FileInspector
  /** The safe box fix on printroute's copy of an order's PDF (adapters/file-inspector.ts); none applied when absent. */
  fixPdfBoxes?: PdfBoxFixer
  /** A PDF's page thumbnails with the overlay (adapters/file-inspector.ts); none made when absent. */
  renderThumbnails?: PdfThumbnailRenderer
  log?: ServiceLogger
  /** Recognises URLs under printroute's own /samples/ naming no sample; none recognised when absent. */
  unknownSampleUrl?: UnknownSampleUrlCheck
  /** A CMYK lab's book PDFs are converted to its colour (`--ghostscript`): RgbInCmykJob says so. */
  convertsPdfColour?: boolean
}

/** Preflights of files on their own, the check of order assets, and the expiry of old preflights. */
export interface PreflightService {
  /**
   * Checks the request against the catalogue, downloads the file and answers the new preflight, Pending; the
   * run-preflight job inspects it. ValidationFailed naming the field for an unknown SKU, a print area the product
   * does not have, a page count outside its limits or a URL that cannot be downloaded.
   */
  createPreflight(scope: AccountScope, input: PreflightInput): Promise<PreflightView>
  /**
   * The scope's preflight; EntityNotFound for another account's, another environment's or an expired one,
   * ValidationFailed (InvalidFormat on preflightId) for an id that is no `pfl_<n>`.
   */
  getPreflight(scope: AccountScope, id: string): Promise<PreflightView>
  /** The run-preflight job: inspects the file, stores the report, deletes the file. A second run redoes it. */
  runPreflight(preflightId: number): Promise<void>
  /**
   * Checks a file already on disk (an order asset just downloaded); null when the engine failed (logged). A PDF's
   * page thumbnails are kept under `thumbnailKeyPrefix` + `<page>.png` when it is given.
   */
  checkFile(
    path: string,
    contentType: string,
    subject: PreflightSubject,
    thumbnailKeyPrefix?: string,
  ): Promise<PreflightResult | null>
  /** Judges measures made up rather than read (a Sandbox scenario); null when the checks failed to run (logged). */
  judge(inspection: FileInspection, subject: PreflightSubject): PreflightResult | null
  /**
   * Applies an order asset's safe box fixes to printroute's copy (written to `outputPath`); the result says what
   * was done. A failure writes nothing and is logged.
   */
  applyFixes(
    path: string,
    outputPath: string,
    subject: PreflightSubject,
    result: PreflightResult,
  ): Promise<{ preflight: PreflightResult; written: boolean }>
  /** Deletes preflights past their lifetime and any file they held; returns how many. */
  expirePreflights(): Promise<number>
  /** Every asset of the caller's order with its preflight, in item and asset order; EntityNotFound otherwise. */
  orderPreflight(caller: Caller, orderId: string): Promise<OrderAssetPreflight[]>
  /** A page thumbnail of the scope's preflight, PNG; EntityNotFound as getPreflight, or for a page without one. */
  preflightThumbnail(scope: AccountScope, id: string, page: number): Promise<Buffer>
  /** A page thumbnail of an asset of the caller's order, PNG; EntityNotFound for another's or a page without one. */
  assetThumbnail(caller: Caller, orderId: string, assetId: string, page: number): Promise<Buffer>
}

type Deps = PreflightDeps & { log: ServiceLogger }

/** The catalogue's answer to the request: the subject, or ValidationFailed naming each field that does not match. */
function subjectOf(catalogue: Catalogue, input: PreflightInput, failures: Failures): PreflightSubject | null {
  const matched = matchPreviewItem(catalogue, {
    sku: input.sku,
    attributes: input.attributes ?? {},
    assets: [{ printArea: input.printArea ?? null, pageCount: input.pageCount ?? null }],
  })
  // The item matcher names an asset's fields `assets[0].printArea`; here they are the body's own.
  for (const [path, list] of Object.entries(matched.failures)) {
    for (const failure of list) addFailure(failures, path.replace(/^assets\[0\]\./, ''), failure)
  }
  const asset = matched.item?.assets[0]
  if (!matched.item || !asset) return null
  return {
    sku: matched.item.sku,
    printArea: asset.printArea,
    pageCount: asset.pageCount,
    attributes: matched.item.attributes,
  }
}

function viewOf(row: StoredPreflight): PreflightView {
  const request = JSON.parse(row.request) as PreflightView['request']
  const report = row.report === null ? null : (JSON.parse(row.report) as PreflightReport)
  const done = row.status !== 'Pending' && row.status !== 'Running'
  return {
    id: formatId('pfl', row.id),
    status: row.status,
    request,
    pageCount: report?.pageCount ?? null,
    checks: [...(report?.checks ?? [])],
    fixes: [...(report?.fixes ?? [])],
    validSkus: [...(report?.validSkus ?? [])],
    thumbnails: [...(report?.thumbnails ?? [])],
    createdAt: row.createdAt.toISOString(),
    completedAt: done ? row.updatedAt.toISOString() : null,
    expiresAt: row.expiresAt.toISOString(),
  }
}

/** A failure of the engine itself, logged: the inspector reports a bad file as measures, never as an error. */
function engineFailed(deps: Deps, error: unknown, subject: PreflightSubject): null {
  // printroute's own fault must not hold an order that would print: the file goes on unchecked.
  deps.log.error({ err: error, sku: subject.sku }, 'preflight failed to run')
  return null
}

/**
 * What the checks hold a file to: the variant's print area specification, the book's (for its page-count print
 * area), its pixel size. No lab is chosen yet, so no lab colour: the colour checks look at every lab able to make
 * the variant (every variant's, when the attributes name none), so RgbInCmykJob warns when one of them prints CMYK.
 */
export function preflightTargetOf(
  catalogue: Catalogue,
  subject: PreflightSubject,
  convertsPdfColour = false,
): PreflightTarget {
  const product = catalogue.findProduct(subject.sku)
  const variant = catalogue.findVariant(subject.sku, subject.attributes)
  const pixelSize = variant?.printAreaSizes[subject.printArea] ??
    product?.printAreas[subject.printArea]?.size ?? { horizontalResolution: 0, verticalResolution: 0 }
  const isInterior = product?.pagePricing?.pageCountPrintArea === subject.printArea
  return {
    sku: subject.sku,
    printArea: subject.printArea,
    ...(subject.pageCount === null ? {} : { pageCount: subject.pageCount }),
    spec: variant?.printAreaSpecs[subject.printArea] ?? null,
    book: isInterior ? (product?.book ?? null) : null,
    colour: null,
    makingLabs: makingLabsOf(product?.variants ?? [], variant),
    ...(convertsPdfColour ? { convertsPdfColour } : {}),
    pixelSize,
  }
}

/** The labs making the variant (else any of the product's variants) with their colours, one entry per lab. */
function makingLabsOf(variants: readonly Variant[], variant: Variant | undefined): MakingLabColour[] {
  const labs = new Map<string, MakingLabColour>()
  for (const each of variant ? [variant] : variants) {
    for (const offer of each.offers) {
      // A lab's colour is per lab product, so every variant's offer from one lab has the same; the CMYK one wins.
      const known = labs.get(offer.lab.code)
      if (!known || (known.colour.space !== 'cmyk' && offer.colour.space === 'cmyk')) {
        labs.set(offer.lab.code, { lab: offer.lab.code, colour: offer.colour })
      }
    }
  }
  return [...labs.values()].sort((a, b) => (a.lab < b.lab ? -1 : a.lab > b.lab ? 1 : 0))
}

function judge(deps: Deps, inspection: FileInspection, subject: PreflightSubject): PreflightResult | null {
  try {
    const report = preflightReport(
      inspection,
      preflightTargetOf(deps.catalogue, subject, deps.convertsPdfColour === true),
      deps.catalogue.products,
    )
    return { status: preflightStatusOf(report.checks), report }
  } catch (error) {
    return engineFailed(deps, error, subject)
  }
}

async function checkFile(
  deps: Deps,
  path: string,
  contentType: string,
  subject: PreflightSubject,
  thumbnailKeyPrefix?: string,
): Promise<PreflightResult | null> {
  let inspection: FileInspection
  try {
    inspection = await deps.inspector.inspect(path, contentType)
  } catch (error) {
    return engineFailed(deps, error, subject)
  }
  const result = judge(deps, inspection, subject)
  if (!result || thumbnailKeyPrefix === undefined) return result
  const thumbnails = await keepThumbnails(deps, path, inspection, subject, result, thumbnailKeyPrefix)
  return thumbnails.length === 0 ? result : { ...result, report: { ...result.report, thumbnails } }
}

/** The lines a page is held to: the book's interior, else the print area's spec; null without either. */
function guideSpecOf(target: PreflightTarget): ThumbnailGuideSpec | null {
  const source = target.book ?? target.spec
  return source ? { trimMm: source.trimMm, bleedMm: source.bleedMm, safeMm: source.safeMm } : null
}

/**
 * Renders and keeps a PDF's page thumbnails (docs/print-files.md#page-thumbnails): the first pages and those an
 * error names. They are an aid, not the check: a renderer that fails or overruns its limits leaves the report
 * without them (logged), and the file goes on as its checks say.
 */
async function keepThumbnails(
  deps: Deps,
  path: string,
  inspection: FileInspection,
  subject: PreflightSubject,
  result: PreflightResult,
  keyPrefix: string,
): Promise<PreflightThumbnail[]> {
  if (!deps.renderThumbnails || inspection.kind !== 'pdf' || inspection.encrypted) return []
  const pages = thumbnailPages(inspection.pageCount, result.report.checks).map((page) => {
    const measured = inspection.pages[page - 1]
    return { page, trimBox: measured?.trimBox ?? null, bleedBox: measured?.bleedBox ?? null }
  })
  if (pages.length === 0) return []
  try {
    const spec = guideSpecOf(preflightTargetOf(deps.catalogue, subject))
    const rendered = await deps.renderThumbnails(path, { pages, spec, maxSide: THUMBNAIL_MAX_SIDE })
    if ('failed' in rendered) {
      deps.log.warn({ sku: subject.sku, reason: rendered.failed }, 'preflight page thumbnails were not made')
      return []
    }
    const kept: PreflightThumbnail[] = []
    for (const thumbnail of rendered.thumbnails) {
      await deps.files.put(`${keyPrefix}${thumbnail.page}.png`, Buffer.from(thumbnail.png), 'image/png')
      kept.push({ page: thumbnail.page, width: thumbnail.width, height: thumbnail.height })
    }
    return kept
  } catch (error) {
    deps.log.warn({ err: error, sku: subject.sku }, 'preflight page thumbnails were not made')
    return []
  }
}

/** Where a stand-alone preflight's page thumbnails are kept: beside its file, under the same prefix. */
function preflightThumbnailPrefix(preflightId: number): string {
  return `preflights/${preflightId}.page-`
}

/**
 * Where an order asset's page thumbnails are kept: beside the kept file, so the retention deletes them with it
 * (the download step, services/pipeline/download-file.ts, writes them under the same prefix).
 */
function assetThumbnailPrefix(assetBlobKey: string): string {
  return `${assetBlobKey}.page-`
}

function thumbnailNotFound(what: string, page: number): ServiceError {
  return new ServiceError('EntityNotFound', `${what} has no thumbnail of page ${page}`)
}

async function storedThumbnail(deps: Deps, key: string, what: string, page: number): Promise<Buffer> {
  try {
    return await deps.files.get(key)
  } catch {
    throw thumbnailNotFound(what, page) // deleted with its file by the retention
  }
}

async function preflightThumbnail(deps: Deps, scope: AccountScope, id: string, page: number): Promise<Buffer> {
  const view = await getPreflight(deps, scope, id)
  if (!view.thumbnails.some((thumbnail) => thumbnail.page === page)) throw thumbnailNotFound(`Preflight ${id}`, page)
  const key = `${preflightThumbnailPrefix(parseRequestId('pfl', id, 'preflightId'))}${page}.png`
  return storedThumbnail(deps, key, `Preflight ${id}`, page)
}

async function assetThumbnail(
  deps: Deps,
  caller: Caller,
  orderId: string,
  assetId: string,
  page: number,
): Promise<Buffer> {
  const order = await findCallersOrder(deps.db, caller, orderId)
  const isAsset = order.document.items.some((item) => item.assets.some((asset) => asset.id === assetId))
  const file = isAsset ? order.pipeline.files[assetId] : undefined
  const listed = file?.preflight?.report.thumbnails?.some((thumbnail) => thumbnail.page === page) ?? false
  if (!file?.stored || !listed) throw thumbnailNotFound(`Asset ${assetId}`, page)
  return storedThumbnail(deps, `${assetThumbnailPrefix(file.stored.blobKey)}${page}.png`, `Asset ${assetId}`, page)
}

/** The report with its box fixes said as done on `pagesChanged` pages, or dropped (null: not done). */
function withBoxFixes(result: PreflightResult, pagesChanged: number | null): PreflightResult {
  return { ...result, report: { ...result.report, fixes: appliedPdfBoxFixes(result.report.fixes, pagesChanged) } }
}

async function applyFixes(
  deps: Deps,
  path: string,
  outputPath: string,
  subject: PreflightSubject,
  result: PreflightResult,
): Promise<{ preflight: PreflightResult; written: boolean }> {
  if (!result.report.fixes.some(isPdfBoxFix)) return { preflight: result, written: false }
  const book = preflightTargetOf(deps.catalogue, subject).book
  let outcome: Awaited<ReturnType<PdfBoxFixer>>
  if (!book || !deps.fixPdfBoxes) outcome = { failed: 'no box fix for this product' }
  else {
    try {
      outcome = await deps.fixPdfBoxes(path, outputPath, book)
    } catch (error) {
      outcome = { failed: error instanceof Error ? error.message : String(error) }
    }
  }
  if ('pagesChanged' in outcome && outcome.pagesChanged > 0) {
    return { preflight: withBoxFixes(result, outcome.pagesChanged), written: true }
  }
  // A failed fix costs only the boxes: the file goes to the lab as the merchant sent it, as before preflight, so
  // it holds nothing; the report's `fixes` lists what printroute did, so it no longer names them.
  const reason = 'failed' in outcome ? outcome.failed : 'no page was changed'
  deps.log.warn({ sku: subject.sku, reason }, 'the preflight box fix was not applied; the file goes on as it came')
  return { preflight: withBoxFixes(result, null), written: false }
}

/** Downloads the file into a scratch path and keeps it under `blobKey`; a failure is ValidationFailed on `url`. */
async function downloadInto(deps: Deps, url: string, blobKey: string): Promise<{ contentType: string; bytes: number }> {
  return deps.withScratchFile(async (path) => {
    try {
      const downloaded = await deps.fetcher.download(url, path, {})
      await deps.files.put(blobKey, path, downloaded.contentType)
      return { contentType: downloaded.contentType, bytes: downloaded.bytes }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      throw validationFailed(
        {
          url: [
            {
              code: 'NotDownloaded',
              providedValue: url,
              comparisonValue: `${url} could not be downloaded: ${message}`,
            },
          ],
        },
        'The file could not be checked',
      )
    }
  })
}

async function createPreflight(deps: Deps, scope: AccountScope, input: PreflightInput): Promise<PreflightView> {
  const failures: Failures = {}
  const subject = subjectOf(deps.catalogue, input, failures)
  refuseUnknownSampleUrl(deps.unknownSampleUrl, failures, 'url', input.url)
  if (!subject || hasFailures(failures)) {
    throw catalogueValidationFailed(deps.catalogue, failures, 'The file could not be checked')
  }
  const id = await nextPreflightNumber(deps.db)
  const blobKey = `preflights/${id}`
  const file = await downloadInto(deps, input.url, blobKey)
  const now = deps.clock.now()
  const request: PreflightView['request'] = {
    url: input.url,
    sku: subject.sku,
    printArea: subject.printArea,
    pageCount: subject.pageCount,
    attributes: { ...subject.attributes },
  }
  const row = await deps.db.transaction(async (tx) => {
    const inserted = await insertPreflight(tx, scope, {
      id,
      request: JSON.stringify(request),
      contentType: file.contentType,
      bytes: file.bytes,
      blobKey,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PREFLIGHT_LIFETIME_SECONDS * 1000),
    })
    await deps.jobs.enqueue(tx, [jobRequest('run-preflight', { preflightId: id })])
    return inserted
  })
  return viewOf(row)
}

async function getPreflight(deps: Deps, scope: AccountScope, id: string): Promise<PreflightView> {
  const row = await findPreflightForCaller(deps.db, scope, parseRequestId('pfl', id, 'preflightId'))
  if (!row || row.expiresAt <= deps.clock.now()) {
    throw new ServiceError('EntityNotFound', `Preflight ${id} not found`)
  }
  return viewOf(row)
}

async function runPreflight(deps: Deps, preflightId: number): Promise<void> {
  const row = await readPreflight(deps.db, preflightId)
  if (!row?.blobKey || !(await claimPreflight(deps.db, preflightId, deps.clock.now()))) return
  const request = JSON.parse(row.request) as PreflightView['request']
  const data = await deps.files.get(row.blobKey)
  const result = await deps.withScratchFile(async (path) => {
    await deps.writeScratchFile(path, data)
    return checkFile(deps, path, row.contentType, request, preflightThumbnailPrefix(preflightId))
  })
  // The engine failing is printroute's fault, not the file's: left Running, the job's retry runs it again.
  if (!result) throw new Error(`preflight pfl_${preflightId} could not be run`)
  await finishPreflight(
    deps.db,
    preflightId,
    { status: result.status, report: JSON.stringify(result.report) },
    deps.clock.now(),
  )
  await deps.files.delete(row.blobKey).catch((error: unknown) => {
    deps.log.warn({ err: error, blobKey: row.blobKey }, 'deleting an inspected preflight file failed')
  })
}

async function expirePreflights(deps: Deps): Promise<number> {
  const now = deps.clock.now()
  const { deleted, blobKeys } = await deleteExpiredPreflights(deps.db, now)
  // Page thumbnails are written when the preflight runs, after it was made: one older than the lifetime belongs to
  // a preflight past its own (deleted above, or by an earlier run).
  const cutoff = new Date(now.getTime() - PREFLIGHT_LIFETIME_SECONDS * 1000)
  for await (const key of deps.files.listOlderThan('preflights/', cutoff)) {
    if (key.endsWith('.png')) blobKeys.push(key)
  }
  for (const key of blobKeys) {
    await deps.files.delete(key).catch((error: unknown) => {
      deps.log.warn({ err: error, blobKey: key }, 'deleting an expired preflight file failed')
    })
  }
  return deleted
}

/** The layout's lines as guides: the file is the bleed, the trim is inside it, the safe area inside the face. */
function guidesOf(layout: PrintLayout): PrintAreaGuides {
  const outer = layout.bleed
  const { face, safe } = layout
  return {
    width: layout.width,
    height: layout.height,
    trim: { left: outer, top: outer, width: layout.width - 2 * outer, height: layout.height - 2 * outer },
    face: { ...face },
    safe: {
      left: face.left + safe,
      top: face.top + safe,
      width: Math.max(0, face.width - 2 * safe),
      height: Math.max(0, face.height - 2 * safe),
    },
  }
}

/**
 * The guides of an asset's print area: the rendered print file's own layout when one was made (the catalogue may
 * have changed since), else the layout the catalogue gives the area now; null without a spec.
 */
function assetGuides(catalogue: Catalogue, order: PipelineOrder, item: Item, printArea: string, assetId: string) {
  for (const shipment of Object.values(order.pipeline.shipments)) {
    const layout = shipment.printFiles[assetId]?.geometry?.plan.layout
    if (layout) return guidesOf(layout)
  }
  const variant = catalogue.findVariant(item.sku, item.attributes)
  const area = variant ? printAreaRequestOf(variant, printArea, catalogue.colours) : null
  if (!area) return null
  try {
    return guidesOf(planPrintLayout(area))
  } catch {
    return null // a spec no file can be laid out from: the render says why
  }
}

async function orderPreflight(deps: Deps, caller: Caller, orderId: string): Promise<OrderAssetPreflight[]> {
  const order = await findCallersOrder(deps.db, caller, orderId)
  const views: OrderAssetPreflight[] = []
  for (const item of order.document.items) {
    for (const asset of item.assets) {
      const file = order.pipeline.files[asset.id]
      const checked = file?.preflight ?? null
      views.push({
        itemId: item.id,
        assetId: asset.id,
        printArea: asset.printArea,
        status: checked ? checked.status : file?.status === 'downloaded' ? 'NotChecked' : 'Pending',
        pageCount: checked?.report.pageCount ?? null,
        checks: [...(checked?.report.checks ?? [])],
        fixes: [...(checked?.report.fixes ?? [])],
        guides: assetGuides(deps.catalogue, order, item, asset.printArea, asset.id),
        thumbnails: [...(checked?.report.thumbnails ?? [])],
      })
    }
  }
  return views
}

export function createPreflightService(options: PreflightDeps): PreflightService {
  const deps: Deps = { ...options, log: options.log ?? silentLogger }
  return {
    createPreflight: (scope, input) => createPreflight(deps, scope, input),
    getPreflight: (scope, id) => getPreflight(deps, scope, id),
    runPreflight: (preflightId) => runPreflight(deps, preflightId),
    checkFile: (path, contentType, subject, thumbnailKeyPrefix) =>
      checkFile(deps, path, contentType, subject, thumbnailKeyPrefix),
    judge: (inspection, subject) => judge(deps, inspection, subject),
    applyFixes: (path, outputPath, subject, result) => applyFixes(deps, path, outputPath, subject, result),
    expirePreflights: () => expirePreflights(deps),
    orderPreflight: (caller, orderId) => orderPreflight(deps, caller, orderId),
    preflightThumbnail: (scope, id, page) => preflightThumbnail(deps, scope, id, page),
    assetThumbnail: (caller, orderId, assetId, page) => assetThumbnail(deps, caller, orderId, assetId, page),
  }
}
