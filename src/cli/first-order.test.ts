import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { firstOrderCommands } from './first-order.ts'

tier('pure')

test("README.md's first order is exactly what serve prints on the default ports", () => {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')
  const block = firstOrderCommands('http://127.0.0.1:8081', 'pr_sandbox_...')
  assert.ok(readme.includes(`\`\`\`sh\n${block}\n\`\`\``), 'update the README block from firstOrderCommands()')
})

test('the first order is valid JSON naming a sample on the Sandbox it is printed for', () => {
  const lines = firstOrderCommands('http://127.0.0.1:9999', 'pr_sandbox_x').split('\n')
  const body = lines.join('\n').match(/-d '([\s\S]*?)'\n/)?.[1]
  assert.ok(body)
  const order = JSON.parse(body)
  assert.equal(order.items[0].assets[0].url, 'http://127.0.0.1:9999/samples/portrait.jpg')
  assert.equal(order.idempotencyKey, order.merchantReference)
  assert.equal(lines[0], 'KEY=pr_sandbox_x')
})
