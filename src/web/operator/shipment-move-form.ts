// The console order page's card for moving a shipment to another lab (docs/admin.md#moving-a-shipment-to-another-lab):
// one form per shipment that can still move, offering the labs able to take it (those that cannot are listed with
// why), with a required reason. orders.pages.ts shows it and takes its POST.
import type { MovableShipment } from '../../domain/shipment-move.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField } from '../kit/layout.ts'
import { ADMIN_PATH } from './admin-context.ts'

export function shipmentMovePath(orderId: string, shipmentId: string): string {
  return `${ADMIN_PATH}/orders/${orderId}/shipments/${shipmentId}/move`
}

function moveForm(orderId: string, shipment: MovableShipment, csrfToken: string): Html {
  const able = shipment.labs.filter((lab) => lab.refusal === undefined)
  const unable = shipment.labs.filter((lab) => lab.refusal !== undefined)
  const prefix = `move-${shipment.shipmentId}`
  const notes =
    unable.length > 0
      ? html`<details><summary>Labs that cannot take it (${String(unable.length)})</summary><ul class="small">${unable.map(
          (lab) => html`<li><code>${lab.labCode}</code>: ${lab.refusal ?? ''}</li>`,
        )}</ul></details>`
      : ''
  if (shipment.refusal) {
    return html`<li id="${prefix}"><strong>${shipment.shipmentId}</strong> at <code>${shipment.labCode}</code>: <span class="muted">${shipment.refusal}</span></li>`
  }
  if (able.length === 0) {
    return html`<li id="${prefix}"><strong>${shipment.shipmentId}</strong> at <code>${shipment.labCode}</code>: <span class="muted">no other lab can make every item and ship it by its method.</span>${notes}</li>`
  }
  return html`<li id="${prefix}"><form method="post" action="${shipmentMovePath(orderId, shipment.shipmentId)}" class="stack">${csrfField(csrfToken)}
<p><strong>${shipment.shipmentId}</strong> at <code>${shipment.labCode}</code></p>
<div class="field"><label for="${prefix}-lab">Move to lab</label>
<select id="${prefix}-lab" name="lab" required>${able.map(
    (lab) => html`<option value="${lab.labCode}">${lab.labCode} · ${lab.name} (${lab.countryCode})</option>`,
  )}</select></div>
<div class="field field-wide"><label for="${prefix}-reason">Reason (kept in the audit trail)</label>
<input id="${prefix}-reason" name="reason" type="text" required maxlength="500"></div>
<div><button type="submit" class="button-quiet">Move ${shipment.shipmentId}</button></div>
</form>${notes}</li>`
}

/** The card, or nothing for an order without shipments. */
export function shipmentMoveCard(orderId: string, shipments: MovableShipment[], csrfToken: string): Html {
  if (shipments.length === 0) return html``
  return html`<section class="card" aria-labelledby="move-heading">
<h2 id="move-heading">Move a shipment to another lab</h2>
<p class="muted small">While its lab has not started it. The current lab's job is cancelled (a lab with a push endpoint
is told), the new lab gets a new job; the merchant's charges do not change.</p>
<ul class="plain">${shipments.map((shipment) => moveForm(orderId, shipment, csrfToken))}</ul>
</section>`
}
