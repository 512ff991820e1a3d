// Routing explanations on the wire (docs/api.md#routing): GET /orders/{id}/routing and GET /quotes/{id}/routing.
// Keys in the order domain/routing.ts builds them.
import { Type } from 'typebox'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import { MoneySchema, Nullable, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'
import { DeliveryWindowSchema, IsoDate } from './order.schema.ts'

export const LAB_EXCLUSION_REASONS = [
  'DoesNotMakeProduct',
  'DoesNotShipThere',
  'Rejected',
  'OutOfStock',
  'FileDefect',
  'CannotProduce',
  'SandboxScenario',
  'NoDeliveryEstimate',
  'TooLate',
  'LabPaused',
  'AtCapacity',
  'QualityBelowThreshold',
  'AtFaultForClaim',
] as const
export const ROUTING_BASES = ['Allocation', 'Estimate', 'Quote'] as const

/** printroute's own estimate keys (docs/api.md#delivery-estimates): absent when the catalogue gives none. */
function estimateProperties(what: string) {
  return {
    estimatedDispatchDate: Type.Optional(IsoDate(`The dispatch date of ${what}; absent without an estimate.`)),
    estimatedDelivery: Type.Optional(DeliveryWindowSchema),
  }
}

const RoutingPlanSchema = named(
  'RoutingPlan',
  Type.Object({
    shipments: Type.Array(
      Type.Object({
        labCode: Type.String(),
        labCountryCode: Type.String(),
        itemIds: Type.Array(Type.String()),
        itemsCost: MoneySchema,
        shippingCost: MoneySchema,
        totalCost: MoneySchema,
        ...estimateProperties("the shipment's delivery estimate"),
      }),
    ),
    totalCost: MoneySchema,
  }),
)

const RoutingAllocationSchema = named(
  'RoutingAllocation',
  Type.Object({
    basis: named(
      'RoutingBasis',
      StringEnum(
        ROUTING_BASES,
        'Allocation: an allocation of the order; Estimate: the order is not allocated yet, this is what allocating ' +
          'it now would do; Quote: the allocation behind a quote.',
      ),
    ),
    at: Type.String({ format: 'date-time', description: 'When the allocation, estimate or quote was made.' }),
    shippingMethod: StringEnum(SHIPPING_METHODS),
    items: Type.Array(
      Type.Object({
        itemId: Type.String({ description: 'Order item (ori_) or quote item (qit_) id.' }),
        chosenLabCode: Nullable(Type.String()),
        labsConsidered: Type.Array(
          Type.Object({
            labCode: Type.String(),
            labCountryCode: Type.String(),
            productionCost: MoneySchema,
            shippingCost: MoneySchema,
            ...estimateProperties("the item's delivery estimate from this lab"),
          }),
        ),
        labsExcluded: Type.Array(
          Type.Object({
            labCode: Type.String(),
            reason: named(
              'LabExclusionReason',
              StringEnum(
                LAB_EXCLUSION_REASONS,
                'The first reason that rules the lab out: DoesNotMakeProduct; DoesNotShipThere (no rate to the ' +
                  'destination for the method); Rejected (the lab refused a shipment holding the item); ' +
                  'OutOfStock (the lab named the item unavailable, or the Sandbox scenario outOfStock); ' +
                  'FileDefect (the lab gave the item back for a defect in its file); CannotProduce (the lab gave ' +
                  'the item back: it cannot make it); ' +
                  'SandboxScenario (the Sandbox scenario splitShipments or partialShipment kept the lab from the ' +
                  'item to split the order); NoDeliveryEstimate (the round had a deliverBy date and the catalogue ' +
                  'gives no estimate for the item from this lab); TooLate (its estimate arrives after deliverBy); ' +
                  'LabPaused (the operator paused the lab: it takes no new work); AtCapacity (the lab has had ' +
                  'as many jobs today as its reported capacity or its daily limit allows); QualityBelowThreshold (the ' +
                  "lab's upheld claims per 1,000 items shipped are above the catalogue's threshold); " +
                  "AtFaultForClaim (a reprint's round: the claim's category blames this lab's work, so the reprint " +
                  'is made elsewhere). More reasons may be added.',
              ),
            ),
            ...estimateProperties('the item from this lab, on TooLate'),
          }),
        ),
      }),
    ),
    chosenPlan: Nullable(RoutingPlanSchema),
    bestUnsplitPlan: Nullable(RoutingPlanSchema),
    splitSaving: Nullable(MoneySchema),
    unavailableItemIds: Type.Array(Type.String()),
    deliverBy: Type.Optional(
      IsoDate("printroute's own, on a round with a delivery date: the date every shipment was to arrive by."),
    ),
    deliverByMet: Type.Optional(
      Type.Boolean({
        description:
          'With deliverBy: whether the chosen plan arrives by it; false when no plan could, and the cheapest plan ' +
          'without the date was chosen.',
      }),
    ),
    // When deliverByMet: chosenPlan.totalCost minus the cheapest plan's without the date (docs/api.md#routing).
    deliverByCost: Type.Optional(MoneySchema),
    earliestDeliveryDate: Type.Optional(
      Nullable(
        IsoDate(
          'When deliverByMet is false: the earliest date any plan reaches; null when some item has no lab with an ' +
            'estimate.',
        ),
      ),
    ),
    reroutedItems: Type.Optional(
      Type.Array(
        named(
          'ReroutedItem',
          Type.Object({
            itemId: Type.String(),
            fromShipmentId: Type.String({ description: 'The shipment the item left.' }),
            fromLabCode: Type.String({ description: 'The lab that gave the item back.' }),
            reason: named(
              'ReroutedItemReason',
              StringEnum(
                ['Rejected', 'OutOfStock', 'FileDefect', 'CannotProduce'] as const,
                'Rejected: the lab refused its whole shipment; OutOfStock, FileDefect, CannotProduce: the lab gave ' +
                  'the item back for that reason.',
              ),
            ),
            description: Type.Optional(
              Type.String({ description: "The lab's words: the rejection's reason, or what is wrong with the file." }),
            ),
          }),
        ),
        {
          description:
            "printroute's own, on a round after a lab gave items back (docs/allocation.md#re-routed-items): the " +
            'items this round allocated again, the shipment and lab they left, and why.',
        },
      ),
    ),
    claimId: Type.Optional(
      Type.String({
        description:
          "printroute's own, on a reprint's round (docs/claims.md#reprints): the claim (clm_) whose reprint this " +
          "round allocated; a lab the claim's category blames is excluded as AtFaultForClaim.",
      }),
    ),
    catalogueVersion: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "printroute's own (docs/catalogue.md#versions): the catalogue version this round was worked out with. A " +
          're-allocation after a lab gave items back uses the version active then, which may be newer than the ' +
          "first round's.",
      }),
    ),
  }),
)

export const RoutingResponseSchema = outcomeResponse('RoutingResponse', OkOutcome, {
  routing: named(
    'Routing',
    Type.Object({
      orderId: Nullable(Type.String()),
      quoteId: Nullable(Type.String()),
      destinationCountryCode: Type.String(),
      currency: Type.String({ description: 'The currency of every amount: the billing or quoted currency.' }),
      allocations: Type.Array(RoutingAllocationSchema, {
        description: 'Oldest first: the first allocation, then one per reallocation.',
      }),
      amounts: named(
        'RoutingAmounts',
        StringEnum(
          ['LabCosts', 'SellingPrices'] as const,
          "printroute's own (docs/api.md#routing): what every money figure is. SellingPrices: the account's price " +
            'list applies, so each figure is what the merchant pays (a lab considered but not chosen: what the list ' +
            "would have charged for it); LabCosts: no list applies, the figures are the labs' costs.",
        ),
      ),
      priceList: Type.Optional(
        Type.String({ description: "printroute's own, with SellingPrices: the price list the figures come from." }),
      ),
    }),
  ),
})

export const QuoteIdParamsSchema = Type.Object({
  quoteId: Type.String({ maxLength: 40, description: 'Quote ID, e.g. quo_12.' }),
})
