// docs/errors.md lists every validation failure code the API can answer: a code added to the FailureCode type
// without a line in the document's table fails here.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { tier } from '../support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..', '..')

test('every FailureCode has a row in the failure-code table of docs/errors.md', () => {
  const source = readFileSync(join(ROOT, 'src', 'domain', 'failures.ts'), 'utf8')
  const union = source.match(/export type FailureCode =([\s\S]*?)\n\n/)
  assert.ok(union, 'the FailureCode union is found in src/domain/failures.ts')
  const codes = [...(union[1] as string).matchAll(/\|\s*'(\w+)'/g)].map((match) => match[1] as string)
  assert.ok(codes.length > 30, `the union's codes are read (${codes.length})`)

  const documented = new Set<string>()
  for (const line of readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8').split('\n')) {
    // A table row's first cell: `Code`, or `Code` / `Other` for a pair.
    const firstCell = line.match(/^\| ([^|]+) \|/)?.[1] ?? ''
    for (const code of firstCell.matchAll(/`(\w+)`/g)) documented.add(code[1] as string)
  }
  assert.deepEqual(
    codes.filter((code) => !documented.has(code)),
    [],
    'failure codes without a row in docs/errors.md',
  )
})

test('every preflight code has a row in the "Preflight checks" table of docs/errors.md, with its severity', async () => {
  const { PREFLIGHT_CODES } = await import('../../src/domain/preflight.ts')
  const text = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')
  const section = text.slice(
    text.indexOf('## Preflight checks'),
    text.indexOf('\n## ', text.indexOf('## Preflight checks') + 1),
  )
  const rows = new Map<string, string>()
  for (const line of section.split('\n')) {
    const cells = line.match(/^\| `(\w+)` \| ([^|]+) \|/)
    if (cells) rows.set(cells[1] as string, (cells[2] as string).trim())
  }
  assert.deepEqual(
    PREFLIGHT_CODES.filter((code) => !rows.has(code)),
    [],
    'preflight codes without a row in docs/errors.md',
  )
  for (const [code, severity] of rows) assert.match(severity, /^(error|warning|error or warning)$/, code)
})
