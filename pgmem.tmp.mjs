import { PGlite } from '@electric-sql/pglite'
import { readFileSync } from 'node:fs'
const mem = (l) => { const s = readFileSync('/proc/self/status','utf8'); const g=(k)=>Math.round(Number(s.match(new RegExp(k+':\\s+(\\d+)'))[1])/1024); console.log(l, 'rss', g('VmRSS'), 'hwm', g('VmHWM'), 'heap', Math.round(process.memoryUsage().heapUsed/1e6), 'ext', Math.round(process.memoryUsage().external/1e6), 'ab', Math.round(process.memoryUsage().arrayBuffers/1e6)) }
mem('start')
const opts = process.argv[3] ? JSON.parse(process.argv[3]) : {}
const db = new PGlite(process.argv[2], opts)
await db.waitReady
mem('ready')
await db.query('select 1')
globalThis.gc?.(); await new Promise(r=>setTimeout(r,500)); globalThis.gc?.()
mem('after gc')
await db.close()
