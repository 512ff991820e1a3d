// Paging of listings that page by `top` and `skip` (orders, products): the next page's address.
import type { FastifyRequest } from 'fastify'

/** The absolute URL of the next page: this request's own host and path, every filter kept as spelled. */
export function nextPageUrl(request: FastifyRequest, skip: number, top: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`)
  const params = new URLSearchParams()
  for (const [name, value] of url.searchParams) {
    const lower = name.toLowerCase()
    if (lower !== 'skip' && lower !== 'top') params.append(name, value)
  }
  params.set('top', String(top))
  params.set('skip', String(skip + top))
  return `${url.origin}${url.pathname}?${params.toString()}`
}
