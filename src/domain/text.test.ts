import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { refusedCharacter } from './text.ts'

tier('pure')

test('free text refuses NUL and the other control characters but keeps tab and line breaks', () => {
  for (const text of ['Ada Lovelace', 'Flat 2\nHouse', 'a\tb', 'a\r\nb', 'Zoë 東京 🎨', '']) {
    assert.equal(refusedCharacter(text, false), undefined, JSON.stringify(text))
  }
  assert.equal(refusedCharacter('a\u0000b', false), 'U+0000')
  assert.equal(refusedCharacter('\u0001', false), 'U+0001')
  assert.equal(refusedCharacter('a\u001bb', false), 'U+001B')
  assert.equal(refusedCharacter('a\u007f', false), 'U+007F')
  assert.equal(refusedCharacter('a\u0085', false), 'U+0085')
  assert.equal(refusedCharacter('\u009f', false), 'U+009F')
})

test('single-line text refuses every control character, tab and line breaks included', () => {
  for (const [text, named] of [
    ['a\tb', 'U+0009'],
    ['a\nb', 'U+000A'],
    ['a\rb', 'U+000D'],
    ['a\u0000b', 'U+0000'],
  ] as const) {
    assert.equal(refusedCharacter(text, true), named)
  }
  assert.equal(refusedCharacter('idem-1 key with spaces', true), undefined)
})

test('a lone surrogate is refused and a proper pair is not', () => {
  assert.equal(refusedCharacter('a\ud800b', false), 'U+D800')
  assert.equal(refusedCharacter('a\udc00', true), 'U+DC00')
  assert.equal(refusedCharacter('\ud83c\udfa8', true), undefined)
  assert.equal(refusedCharacter('\ud83c\udfa8\ud83c', false), 'U+D83C')
})
