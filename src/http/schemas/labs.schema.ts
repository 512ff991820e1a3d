// The lab API: shipments assigned to a lab and the progress it reports (docs/pipeline.md).
import { Type } from 'typebox'
import { ITEM_REJECTION_REASONS } from '../../domain/allocation/model.ts'
import { INCOTERMS } from '../../domain/customs.ts'
import { MAX_TRACKING_EVENTS_PER_SHIPMENT } from '../../domain/delivery-tracking.ts'
import {
  CALLBACK_LIST_DEFAULT_TOP,
  CALLBACK_LIST_MAX_TOP,
  MAX_LAB_JOBS_PER_DAY,
  TRACKING_REPORT_LIMITS,
} from '../../domain/limits.ts'
import { DELIVERY_STATUSES } from '../../domain/order.ts'
import { LAB_PRIORITIES } from '../../domain/shipping-methods.ts'
import { CallbackSchema } from './callbacks.schema.ts'
import {
  CaseInsensitiveEnum,
  NonBlankString,
  Nullable,
  NullableString,
  named,
  OkOutcome,
  Outcome,
  outcomeResponse,
  SingleLineString,
  StringEnum,
} from './common.schema.ts'

export const ShipmentParams = Type.Object({ shipmentId: Type.String({ maxLength: 40 }) })

/** Item ids of a shipment in a report: 1 to 100 (a shipment holds at most the order's items). */
const ReportItemIds = (description: string) =>
  Type.Array(SingleLineString({ maxLength: 40 }), { minItems: 1, maxItems: 100, description })

export const PrintedBody = Type.Object(
  {
    itemIds: Type.Optional(
      ReportItemIds(
        'The printed items (order item ids, ori_); absent: every item of the shipment not yet printed, shipped or ' +
          'given back. A printed item stays printed; a repeat is Ok.',
      ),
    ),
  },
  { additionalProperties: false },
)

