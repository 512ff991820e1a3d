// Which addresses printroute refuses to connect to (SSRF protection for asset downloads and callbacks). The
// IANA IPv4/IPv6 Special-Purpose Address Registries (RFC 6890 and updates); the labels read in messages as
// "10.0.0.5 is <label>". Ranges are matched by node:net's BlockList; only the IPv4 address embedded in an
// IPv6 one (IPv4-mapped, NAT64, 6to4) is read here, because its reason names the embedding.
import { BlockList, isIPv4, isIPv6 } from 'node:net'

const CLOUD_METADATA = 'a cloud metadata address'
const NOT_AN_IP_ADDRESS = 'not an IP address'

interface LabelledRange {
  label: string
  range: BlockList
}

function range(family: 'ipv4' | 'ipv6', cidr: string, label: string): LabelledRange {
  const [network = '', prefix = ''] = cidr.split('/')
  const blockList = new BlockList()
  blockList.addSubnet(network, Number(prefix), family)
  return { label, range: blockList }
}

function firstMatch(ranges: readonly LabelledRange[], address: string, family: 'ipv4' | 'ipv6'): string | null {
  return ranges.find(({ range }) => range.check(address, family))?.label ?? null
}

// Checked in order: the first match names the reason.
const FORBIDDEN_IPV4: readonly LabelledRange[] = [
  range('ipv4', '169.254.169.254/32', CLOUD_METADATA), // AWS, GCP, Azure, OpenStack, DigitalOcean, ...
  range('ipv4', '0.0.0.0/8', 'an unspecified ("this network") address'), // Linux connects 0.0.0.0 to itself
  range('ipv4', '10.0.0.0/8', 'a private address (RFC 1918)'),
  range('ipv4', '100.64.0.0/10', 'a carrier-grade NAT address (RFC 6598)'), // includes Alibaba's 100.100.100.200
  range('ipv4', '127.0.0.0/8', 'a loopback address'),
  range('ipv4', '169.254.0.0/16', 'a link-local address'),
  range('ipv4', '172.16.0.0/12', 'a private address (RFC 1918)'),
  range('ipv4', '192.0.0.0/24', 'a reserved address (IETF protocol assignments)'),
  range('ipv4', '192.0.2.0/24', 'a documentation address'),
  range('ipv4', '192.88.99.0/24', 'a reserved address (6to4 relay anycast)'),
  range('ipv4', '192.168.0.0/16', 'a private address (RFC 1918)'),
  range('ipv4', '198.18.0.0/15', 'a reserved address (benchmarking)'),
  range('ipv4', '198.51.100.0/24', 'a documentation address'),
  range('ipv4', '203.0.113.0/24', 'a documentation address'),
  range('ipv4', '224.0.0.0/4', 'a multicast address'),
  range('ipv4', '255.255.255.255/32', 'the broadcast address'),
  range('ipv4', '240.0.0.0/4', 'a reserved address (240.0.0.0/4)'),
]

// IPv6 forms that carry an IPv4 address: refused for the IPv4 address's reason, named with the form. The
// IPv4 address is the 32 bits starting at `ipv4Group` (16-bit groups).
const EMBEDDING_IPV6: readonly (LabelledRange & { ipv4Group: number })[] = [
  { ...range('ipv6', '::ffff:0:0/96', 'as an IPv4-mapped IPv6 address'), ipv4Group: 6 },
  { ...range('ipv6', '64:ff9b::/96', 'through NAT64'), ipv4Group: 6 },
  { ...range('ipv6', '2002::/16', 'through 6to4'), ipv4Group: 1 },
]

// AWS's IPv6 instance metadata endpoint: checked before the embedding forms, like every metadata address.
const CLOUD_METADATA_IPV6 = range('ipv6', 'fd00:ec2::254/128', CLOUD_METADATA)

const FORBIDDEN_IPV6: readonly LabelledRange[] = [
  range('ipv6', '::/128', 'the unspecified address'),
  range('ipv6', '::1/128', 'a loopback address'),
  range('ipv6', 'fc00::/7', 'a private address (IPv6 unique local, fc00::/7)'),
  range('ipv6', 'fe80::/10', 'a link-local address'),
  range('ipv6', 'fec0::/10', 'a site-local address (deprecated)'),
  range('ipv6', 'ff00::/8', 'a multicast address'),
  range('ipv6', '64:ff9b::/32', 'a local-use NAT64 address'),
  range('ipv6', '2001:db8::/32', 'a documentation address'),
  range('ipv6', '3fff::/20', 'a documentation address'), // RFC 9637
  range('ipv6', '2001::/23', 'a reserved address (IETF protocol assignments, Teredo)'),
]

// Globally routed unicast is 2000::/3; everything outside it not named above is refused.
const GLOBAL_UNICAST_IPV6 = range('ipv6', '2000::/3', 'global unicast')
const OUTSIDE_GLOBAL_UNICAST = 'a reserved address (outside 2000::/3)' // ::/8 (IPv4-compatible), 100::/64, ...

