// The recipient's form fields, shared by the change-recipient page and the new order page, and the API's
// recipient object read back from them.
import type { Recipient } from '../../domain/order.ts'
import { type FieldErrors, fieldMessages, invalidAttributes, NO_ERRORS } from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'

const RECIPIENT_FIELDS = [
  ['name', 'Name', true],
  ['email', 'Email', false],
  ['phoneNumber', 'Phone number', false],
  ['line1', 'Address line 1', true],
  ['line2', 'Address line 2', false],
  ['townOrCity', 'Town or city', true],
  ['stateOrCounty', 'State or county', false],
  ['postalOrZipCode', 'Postal or ZIP code', true],
] as const

function recipientValue(recipient: Recipient, name: (typeof RECIPIENT_FIELDS)[number][0]): string {
  if (name === 'name' || name === 'email' || name === 'phoneNumber') return recipient[name] ?? ''
  return recipient.address[name] ?? ''
}

/**
 * The recipient form's fields (change recipient, new order); without `countryField` the country is read-only.
 * `errors` are shown beside the fields they are about (ids `recipient-<field>`).
 */
export function recipientFields(
  recipient: Recipient | null,
  countryField?: Html,
  errors: FieldErrors = NO_ERRORS,
): Html {
  return html`<fieldset class="grid-fields"><legend>Recipient</legend>
${RECIPIENT_FIELDS.map(
  ([
    name,
    label,
    required,
  ]) => html`<div class="field"><label for="recipient-${name}">${label}${required ? '' : html` <span class="muted">(optional)</span>`}</label>
<input id="recipient-${name}" name="${name}" value="${recipient ? recipientValue(recipient, name) : ''}"${required ? html` required` : ''}${name === 'email' ? html` type="email"` : ''}${invalidAttributes(errors, `recipient-${name}`)}>${fieldMessages(errors, `recipient-${name}`)}</div>`,
)}
${countryField ?? html`<div class="field"><label for="recipient-country">Country</label><input id="recipient-country" name="countryCode" value="${recipient?.address.countryCode ?? ''}" readonly aria-describedby="country-note"><p id="country-note" class="muted small">The country cannot change: labs and prices depend on it.</p></div>`}
</fieldset>`
}

/** The API's recipient object from the form (empty optional fields are sent as null, as the contract wants). */
export function recipientFromForm(body: Record<string, unknown>, countryCode?: string): Record<string, unknown> {
  const text = (name: string) => {
    const value = body[name]
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
  }
  const address: Record<string, unknown> = {
    line1: text('line1'),
    line2: text('line2'),
    postalOrZipCode: text('postalOrZipCode'),
    townOrCity: text('townOrCity'),
    stateOrCounty: text('stateOrCounty'),
  }
  if (countryCode !== undefined) address.countryCode = countryCode
  return { name: text('name'), email: text('email'), phoneNumber: text('phoneNumber'), address }
}
