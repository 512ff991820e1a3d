// Sizes on the command line: "200MB", "1GiB", "512kB" or a plain number of bytes.
const UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
}

export function parseByteSize(text: string): number {
  const match = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(text)
  const unit = UNITS[(match?.[2] || 'b').toLowerCase()]
  if (!match || unit === undefined)
    throw new Error(`"${text}" is not a size (use e.g. 200MB, 1GiB or a number of bytes)`)
  return Number(match[1]) * unit
}
