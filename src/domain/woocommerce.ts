// What a WooCommerce channel's store URL may be. Pure, so the channels route can check a `storeUrl` when a channel is
// made or changed, with the same words the adapter (adapters/woocommerce-storefront.ts) would otherwise fail with
// later, at the first shipment. The store URL is the origin of every REST call printroute makes to the store, so a
// test points it at a stand-in on 127.0.0.1 (docs/channels.md#woocommerce).

import type { Environment } from './environment.ts'

/** The longest store URL accepted (WordPress's home URL, with the path of a store in a subfolder). */
export const WOOCOMMERCE_STORE_URL_MAX_LENGTH = 2048

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]'])

/** Whether `hostname` (as URL parses it) is this machine: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}

/**
 * Why `url` cannot be a WooCommerce channel's `storeUrl`, or null when it can: an absolute http(s) URL without a
 * user name, password, query or fragment, at most 2048 characters. In Live it must be https (the REST key is sent
 * as HTTP Basic auth), except for a store on this machine (loopback: a stand-in, or a store in development, which
 * also needs `--allow-private-urls` to be reached); the Sandbox also takes http, over which the key is never sent:
 * each request is signed with OAuth 1.0a instead, as WooCommerce requires over http.
 */
export function checkWooCommerceStoreUrl(url: unknown, environment: Environment = 'live'): string | null {
  if (typeof url !== 'string' || url.trim() === '')
    return 'storeUrl must be the store\u2019s address, e.g. https://shop.example.com'
  if (url.length > WOOCOMMERCE_STORE_URL_MAX_LENGTH) {
    return `storeUrl is longer than ${WOOCOMMERCE_STORE_URL_MAX_LENGTH} characters`
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'storeUrl is not an absolute URL (it must start with https://)'
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `storeUrl must be an https:// URL, not ${parsed.protocol}`
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'storeUrl must not contain a user name or password (the REST key goes in consumerKey and consumerSecret)'
  }
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) {
    return 'storeUrl must not have a query or fragment: give the store\u2019s home address, e.g. https://shop.example.com'
  }
  if (parsed.protocol === 'http:' && environment === 'live' && !isLoopbackHost(parsed.hostname)) {
    return 'storeUrl must be an https:// URL in Live (http is accepted only for a store on this machine, or in the Sandbox)'
  }
  return null
}

/** The REST API's URL of `path` (e.g. `/orders/12`) for a store at `storeUrl` (a store in a subfolder keeps it). */
export function wooCommerceApiUrl(storeUrl: string, path: string): string {
  return `${storeUrl.replace(/\/+$/, '')}/wp-json/wc/v3${path}`
}
