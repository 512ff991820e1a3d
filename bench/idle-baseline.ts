// The baseline of `npm run bench:idle`: a bare Fastify process with one route, listening on 127.0.0.1 at a free
// port and doing nothing else. Prints `ready at <url>` once it listens; stops on SIGTERM.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/readyz', async () => ({ status: 'ready' }))
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
process.stdout.write(`ready at http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`)
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
