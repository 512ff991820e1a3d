// A log destination in memory: tests hand its stream to createLogger and read back every line written.
import { Writable } from 'node:stream'

export interface LogCapture {
  stream: Writable
  /** Everything written so far. */
  text(): string
  /** The JSON lines written so far, parsed (for a JSON logger). */
  entries(): Record<string, any>[]
}

export function captureLogs(): LogCapture {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString())
      done()
    },
  })
  const text = () => chunks.join('')
  return {
    stream,
    text,
    entries: () =>
      text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, any>),
  }
}