/** GET /labs/v1/pushes: paged like GET /v4.0/callbacks. */
export const LabPushesQuery = Type.Object(
  {
    top: Type.Optional(
      Type.Integer({ minimum: 1, maximum: CALLBACK_LIST_MAX_TOP, default: CALLBACK_LIST_DEFAULT_TOP }),
    ),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
)

export const PushParams = Type.Object({ pushId: Type.String({ maxLength: 40 }) })

/**
 * A push to the lab: one delivery of one lab.job event, with every attempt (the callbacks' delivery shape, without
 * the merchant-only `webhookId`: a lab's push never goes to a merchant's webhook endpoint).
 */
const LabPushSchema = named('LabPush', Type.Omit(CallbackSchema, ['webhookId']))

export const LabPushesResponseSchema = outcomeResponse('LabPushesResponse', OkOutcome, {
  pushes: Type.Array(LabPushSchema),
  hasMore: Type.Boolean(),
})

export const LabPushResponseSchema = outcomeResponse(
  'LabPushResponse',
  Outcome('CreatedOutcome', ['Created'] as const),
  {
    push: LabPushSchema,
  },
)

export const ShippedBody = Type.Object(
  {
    itemIds: Type.Optional(
      ReportItemIds(
        'The items in this parcel (one report per parcel); absent: every item of the shipment not yet shipped. ' +
          'The shipment is Shipped once all its items are; after that, a report without itemIds must repeat a parcel ' +
          'already reported (400 ItemAlreadyShipped on the field that differs otherwise).',
      ),
    ),
    carrier: Type.Object(
      {
        name: NonBlankString({ maxLength: 100, singleLine: true }),
        service: NonBlankString({ maxLength: 100, singleLine: true }),
      },
      { additionalProperties: false },
    ),
    tracking: Type.Optional(
      Type.Union([
        Type.Object(
          {
            number: NonBlankString({ maxLength: 100, singleLine: true }),
            url: Type.Optional(
              Type.String({
                pattern: '^https?://\\S+$',
                maxLength: 2048,
                description:
                  "The carrier's tracking page. Optional: without it the merchant's order shows the number with an " +
                  'empty url.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    dispatchDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
)

export const RejectBody = Type.Object(
  {
    reason: NonBlankString({ maxLength: 500 }),
    unavailableItemIds: Type.Optional(Type.Array(SingleLineString({ maxLength: 40 }), { maxItems: 100 })),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            itemId: SingleLineString({ maxLength: 40 }),
            reason: StringEnum(
              ITEM_REJECTION_REASONS,
              'OutOfStock; FileDefect (the file cannot be printed as it is: say why in description); CannotProduce.',
            ),
            description: Type.Optional(NonBlankString({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 100,
          description:
            'Only these items leave the shipment and are allocated again, the lab excluded for them; the rest stay ' +
            'with the lab. Absent: the whole shipment is rejected. Items already shipped cannot be given back.',
        },
      ),
    ),
    note: Type.Optional(NullableString({ maxLength: 500 })),
  },
  { additionalProperties: false },
)

const TrackingReportEventSchema = Type.Object(
  {
    time: Type.String({
      format: 'date-time',
      maxLength: TRACKING_REPORT_LIMITS.maxTimeLength,
      description:
        'When the carrier recorded the scan: an ISO 8601 date-time with its offset (2026-03-03T08:12:00Z, ' +
        `+01:00). At most ${TRACKING_REPORT_LIMITS.clockSkewSeconds / 60} minutes after the service's clock ` +
        '(clock skew allowance); any time before is taken.',
    }),
    status: CaseInsensitiveEnum(DELIVERY_STATUSES, 'Where the parcel is.'),
    description: NonBlankString({
      maxLength: TRACKING_REPORT_LIMITS.maxDescriptionLength,
      singleLine: true,
      description:
        `The carrier's words for the scan ("Accepted by the carrier"), at most ` +
        `${TRACKING_REPORT_LIMITS.maxDescriptionLength} characters.`,
    }),
    location: Type.Optional(
      NullableString({
        maxLength: TRACKING_REPORT_LIMITS.maxLocationLength,
        singleLine: true,
        description:
          `Where the scan was made ("Leipzig hub"), at most ${TRACKING_REPORT_LIMITS.maxLocationLength} ` +
          'characters; null or absent when the carrier does not say.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const TrackingBody = Type.Object(
  {
    events: Type.Array(TrackingReportEventSchema, {
      minItems: 1,
      maxItems: TRACKING_REPORT_LIMITS.maxEvents,
      description:
        `The carrier's scans, 1 to ${TRACKING_REPORT_LIMITS.maxEvents}, in any order; a scan already reported ` +
        `(same time and status) is a repeat. A shipment keeps at most ${MAX_TRACKING_EVENTS_PER_SHIPMENT} scans.`,
    }),
  },
  { additionalProperties: false },
)

export const CapacityBody = Type.Object(
  {
    jobsToday: Type.Integer({
      minimum: 0,
      maximum: MAX_LAB_JOBS_PER_DAY,
      description:
        `How many more jobs (shipments) the lab can take today, 0 to ${MAX_LAB_JOBS_PER_DAY}, on top of those it ` +
        "was given today so far. Today is the lab's date in its calendar's time zone (UTC without a calendar); " +
        'the report applies to that date only. 0: no more today.',
    }),
  },
  { additionalProperties: false },
)

export const CancellationBody = Type.Object(
  {
    answer: CaseInsensitiveEnum(
      ['cancelled', 'tooLate'] as const,
      'cancelled: the lab will not make or ship the shipment; tooLate: it is made or shipped as planned.',
    ),
  },
  { additionalProperties: false },
)

// ---- Answers. They are sent as JSON.stringify text (routes/labs.routes.ts), not through these schemas, which
// describe them for the OpenAPI document and type the handlers.

const Sha256 = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description })

/** What a print file was made from (docs/print-files.md#reproducible-print-files). */
const PrintFileManifestSchema = named(
  'LabPrintFileManifest',
  Type.Object(
    {
      inputSha256: Sha256('Hex SHA-256 of the source image as kept.'),
      outputSha256: Sha256("Hex SHA-256 of the print file: the same as the file's sha256."),
      target: Type.Object({
        width: Type.Integer({ minimum: 1 }),
        height: Type.Integer({ minimum: 1 }),
        sizing: Type.String({ description: 'fillPrintArea, fitPrintArea or stretchToPrintArea.' }),
        format: Type.String({ description: 'jpeg, png or tiff.' }),
        dpi: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
          description: 'The resolution written into the file; null when none was.',
        }),
      }),
      plan: Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'The geometry applied to the source (docs/print-files.md#geometry): turn, resize, crop, margins.',
        },
      ),
      colour: Type.Object({
        space: Type.String({ description: 'srgb or cmyk.' }),
        profile: Type.Union([Type.String(), Type.Null()], {
          description: "The catalogue's profile name; null for sRGB.",
        }),
        profileFile: Type.Union([Type.String(), Type.Null()], {
          description: 'The profile file the conversion ran through (the intent baked in); null for sRGB.',
        }),
        profileSha256: Type.Union([Sha256('Hex SHA-256 of that file.'), Type.Null()]),
        intent: Type.String({ description: 'perceptual, relative, saturation or absolute.' }),
        blackPointCompensation: Type.Boolean(),
        convertedAt: Type.Optional(
          Type.String({
            description:
              "printFile: converted after the geometry, at the print file's size; source: before it, at the source " +
              "image's own size (an enlarged photo). Absent from older print files, which were converted at the " +
              "print file's size.",
          }),
        ),
      }),
      renderer: Type.Object(
        { sharp: Type.String(), libvips: Type.String() },
        { description: 'The versions that made the file: others may resample or encode differently.' },
      ),
    },
    {
      description:
        'What the print file was made from: the same input, target, plan, profile and renderer versions make the ' +
        'same bytes. Absent for PDFs and older print files.',
    },
  ),
)

const LabPrintFileSchema = named(
  'LabPrintFile',
  Type.Object({
    printArea: Type.String(),
    url: Type.String({ description: 'Signed, expiring link to the print file.' }),
    format: Type.String({ description: 'jpeg, png, tiff or pdf.' }),
    sha256: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: "Hex SHA-256 of the file's bytes, to check the download. Absent from older print files.",
      }),
    ),
    bytes: Type.Optional(
      Type.Integer({ minimum: 0, description: "The file's size in bytes. Absent from older print files." }),
    ),
    pixelSize: Type.Optional(
      Type.Object(
        { width: Type.Integer({ minimum: 1 }), height: Type.Integer({ minimum: 1 }) },
        { description: "The image's width and height in pixels: the print area's. Absent for PDFs and older files." },
      ),
    ),
    dpi: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'The resolution written into the file (JPEG density, TIFF XResolution/YResolution, PNG pHYs), pixels ' +
          'per inch: the file opens at its physical print size. Absent for PDFs and print files made before it ' +
          'was written.',
      }),
    ),
    colourSpace: Type.Optional(
      Type.String({
        description:
          'The colour space of the file as written, as libvips names it: srgb, cmyk, b-w. cmyk for a PDF ' +
          "converted to the lab's CMYK colour (docs/print-files.md#pdfs-and-colour); absent for PDFs passed " +
          'through as received and for older print files.',
      }),
    ),
    sourceDpi: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "The source image's effective resolution at the print size, rounded down: source pixels per printed " +
          'inch. Absent for PDFs and older print files.',
      }),
    ),
    manifest: Type.Optional(PrintFileManifestSchema),
  }),
)

