// Routing explanations on the wire (docs/api.md#routing): GET /orders/{id}/routing and GET /quotes/{id}/routing.
// Keys in the order domain/routing.ts builds them.
import { Type } from 'typebox'
import { SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import { MoneySchema, Nullable, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'

export const LAB_EXCLUSION_REASONS = [
  'DoesNotMakeProduct',
  'DoesNotShipThere',
  'Rejected',
  'OutOfStock',
  'SandboxScenario',
] as const
export const ROUTING_BASES = ['Allocation', 'Estimate', 'Quote'] as const

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
                  'SandboxScenario (the Sandbox scenario splitShipments or partialShipment kept the lab from the ' +
                  'item to split the order). More reasons may be added.',
              ),
            ),
          }),
        ),
      }),
    ),
    chosenPlan: Nullable(RoutingPlanSchema),
    bestUnsplitPlan: Nullable(RoutingPlanSchema),
    splitSaving: Nullable(MoneySchema),
    unavailableItemIds: Type.Array(Type.String()),
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
    }),
  ),
})

export const QuoteIdParamsSchema = Type.Object({
  quoteId: Type.String({ maxLength: 40, description: 'Quote ID, e.g. quo_12.' }),
})
