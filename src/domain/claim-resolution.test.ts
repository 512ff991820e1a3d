// A reprint's routing as pure rules (domain/claim-resolution.ts planReprint): the lab at fault is left out, and so is
// every lab the order's own history already left out for the item (it rejected the item or ran out of stock).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { newOrder, now } from '../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import { planReprint } from './claim-resolution.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'

tier('pure')

const catalogue = loadCatalogue()

/** A fine-art poster shipped to Germany by `labCode`. */
function shippedPoster(labCode: string): PipelineOrder {
  const { order, pipeline } = newOrder(1)
  order.recipient.address.countryCode = 'DE'
  pipeline.phase = 'complete'
  pipeline.shipments.shp_1 = {
    labCode,
    state: 'shipped',
    printFiles: { ast_1: { blobKey: 'print/ast_1.jpg', width: 10, height: 10, format: 'jpeg' } },
    formats: { ast_1: 'jpeg' },
  } as unknown as PipelineOrder['pipeline']['shipments'][string]
  return {
    orderNumber: 1,
    accountId: 1,
    environment: 'live',
    onHoldUntil: null,
    sandboxScenario: null,
    document: order,
    pipeline,
  }
}

function reprintLab(order: PipelineOrder, excludedLab: string | null): string | null {
  const plan = planReprint(catalogue, order, {
    itemIds: ['ori_1'],
    reprintOf: 'shp_1',
    claimId: 'clm_1',
    excludedLab,
    unavailableLabs: {},
    now,
  })
  return plan.ok ? plan.reprint.allocated.labCode : null
}

describe('planning a reprint', () => {
  test('leaves out the lab at fault and every lab the order already left out for the item', () => {
    const makers = catalogue.labs.map((lab) => lab.code)
    const first = reprintLab(shippedPoster('nl1'), 'nl1')
    assert.ok(first, 'some lab other than nl1 reprints the poster')
    assert.notEqual(first, 'nl1')

    // The lab the reprint would have gone to had rejected the item before: the reprint goes elsewhere or nowhere.
    const order = shippedPoster('nl1')
    order.pipeline.excludedLabs = { ori_1: [first] }
    order.pipeline.exclusionReasons = { ori_1: { [first]: 'Rejected' } }
    const second = reprintLab(order, 'nl1')
    assert.notEqual(second, first)
    assert.notEqual(second, 'nl1')
    if (second) assert.ok(makers.includes(second))

    // Without a lab at fault, the history alone still applies.
    const noFault = shippedPoster('nl1')
    noFault.pipeline.excludedLabs = { ori_1: [first] }
    assert.notEqual(reprintLab(noFault, null), first)
  })

  test('the routing names why each lab was left out', () => {
    const first = reprintLab(shippedPoster('nl1'), 'nl1') as string
    const order = shippedPoster('nl1')
    order.pipeline.excludedLabs = { ori_1: [first] }
    order.pipeline.exclusionReasons = { ori_1: { [first]: 'Rejected' } }
    order.pipeline.billing = {
      currency: 'GBP',
      settlement: 'invoice',
      unpaid: '0',
      lines: {},
    } as unknown as NonNullable<PipelineOrder['pipeline']['billing']>
    const plan = planReprint(catalogue, order, {
      itemIds: ['ori_1'],
      reprintOf: 'shp_1',
      claimId: 'clm_1',
      excludedLab: 'nl1',
      unavailableLabs: {},
      now,
    })
    const text = JSON.stringify(plan.ok ? plan.reprint.routing : plan.refusal)
    if (plan.ok) {
      assert.match(text, /AtFaultForClaim/)
      assert.match(text, /Rejected/)
    } else {
      assert.match(text, /without lab nl1/)
    }
  })
})
