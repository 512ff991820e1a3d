// The console's channels (docs/admin.md#channels): every account's storefront channels, read-only: the account, the
// store, its state (failing with the store's last answer), the store orders waiting as "not connected", the shipments
// the store has not taken, and when it last received an order; failing ones first. `?account=acc_N` narrows it to
// one account (its page links here, one line per channel, each to its row).
import type { FastifyInstance } from 'fastify'
import type { AdminChannelRow } from '../../domain/admin-views.ts'
import type { ConsoleChannels } from '../../domain/console-sections.ts'
import { environmentName } from '../../domain/environment.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { ADMIN_PATH, type AdminConsole } from './admin-context.ts'

/** The most channels the page lists. */
export const CONSOLE_CHANNELS_LIMIT = 500

const CHANNELS_PATH = `${ADMIN_PATH}/channels`

function channelTypeName(type: AdminChannelRow['type']): string {
  return type === 'shopify' ? 'Shopify' : 'WooCommerce'
}

/** The state, with why when failing, and the store's refusals still waiting. */
function channelStateCell(channel: AdminChannelRow): Html {
  const badge =
    channel.status === 'failing'
      ? html`<span class="badge badge-error">Failing</span>`
      : channel.status === 'uninstalled'
        ? html`<span class="badge badge-cancelled">Uninstalled</span>`
        : html`<span class="badge badge-ok">Active</span>`
  return html`${badge}${channel.statusReason ? html` <div class="small" data-status-reason>${channel.statusReason}</div>` : ''}${
    channel.failingFulfilments > 0
      ? html`<div class="small failing">${String(channel.failingFulfilments)} shipment${channel.failingFulfilments === 1 ? '' : 's'} not taken by the store</div>`
      : ''
  }`
}

function channelsTable(channels: AdminChannelRow[], showAccount: boolean): Html {
  if (channels.length === 0) return html`<p class="muted" data-none>No channel.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Channels"><table class="table console-channels phone-cards">
<caption class="visually-hidden">Storefront channels, failing first</caption>
<thead><tr><th scope="col">Channel</th>${showAccount ? html`<th scope="col">Account</th>` : ''}<th scope="col">Environment</th><th scope="col">Type</th><th scope="col">Store</th><th scope="col">State</th><th scope="col" class="number">Not connected</th><th scope="col">Last order received</th></tr></thead>
<tbody>${channels.map(
    (channel) => html`<tr id="${channel.channelId}" data-channel="${channel.channelId}">
<th scope="row"><code>${channel.channelId}</code>${channel.name ? html` <span class="muted">${channel.name}</span>` : ''}</th>
${showAccount ? html`<td data-label="Account"><a href="${ADMIN_PATH}/accounts/${channel.accountId}">${channel.accountId}</a> <span class="muted">${channel.accountName}</span></td>` : ''}
<td data-label="Environment">${environmentName(channel.environment)}</td>
<td data-label="Type">${channelTypeName(channel.type)}</td>
<td data-label="Store" class="break">${channel.store}</td>
<td data-label="State">${channelStateCell(channel)}</td>
<td data-label="Not connected" class="number" data-not-connected>${String(channel.notConnected)}</td>
<td data-label="Last order received">${channel.lastOrderAt ? formatTime(channel.lastOrderAt) : html`<span class="muted">none yet</span>`}</td>
</tr>`,
  )}</tbody></table></div>`
}

export function registerChannelsPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleChannels): void {
  pages.get<{ Querystring: { account?: string } }>('/channels', async (request, reply) => {
    const account = typeof request.query.account === 'string' ? request.query.account.trim().slice(0, 40) : ''
    const channels = await deps.listChannels({ accountId: account || null, limit: CONSOLE_CHANNELS_LIMIT })
    return console.sendPage(request, reply, {
      section: 'channels',
      title: 'Channels',
      content: html`<div class="page-head"><h1>Channels</h1></div>
<p class="muted">Every account's storefront channels (docs/channels.md), failing ones first. Read-only: a merchant changes a channel on their dashboard or through the API.</p>
${
  account
    ? html`<p>The channels of <a href="${ADMIN_PATH}/accounts/${encodeURIComponent(account)}">${account}</a>. <a href="${CHANNELS_PATH}">Every account's</a></p>`
    : ''
}
${channelsTable(channels, account === '')}
${channels.length >= CONSOLE_CHANNELS_LIMIT ? html`<p class="muted">The first ${String(CONSOLE_CHANNELS_LIMIT)} are shown.</p>` : ''}`,
    })
  })
}