/** The eight 16-bit groups of an IPv6 address (zone index already removed). */
function ipv6Groups(address: string): number[] {
  let text = address
  const lastColon = text.lastIndexOf(':')
  const tail = text.slice(lastColon + 1)
  if (tail.includes('.')) {
    const value = tail.split('.').reduce((total, part) => total * 256 + Number(part), 0)
    text = `${text.slice(0, lastColon + 1)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
  }
  const halves = text.split('::')
  const left = halves[0] ? halves[0].split(':') : []
  const right = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const zeros: string[] = Array(8 - left.length - right.length).fill('0')
  return [...left, ...(halves.length === 2 ? zeros : []), ...right].map((group) => Number.parseInt(group, 16))
}

function embeddedIpv4(address: string, firstGroup: number): string {
  const groups = ipv6Groups(address)
  const high = groups[firstGroup] ?? 0
  const low = groups[firstGroup + 1] ?? 0
  return [high >>> 8, high & 0xff, low >>> 8, low & 0xff].join('.')
}

function ipv6Reason(address: string): string | null {
  if (CLOUD_METADATA_IPV6.range.check(address, 'ipv6')) return CLOUD_METADATA
  const embedding = EMBEDDING_IPV6.find(({ range }) => range.check(address, 'ipv6'))
  if (embedding !== undefined) {
    const reason = firstMatch(FORBIDDEN_IPV4, embeddedIpv4(address, embedding.ipv4Group), 'ipv4')
    return reason && `${reason}, ${embedding.label}`
  }
  const reason = firstMatch(FORBIDDEN_IPV6, address, 'ipv6')
  if (reason !== null) return reason
  return GLOBAL_UNICAST_IPV6.range.check(address, 'ipv6') ? null : OUTSIDE_GLOBAL_UNICAST
}

/**
 * Why printroute refuses to connect to `address` (an IPv4 or IPv6 literal), e.g. "a loopback address", or
 * null when it may. Anything that is not an IP address is refused.
 */
export function forbiddenAddressReason(address: string): string | null {
  if (isIPv4(address)) return firstMatch(FORBIDDEN_IPV4, address, 'ipv4')
  const zone = address.indexOf('%')
  const withoutZone = zone === -1 ? address : address.slice(0, zone)
  if (!isIPv6(withoutZone)) return NOT_AN_IP_ADDRESS
  return ipv6Reason(withoutZone)
}

/**
 * The reason to refuse `address` under the fetcher's policy, or null: with `allowPrivateAddresses` only
 * cloud metadata addresses are refused, in every spelling (IPv4-mapped, NAT64, 6to4 included).
 */
export function addressRefusalReason(address: string, allowPrivateAddresses: boolean): string | null {
  const reason = forbiddenAddressReason(address)
  if (reason === null || !allowPrivateAddresses) return reason
  // Embedded forms read "a cloud metadata address, as an IPv4-mapped IPv6 address": match the start.
  return reason.startsWith(CLOUD_METADATA) || reason === NOT_AN_IP_ADDRESS ? reason : null
}

/** Raised inside a connection (lookup or connector); the fetcher turns it into a `ForbiddenAddress` error. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError'
  readonly code = 'PRINTROUTE_FORBIDDEN_ADDRESS'
  /** "127.0.0.1 is a loopback address", or "h resolves to 10.0.0.5, which is a private address (RFC 1918)". */
  readonly refused: string
  /** Whether `--allow-private-urls` would let the connection through (never for cloud metadata). */
  readonly allowedByFlag: boolean

  constructor(refused: string, allowedByFlag: boolean) {
    super(`${refused}; printroute does not download from such addresses${allowedByFlag ? FLAG_HINT : ''}`)
    this.refused = refused
    this.allowedByFlag = allowedByFlag
  }
}

const FLAG_HINT = ' unless started with --allow-private-urls (meant for local testing)'
// A receiver on the merchant's own machine needs no open address at all: `listen` polls the events feed.
const LISTEN_HINT = '; or let printroute listen --forward-to <your URL> deliver the events to your machine'

export function refusal(hostname: string, address: string, reason: string): ForbiddenAddressError {
  const subject = hostname === address ? address : `${hostname} resolves to ${address}, which`
  return new ForbiddenAddressError(`${subject} is ${reason}`, addressRefusalReason(address, true) === null)
}

/**
 * The refusal as a callback delivery records it: what was refused and, for an address the flag would open, how
 * to get the events anyway (the flag, or `printroute listen`, which forwards them to the merchant's machine).
 */
export function callbackRefusalMessage(error: ForbiddenAddressError): string {
  const hints = error.allowedByFlag ? `${FLAG_HINT}${LISTEN_HINT}` : ''
  return `${error.refused}; printroute does not call such addresses${hints}`
}