/** An amount of the customs declaration (inline: the lab API document names no merchant schemas). */
const DeclaredMoney = (description: string) =>
  Type.Object({ amount: Type.String(), currency: Type.String() }, { description })

const LabJobSchema = named(
  'LabJob',
  Type.Object({
    shipmentId: Type.String(),
    orderId: Type.String(),
    state: named(
      'LabJobState',
      StringEnum(
        ['submitted', 'acknowledged', 'inProduction', 'shipped', 'rejected', 'cancelled'] as const,
        'GET /jobs lists open jobs only (submitted, acknowledged, inProduction); GET /jobs/{shipmentId} reads a job ' +
          'in any state, also shipped, rejected (the whole shipment given back) or cancelled.',
      ),
    ),
    shippingMethod: Type.String(),
    carrier: Type.Object(
      { name: Type.String(), service: Type.String() },
      {
        description:
          "The carrier and service of the lab's rate the shipment was priced with; once a parcel has shipped, the " +
          "shipment's own (its first parcel's while items remain, then its last parcel's).",
      },
    ),
    recipient: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The recipient as submitted to the lab (name, email, phoneNumber, address).',
    }),
    items: Type.Array(
      Type.Object({
        itemId: Type.String(),
        state: named(
          'LabJobItemState',
          StringEnum(
            ['open', 'printed', 'shipped', 'rejected'] as const,
            'Where the item is: open, printed, shipped (in a parcel), or rejected (given back: no longer to be made).',
          ),
        ),
        sku: Type.String(),
        copies: Type.Integer(),
        attributes: Type.Record(Type.String(), Type.String()),
        printFiles: Type.Array(LabPrintFileSchema),
        description: Type.Optional(
          Type.String({
            description:
              "The catalogue product's description (the SKU when the catalogue no longer has it). Absent from jobs " +
              'pushed before it was added.',
          }),
        ),
      }),
    ),
    packingSlip: Nullable(Type.Object({ url: Type.String() })),
    branding: Nullable(Type.Record(Type.String(), Type.Object({ url: Type.String() }))),
    shipBy: Type.Optional(
      Type.String({
        format: 'date',
        description:
          "The latest date (YYYY-MM-DD, the lab's own calendar) to dispatch the shipment and keep its delivery " +
          "promise; without a promise, the lab's dispatch date for its production days counted from submission; " +
          'absent when neither is known.',
      }),
    ),
    priority: named(
      'LabJobPriority',
      StringEnum(
        LAB_PRIORITIES,
        'From the shipping method: Budget and Standard normal, StandardPlus high, Express and Overnight urgent.',
      ),
    ),
    packingSlipPdf: Nullable(
      Type.Object({
        url: Type.String({
          description:
            "Signed, expiring link to printroute's packing slip of the shipment (A4 PDF with a QR code of the " +
            "shipment id); null for a shipment submitted without one. `packingSlip` is the merchant's own.",
        }),
      }),
    ),
    cancellationRequested: Type.Optional(
      Type.Object(
        { at: Type.String({ format: 'date-time', description: 'When printroute asked.' }) },
        {
          description:
            'printroute asks the lab to cancel the shipment (the merchant cancelled): answer with POST ' +
            '/jobs/{shipmentId}/cancellation. Absent unless a request is open.',
        },
      ),
    ),
    customs: Type.Optional(
      Type.Object(
        {
          originCountryCode: Type.String({ description: "The lab's country: where the parcel leaves from." }),
          destinationCountryCode: Type.String({ description: "The recipient's country." }),
          incoterm: StringEnum(
            INCOTERMS,
            'DDP: printroute charged the merchant the duties and taxes (the recipient pays nothing at the door); DAP: ' +
              'the recipient pays what is due.',
          ),
          iossNumber: Type.Optional(Type.String({ description: "The merchant's IOSS number, when it gave one." })),
          eoriNumber: Type.Optional(Type.String({ description: "The merchant's EORI number, when it gave one." })),
          recipientTaxId: Type.Optional(Type.String({ description: "The recipient's tax id, when given." })),
          items: Type.Array(
            Type.Object({
              itemId: Type.String(),
              description: Type.String({ description: "The catalogue product's description." }),
              copies: Type.Integer({ description: 'The quantity declared.' }),
              declaredValue: Nullable(
                Type.Object(
                  { amount: Type.String(), currency: Type.String() },
                  { description: "The merchant's `recipientCost` of the item; null when none was given." },
                ),
              ),
              hsCode: NullableString({
                description: "The catalogue's HS code of the product; null where it gives none (classify it yourself).",
              }),
              originCountryCode: Type.String({
                description: "Country of origin: the catalogue's, else the lab's country (where it is made).",
              }),
              unitValue: DeclaredMoney('One copy: the `recipientCost` when given, else the price of one copy.'),
              totalValue: DeclaredMoney('`unitValue` x `copies`.'),
              valueSource: StringEnum(
                ['recipientCost', 'itemPrice'] as const,
                "`recipientCost`: the merchant's declared value; `itemPrice`: none was given, the item's price is declared.",
              ),
              weightGrams: Nullable(
                Type.Integer({ description: "One copy's shipping weight; null where the catalogue gives none." }),
              ),
            }),
          ),
          totalValue: DeclaredMoney("The shipment's goods value, converted to the order's billing currency."),
          totalWeightGrams: Nullable(
            Type.Integer({ description: 'Total weight of the goods; null when an item has no weight.' }),
          ),
          commercialInvoice: Type.Object(
            { url: Type.String() },
            {
              description:
                'A signed link to the commercial invoice printroute made for the shipment (PDF, to go with the ' +
                'parcel): sender, recipient, every item as declared, totals, incoterm and customs numbers.',
            },
          ),
        },
        {
          description:
            'For a shipment that crosses a border (the lab is in another country than the recipient): its customs ' +
            'declaration and commercial invoice. Absent for a domestic shipment.',
        },
      ),
    ),
    parcels: Type.Optional(
      Type.Array(
        Type.Object({
          items: Type.Array(Type.Object({ itemId: Type.String() })),
          carrier: Type.Object({ name: Type.String(), service: Type.String() }),
          tracking: Nullable(Type.Object({ number: Type.String(), url: Type.String() })),
          dispatchDate: Type.String({ format: 'date-time' }),
        }),
        {
          description:
            'The parcels reported shipped, in the order reported (their items, carrier, tracking); empty until the ' +
            'first. Absent from jobs pushed before it was added.',
        },
      ),
    ),
  }),
)

