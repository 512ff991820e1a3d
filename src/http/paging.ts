// Paging of listings that page by `top` and `skip` (orders, products): the next page's address.
import type { FastifyRequest } from 'fastify'
import { publicUrlOf, requestTarget } from './public-url.ts'

/** The absolute URL of the next page: the public URL and this request's path, every filter kept as spelled. */
export function nextPageUrl(request: FastifyRequest, skip: number, top: number): string {
  const url = requestTarget(request)
  const params = new URLSearchParams()
  for (const [name, value] of url.searchParams) {
    const lower = name.toLowerCase()
    if (lower !== 'skip' && lower !== 'top') params.append(name, value)
  }
  params.set('top', String(top))
  params.set('skip', String(skip + top))
  return publicUrlOf(request, `${url.pathname}?${params.toString()}`)
}

/**
 * The absolute URL of the next page of a listing paged by a cursor (the audit trail's `before`): the filters kept
 * as spelled, the cursor replaced. A cursor rather than `skip` where entries are added at the top while a client
 * pages through: its pages do not shift.
 */
export function nextCursorPageUrl(request: FastifyRequest, cursorName: string, cursor: string): string {
  const url = requestTarget(request)
  const params = new URLSearchParams()
  for (const [name, value] of url.searchParams) {
    if (name.toLowerCase() !== cursorName.toLowerCase()) params.append(name, value)
  }
  params.set(cursorName, cursor)
  return publicUrlOf(request, `${url.pathname}?${params.toString()}`)
}
