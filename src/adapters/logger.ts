// Placeholder until the observability work lands: pino with a format choice.
import pino from 'pino'
import pretty from 'pino-pretty'

export type LogFormat = 'pretty' | 'json'

export function logFormatFor(flag: string | null | undefined, isTty: boolean): LogFormat {
  if (flag === 'pretty' || flag === 'json') return flag
  return isTty ? 'pretty' : 'json'
}

export function createLogger(options: { level: string; format: LogFormat; destination: 1 | 2 }): pino.Logger {
  if (options.format === 'pretty') {
    return pino(
      { level: options.level },
      pretty({ destination: options.destination, sync: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss' }),
    )
  }
  return pino({ level: options.level }, pino.destination({ dest: options.destination, sync: true }))
}