export const LabJobResponseSchema = outcomeResponse('LabJobResponse', OkOutcome, { job: LabJobSchema })

export const LabJobsResponseSchema = outcomeResponse('LabJobsResponse', OkOutcome, { jobs: Type.Array(LabJobSchema) })

export const LabReportResponseSchema = outcomeResponse(
  'LabReportResponse',
  Outcome('LabReportOutcome', ['Updated', 'Ok'] as const, 'Updated, or Ok when the report changed nothing.'),
  {},
)

const LabCapacitySchema = named(
  'LabCapacity',
  Type.Object({
    date: Type.String({ description: "The lab's date: in its calendar's time zone, UTC without a calendar." }),
    jobsToday: Nullable(
      Type.Integer({ description: 'The jobs the lab last said it can take today; null: no report for today.' }),
    ),
    dailyJobLimit: Nullable(Type.Integer({ description: "The catalogue's daily job limit; null: none." })),
    jobsGivenToday: Type.Integer({ description: 'Jobs (shipments) given to the lab today.' }),
    jobsRemainingToday: Nullable(
      Type.Integer({
        description:
          'How many more it may be given today: the lower of its report (counted from when it reported) and the ' +
          'daily limit, less those given; null when neither limits it.',
      }),
    ),
    paused: Type.Boolean({ description: 'The operator paused the lab: no new work goes to it until resumed.' }),
  }),
)

