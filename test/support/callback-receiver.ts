// A real HTTP receiver for callbacks on 127.0.0.1: records every request (path with query, headers, body)
// and answers with the status `respond` chooses (200 by default).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedCallback {
  /** The request target exactly as it arrived (path and query). */
  url: string
  headers: IncomingHttpHeaders
  body: string
  event: Record<string, any>
}

export interface CallbackReceiver {
  port: number
  url(path?: string): string
  received: ReceivedCallback[]
  close(): Promise<void>
}

export async function startCallbackReceiver(
  options: { port?: number; respond?: (callback: ReceivedCallback, index: number) => number } = {},
): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let event: Record<string, any> = {}
      try {
        event = JSON.parse(body)
      } catch {}
      const callback = { url: request.url ?? '', headers: request.headers, body, event }
      received.push(callback)
      const status = options.respond ? options.respond(callback, received.length - 1) : 200
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'thanks' : `error ${status}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: (path = '/callbacks') => `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
