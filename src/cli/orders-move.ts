// `printroute orders move SHIPMENT_ID --lab CODE --reason TEXT`: the operator moves a shipment its lab has not
// started to another lab (docs/admin.md#moving-a-shipment-to-another-lab), through the operator service's one
// function (services/operator/orders.ts), which the console's order page calls too. Works while serve runs.
import type { Command } from 'commander'
import { dataCommand, note, print, printJson, requireText, runDataOperation } from './command-support.ts'

export function registerOrderMoveCommand(orders: Command): void {
  dataCommand(
    orders,
    'orders move',
    {
      summary: 'move a shipment to another lab (its lab has not started it)',
      description:
        'Moves the shipment SHIPMENT_ID (shp_...) to the lab --lab, with a reason kept in the audit trail ' +
        '(order.shipmentMoved). Refused (exit 2, saying why) once the shipment has shipped or its lab has started ' +
        'it, and for a lab that cannot make every item and ship it to the destination by its method. The old ' +
        "lab's job is cancelled (a lab with a push endpoint gets lab.job.movedAway), the new lab gets a new " +
        "shipment with print files in its own format and colour; the merchant's charges do not change. Works " +
        'while serve runs.',
      argument: ['<SHIPMENT_ID>', 'the shipment to move (shp_123)'],
      options: [
        ['--lab <CODE>', 'the lab to move it to: its code in the catalogue (see printroute labs list)'],
        ['--reason <TEXT>', 'why it is moved (required; kept in the audit trail)'],
        ['--json', 'print the result as JSON'],
      ],
    },
    async (values, settings, shipmentId) => {
      const shipment = requireText(shipmentId, 'SHIPMENT_ID')
      const lab = requireText(values.lab, '--lab')
      const reason = requireText(values.reason, '--reason')
      const moved = await runDataOperation(settings(), 'moveShipment', { shipment, lab, reason })
      if (values.json === true) return printJson(moved)
      print(`${moved.fromShipmentId} moved from ${moved.fromLabCode} to ${moved.toLabCode} as ${moved.toShipmentId}`)
      if (moved.oldJobCancelled) note(`lab ${moved.fromLabCode}'s job ${moved.fromShipmentId} is cancelled`)
      if (moved.rerenderedAssetIds.length > 0) {
        note(`print files made again for ${moved.toLabCode}: ${moved.rerenderedAssetIds.join(', ')}`)
      }
    },
  )
}