export const LabCapacityResponseSchema = outcomeResponse(
  'LabCapacityResponse',
  Outcome('LabCapacityOutcome', ['Updated', 'Ok'] as const, 'Updated after a report; Ok when read.'),
  { capacity: LabCapacitySchema },
)

/** A lab payables statement's number, with `.pdf` or `.csv` for the file (docs/labs.md#statements). */
export const StatementParams = Type.Object({ number: Type.String({ maxLength: 80 }) })

const LabStatementTotalSchema = named(
  'LabStatementTotal',
  Type.Object({
    currency: Type.String({ description: "The lab's currency (ISO 4217)." }),
    production: Type.String({ description: 'Decimal amount: production of every copy of the jobs owed.' }),
    shipping: Type.String({ description: 'Decimal amount: their shipping.' }),
    total: Type.String({ description: 'Decimal amount: what the operator owes the lab in this currency.' }),
    jobs: Type.Integer({ minimum: 0 }),
  }),
)

const LabStatementLineSchema = named(
  'LabStatementLine',
  Type.Object({
    shipmentId: Type.String(),
    orderId: Type.String(),
    kind: StringEnum(['Original', 'Moved', 'Reprint'] as const),
    handedAt: Type.String({ format: 'date-time', description: 'When the job was handed to the lab.' }),
    outcome: StringEnum(['Shipped', 'Cancelled', 'Rejected'] as const),
    outcomeAt: Type.String({ format: 'date-time', description: 'When it shipped, or was cancelled or rejected.' }),
    currency: Type.String(),
    production: Type.String(),
    shipping: Type.String(),
    total: Type.String(),
  }),
)

const LabStatementSummarySchema = named(
  'LabStatementSummary',
  Type.Object({
    number: Type.String({ description: 'SB-<LAB>-000001: numbered without gaps per lab.' }),
    month: Type.String({ description: 'YYYY-MM (UTC): the month whose shipped work it settles.' }),
    issuedAt: Type.String({ format: 'date-time' }),
    jobs: Type.Integer({ minimum: 0, description: 'Jobs listed: owed, and cancelled or rejected (not owed).' }),
    totals: Type.Array(LabStatementTotalSchema),
  }),
)

export const LabStatementsResponseSchema = outcomeResponse('LabStatementsResponse', OkOutcome, {
  statements: Type.Array(LabStatementSummarySchema),
})

export const LabStatementResponseSchema = outcomeResponse('LabStatementResponse', OkOutcome, {
  statement: named(
    'LabStatement',
    Type.Object({
      number: Type.String(),
      labCode: Type.String(),
      month: Type.String(),
      issuedAt: Type.String({ format: 'date-time' }),
      seller: Type.Object({ name: Type.String(), labCode: Type.String(), countryCode: Type.String() }),
      buyer: Type.Object({
        name: Type.String(),
        address: Type.Array(Type.String()),
        taxNumber: Nullable(Type.String()),
        email: Nullable(Type.String()),
      }),
      owed: Type.Array(LabStatementLineSchema),
      notOwed: Type.Array(LabStatementLineSchema),
      totals: Type.Array(LabStatementTotalSchema),
    }),
  ),
})
