// A bare Fastify server for testing one console page module (src/web/operator/<section>.pages.ts) on its
// own: a signed-in operator on every request, no CSRF check (the console's plugin makes it before any page
// runs), and a shell that renders the page's title, notice and content into a minimal document. The console's
// own tests (sign-in, sessions, CSRF, the real shell, the browser) go through admin.plugin.ts instead.
import formBody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import { escapeHtml } from '../../src/web/kit/html.ts'
import { ADMIN_PATH, type AdminConsole, type SignedInOperator } from '../../src/web/operator/admin-context.ts'

export interface AdminPagesHarness {
  /** The server's origin (`http://127.0.0.1:PORT`); pages are under `${origin}/admin/...`. */
  origin: string
  /** GETs or POSTs (form-encoded) a console path; the status, headers and body. Redirects are not followed. */
  request(
    path: string,
    form?: Record<string, string | string[]>,
  ): Promise<{ status: number; location: string | null; body: string; notice: string | null }>
  close(): Promise<void>
}

export const TEST_OPERATOR: SignedInOperator = {
  operator: { id: 'opr_1', name: 'Test Operator' },
  csrfToken: 'csrf-test',
}

export async function startAdminPages(
  register: (pages: FastifyInstance, console: AdminConsole) => void | Promise<void>,
  operator: SignedInOperator = TEST_OPERATOR,
): Promise<AdminPagesHarness> {
  const app = Fastify({ logger: false })
  await app.register(formBody)
  app.decorateRequest('signedInOperator', null as unknown as SignedInOperator)
  const shell: AdminConsole = {
    sendPage(_request, reply, page) {
      const notice = page.notice ? `<p class="notice ${page.notice.kind}">${escapeHtml(page.notice.text)}</p>` : ''
      return reply
        .code(page.status ?? 200)
        .type('text/html; charset=utf-8')
        .send(
          `<!doctype html><title>${escapeHtml(page.title)}</title><main data-section="${page.section}">${notice}${page.content.text}</main>`,
        )
    },
    redirect(reply, path, notice) {
      // Encoded: a header carries no character beyond Latin-1, and notices may (an ellipsis after a key's prefix).
      if (notice) reply.header('x-notice', encodeURIComponent(JSON.stringify(notice)))
      return reply.code(303).redirect(path)
    },
  }
  await app.register(
    async (pages) => {
      pages.addHook('preHandler', async (request) => {
        request.signedInOperator = operator
      })
      await register(pages, shell)
    },
    { prefix: ADMIN_PATH },
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return {
    origin,
    async request(path, form) {
      const body = form
        ? new URLSearchParams(
            Object.entries(form).flatMap(([name, value]) =>
              (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, v]),
            ),
          ).toString()
        : undefined
      const response = await fetch(`${origin}${path}`, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
        body,
      })
      return {
        status: response.status,
        location: response.headers.get('location'),
        body: await response.text(),
        // The notice a redirect carries (the real console shows it on the page it lands on), as JSON.
        notice: decodeURIComponent(response.headers.get('x-notice') ?? '') || null,
      }
    },
    close: () => app.close(),
  }
}
