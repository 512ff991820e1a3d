// Rewrites sdk/src/openapi.ts from the server's OpenAPI document (`npm run sdk:generate`); see sdk-types.ts.
import { writeFileSync } from 'node:fs'
import { generateSdkTypes, SDK_TYPES_FILE } from './sdk-types.ts'

writeFileSync(SDK_TYPES_FILE, await generateSdkTypes())
console.log(`wrote ${SDK_TYPES_FILE}`)
