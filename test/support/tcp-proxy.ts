// A TCP proxy on 127.0.0.1 (port 0) in front of a real server (the test PostgreSQL), for tests that take the
// server away from printroute and give it back: `dropAll` cuts every connection through it at once, as a
// network failure does; `refuse` answers new connections with a reset (until `setMode('forward')`), as a
// server that is down does; `hold` leaves new connections unanswered (a server that does not reply), for
// connect timeouts. `cutAfter` passes one statement on to the server and then cuts that connection before the
// answer comes back (a COMMIT whose outcome the client cannot know). `terminate-when-ready` lets a PostgreSQL
// connection complete and then ends it with the server's FATAL 57P01, in the same chunk as the ReadyForQuery (what
// a client reads when its backend is terminated just after it connected, on a busy machine). Otherwise bytes
// pass through unchanged.
import { createConnection, createServer, type Server, type Socket } from 'node:net'

export type ProxyMode = 'forward' | 'refuse' | 'hold' | 'terminate-when-ready'

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number
  /** `url` (a postgres:// or other URL naming the target) with its host and port pointed at the proxy. */
  urlThrough(url: string): string
  /** Cuts every open connection, both sides (a reset, as a dead server or network gives). */
  dropAll(): number
  /** How new connections are met from now on. */
  setMode(mode: ProxyMode): void
  /**
   * The next time a client sends bytes containing `text` (e.g. `COMMIT`), they reach the server and then that
   * connection is cut, both sides, before any answer returns. Resolves once it has happened.
   */
  cutAfter(text: string): Promise<void>
  /** Connections made through the proxy so far, and those open now. */
  stats(): { accepted: number; open: number; refused: number }
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward'
  const open = new Set<Socket>()
  const held = new Set<Socket>()
  let accepted = 0
  let refused = 0
  let pendingCut: { pattern: Buffer; done: () => void } | null = null
  const track = (socket: Socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
    // A reset from either side is the end of that connection, not a failure of the test.
    socket.on('error', () => {})
  }
  const server: Server = createServer((client) => {
    if (mode === 'refuse') {
      refused += 1
      client.on('error', () => {})
      client.resetAndDestroy()
      return
    }
    track(client)
    if (mode === 'hold') {
      held.add(client)
      client.once('close', () => held.delete(client))
      return
    }
    accepted += 1
    const upstream = createConnection(target)
    track(upstream)
    // One side closing closes the other the same way a server or client does: what was sent is delivered first.
    const cut = () => {
      client.end()
      upstream.end()
    }
    client.on('data', (chunk: Buffer) => {
      const cutting = pendingCut && chunk.includes(pendingCut.pattern) ? pendingCut : null
      if (!cutting) {
        upstream.write(chunk)
        return
      }
      pendingCut = null
      // Nothing more reaches the client from now on. The server reads the statement, runs it, and then finds
      // the connection closed (an orderly close after the bytes, so it reads them all); the client's side is
      // reset, with the answer never sent on.
      upstream.removeAllListeners('data')
      upstream.on('data', () => {})
      client.off('close', cut)
      client.resetAndDestroy()
      upstream.end(chunk, () => cutting.done())
    })
    if (mode === 'terminate-when-ready') {
      let startup = Buffer.alloc(0)
      upstream.on('data', (chunk: Buffer) => {
        startup = Buffer.concat([startup, chunk])
        const ready = readyForQueryEnd(startup)
        if (ready === null) return
        upstream.removeAllListeners('data')
        upstream.destroy()
        client.end(Buffer.concat([startup.subarray(0, ready), adminShutdownMessage()]))
      })
    } else upstream.on('data', (chunk: Buffer) => client.write(chunk))
    client.once('close', cut)
    upstream.once('close', cut)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address')
  return {
    port: address.port,
    urlThrough(url) {
      const through = new URL(url)
      through.hostname = '127.0.0.1'
      through.port = String(address.port)
      return through.toString()
    },
    dropAll() {
      const count = open.size
      for (const socket of [...open]) socket.resetAndDestroy()
      return count
    },
    setMode(next) {
      mode = next
      // Connections held while the server "did not answer" are cut when it answers again, as a timeout would.
      if (next !== 'hold') for (const socket of [...held]) socket.resetAndDestroy()
    },
    cutAfter(text) {
      return new Promise<void>((resolve) => {
        pendingCut = { pattern: Buffer.from(text), done: resolve }
      })
    },
    stats: () => ({ accepted, open: open.size, refused }),
    async close() {
      for (const socket of [...open]) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Where the first ReadyForQuery ('Z') message of a PostgreSQL server's byte stream ends, once it is all there. */
function readyForQueryEnd(stream: Buffer): number | null {
  let at = 0
  while (at + 5 <= stream.length) {
    const end = at + 1 + stream.readInt32BE(at + 1)
    if (end > stream.length) return null
    if (stream[at] === 0x5a) return end
    at = end
  }
  return null
}

/** A PostgreSQL ErrorResponse message: FATAL 57P01, as the server sends to a backend it terminates. */
export function adminShutdownMessage(): Buffer {
  const fields = Buffer.from('SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0', 'utf8')
  const header = Buffer.alloc(5)
  header.write('E', 0)
  header.writeInt32BE(fields.length + 4, 1)
  return Buffer.concat([header, fields])
}
