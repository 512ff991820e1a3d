import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { escapeHtml, html, raw } from './html.ts'

tier('pure')

test('interpolated text is escaped, Html is kept, arrays are joined and empty values vanish', () => {
  const name = `<script>alert("x")</script> & 'y'`
  const page = html`<p title="${name}">${name}</p>${[html`<i>${1}</i>`, html`<i>${2}</i>`]}${null}${undefined}${false}${raw('<br>')}`
  assert.equal(
    page.text,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">' +
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p><i>1</i><i>2</i><br>',
  )
  assert.equal(escapeHtml('0 < 1'), '0 &lt; 1')
  assert.equal(html`${0}`.text, '0', 'zero is a value, not nothing')
})
