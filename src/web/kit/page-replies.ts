// What the dashboard and the lab portal do alike: the security headers of their pages, the one-time notice a redirect
// carries to the next page (a short-lived cookie of each site's own name and path), the refusal of another site's
// form posts, and where a sign-in may send the browser next.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Notice } from './layout.ts'

/**
 * The pages' security headers: scripts and styles only from the site itself, images also from `imagesOrigin`
 * (where print files and thumbnails are served), no framing, no referrer to other sites.
 */
export function setPageSecurityHeaders(reply: FastifyReply, imagesOrigin: string): void {
  reply.header(
    'content-security-policy',
    `default-src 'self'; img-src 'self' data: ${imagesOrigin}; style-src 'self'; script-src 'self'; ` +
      "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  )
  reply.header('x-content-type-options', 'nosniff')
  reply.header('referrer-policy', 'same-origin')
}

/** A site's notice cookie: set by a redirect, read (and cleared) by the next page it sends. */
export interface NoticeCookie {
  /** The notice the previous redirect left, cleared now; null when none (or not one of ours). */
  take(request: FastifyRequest, reply: FastifyReply): Notice | null
  /** Redirects (303) to `path` under the site's own, leaving `notice` for the page there. */
  redirect(reply: FastifyReply, path: string, notice?: Notice): FastifyReply
}

export function noticeCookie(name: string, sitePath: string): NoticeCookie {
  return {
    take(request, reply) {
      const stored = request.cookies[name]
      if (!stored) return null
      reply.clearCookie(name, { path: sitePath })
      try {
        const notice = JSON.parse(stored) as Notice
        return ['success', 'error', 'info'].includes(notice.kind) && typeof notice.text === 'string' ? notice : null
      } catch {
        return null
      }
    },
    redirect(reply, path, notice) {
      if (notice) {
        reply.setCookie(name, JSON.stringify(notice), {
          path: sitePath,
          httpOnly: true,
          sameSite: 'strict',
          maxAge: 60,
        })
      }
      return reply.code(303).redirect(`${sitePath}${path}`)
    },
  }
}

/** A form post from another site (Origin present and not ours) is refused before anything else. */
export function isCrossSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin
  if (origin === undefined) return false
  // Browsers send `null` from sandboxed frames and opaque origins: never the site's own page.
  if (origin === 'null') return true
  try {
    return new URL(origin).host !== request.host
  } catch {
    return true
  }
}

/**
 * Where a sign-in sends the browser next: `next` when it is a page of the site (under `sitePath`, no second slash
 * that would make it another host, no backslash or whitespace a browser might read otherwise), else `fallback`.
 */
export function safeNextPath(next: unknown, sitePath: string, fallback: string): string {
  if (typeof next !== 'string' || !next.startsWith(`${sitePath}/`) || next.startsWith('//')) return fallback
  return /[\\\s]/.test(next) ? fallback : next
}
