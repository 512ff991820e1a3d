// The connection on which a worker process hears that jobs were enqueued (PostgreSQL's LISTEN/NOTIFY: pg-boss's
// insert sends a notification, docs/pipeline.md#pace), in place of pg-boss's own listener (its Db.listen in
// 12.35.0), which the job queue replaces on the Db it hands pg-boss. It does the same: one connection of its own
// that LISTENs on the channel pg-boss names and hands each payload on, checks every 10 s that it still listens
// (a connection that died without a word, a firewall's silent drop), and after a failure reconnects (1 s,
// doubling to 30 s) and asks for a fetch by every worker, since notifications may have been missed meanwhile.
//
// The one difference: a connection it lets go of keeps a listener for its errors. pg-boss's took every listener
// off the dropped client before ending it, and the server's last words on that socket (a second 57P01 when a
// backend is terminated twice, a reset) were then an 'error' event nobody heard, which Node turns into an
// uncaught exception: the end of the process, for a database restart.
import pg from 'pg'
import { DatabaseUnavailableError } from '../domain/database-unavailable.ts'

/** How often a listening connection is asked whether it still listens, and how long its answer may take. */
export const WAKE_UP_HEARTBEAT_MS = 10_000
export const WAKE_UP_HEARTBEAT_TIMEOUT_MS = 5_000
/** The first reconnection's delay, doubled at each failure up to the cap. */
const RECONNECT_FIRST_MS = 1_000
const RECONNECT_CAP_MS = 30_000
/** TCP keep-alive from this much idleness, so a dead peer is also found by the operating system. */
const KEEP_ALIVE_INITIAL_DELAY_MS = 10_000

export interface WakeUpListenerOptions {
  /** The connection's settings (pg-boss's, which hold its connection string). */
  connection: pg.ClientConfig
  /** A failure of the connection: reported, never thrown (the process's outage log takes it). */
  onError: (error: Error) => void
  heartbeatMs?: number
  heartbeatTimeoutMs?: number
}

/** pg-boss's listen(): resolves once listening (rejects when the first connection fails), with how to stop. */
export type Listen = (
  channel: string,
  onNotification: (payload: string) => void,
  onReconnect: () => void,
) => Promise<{ close(): Promise<void> }>

const ignore = () => {}

export function createWakeUpListener(options: WakeUpListenerOptions): Listen {
  const heartbeatMs = options.heartbeatMs ?? WAKE_UP_HEARTBEAT_MS
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? WAKE_UP_HEARTBEAT_TIMEOUT_MS

  return async (channel, onNotification, onReconnect) => {
    let closed = false
    /** The connection listening now; the one being opened (so close() can end it too). */
    let client: pg.Client | null = null
    let connecting: pg.Client | null = null
    let timer: NodeJS.Timeout | null = null
    let failures = 0

    /** Ends a connection this listener no longer wants; whatever it still says goes nowhere. */
    const letGo = (target: pg.Client): Promise<void> => {
      target.removeAllListeners()
      target.on('error', ignore)
      return target.end().catch(ignore)
    }

    const schedule = (work: () => void, ms: number) => {
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => {
        timer = null
        work()
      }, ms)
      // The listener never keeps a stopping process alive.
      timer.unref()
    }

    const reconnectLater = () => {
      if (closed) return
      const delay = Math.min(RECONNECT_CAP_MS, RECONNECT_FIRST_MS * 2 ** Math.min(failures, 5))
      failures++
      schedule(() => void connect().catch(reconnectLater), delay)
    }

    const dropped = (target: pg.Client, error: Error) => {
      if (closed || client !== target) return
      client = null
      void letGo(target)
      options.onError(error)
      reconnectLater()
    }

    const heartbeat = (target: pg.Client) => {
      if (closed || client !== target) return
      let timeout: NodeJS.Timeout | undefined
      const answer = target.query<{ listening: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM pg_listening_channels() AS active(channel) WHERE channel = $1) AS listening',
        [channel],
      )
      const late = new Promise<never>((_resolve, reject) => {
        // Said as the outage log knows it: a connection that does not answer.
        timeout = setTimeout(() => reject(new DatabaseUnavailableError('connection timeout')), heartbeatTimeoutMs)
      })
      Promise.race([answer, late])
        .then((result) => {
          if (!result.rows[0]?.listening) throw new Error('LISTEN registration was lost')
          schedule(() => heartbeat(target), heartbeatMs)
        })
        .catch((error: Error) => dropped(target, error))
        .finally(() => clearTimeout(timeout))
      answer.catch(ignore)
    }

    const connect = async () => {
      if (closed) return
      const next = new pg.Client({
        ...options.connection,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
      })
      // Until it listens, a failure is connect()'s to report (to the caller, or the next reconnection).
      next.on('error', (error) => dropped(next, error))
      next.on('end', () => dropped(next, new DatabaseUnavailableError('connection terminated')))
      next.on('notification', (message) => {
        if (message.payload !== undefined) onNotification(message.payload)
      })
      connecting = next
      try {
        await next.connect()
        await next.query(`LISTEN "${channel.replaceAll('"', '""')}"`)
      } catch (error) {
        void letGo(next)
        throw error
      } finally {
        connecting = null
      }
      if (closed) {
        await letGo(next)
        return
      }
      client = next
      failures = 0
      schedule(() => heartbeat(next), heartbeatMs)
      onReconnect()
    }

    // The first connection's failure is the caller's: pg-boss then carries on without wake-ups (polling).
    await connect()
    return {
      async close() {
        closed = true
        if (timer) clearTimeout(timer)
        const open = [client, connecting].filter((target) => target !== null)
        client = null
        await Promise.all(open.map(letGo))
      },
    }
  }
}
