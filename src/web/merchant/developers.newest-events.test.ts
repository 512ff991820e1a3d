// The newest page of a forward-only feed, found by searching the cursor: whatever the event numbers (gaps from
// other accounts, deleted events), the page after the cursor found is exactly the newest `size` events.
import assert from 'node:assert/strict'
import test from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { newestPageCursor } from './developers.page.ts'

tier('pure')

function feed(ids: number[], size: number) {
  let reads = 0
  return {
    fullPageAfter: async (cursor: number) => {
      reads++
      return ids.filter((id) => id > cursor).length >= size
    },
    pageAfter: (cursor: number) => ids.filter((id) => id > cursor).slice(0, size),
    reads: () => reads,
  }
}

test('the page after the cursor found is the newest events, whatever the gaps between their numbers', async () => {
  const size = 20
  let seed = 7
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed / 2 ** 31
  }
  for (const count of [21, 40, 57, 300]) {
    for (const gap of [1, 5, 1000]) {
      const ids: number[] = []
      let id = 0
      for (let index = 0; index < count; index++) {
        id += 1 + Math.floor(random() * gap)
        ids.push(id)
      }
      const f = feed(ids, size)
      const firstPageLast = ids[size - 1] as number
      const cursor = await newestPageCursor(f.fullPageAfter, firstPageLast)
      assert.deepEqual(f.pageAfter(cursor), ids.slice(-size), `${count} events, gaps up to ${gap}`)
      assert.ok(f.reads() <= 2 * Math.log2(id) + 2, `${f.reads()} reads for event numbers up to ${id}`)
    }
  }
})

test('exactly one full page more than the first: the cursor is the first event of the first page', async () => {
  const ids = Array.from({ length: 21 }, (_, index) => 100 + index)
  const f = feed(ids, 20)
  const cursor = await newestPageCursor(f.fullPageAfter, 119)
  assert.deepEqual(f.pageAfter(cursor), ids.slice(1))
})

test('a probe that fails reads as "not full", so the search ends', async () => {
  const cursor = await newestPageCursor(async () => false, 50)
  assert.equal(cursor, 0)
})
