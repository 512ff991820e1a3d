import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseByteSize } from './byte-size.ts'

test('sizes parse in decimal and binary units', () => {
  assert.equal(parseByteSize('200MB'), 200_000_000)
  assert.equal(parseByteSize('1GiB'), 1024 ** 3)
  assert.equal(parseByteSize('512 kB'), 512_000)
  assert.equal(parseByteSize('4096'), 4096)
  assert.equal(parseByteSize('10mib'), 10 * 1024 ** 2)
})

test('other text is refused with a readable message', () => {
  for (const bad of ['', 'MB', '1.5GB', '-1', '10 parsecs'])
    assert.throws(() => parseByteSize(bad), /is not a size/, bad)
})
