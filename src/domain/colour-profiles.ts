// The CMYK ICC profiles printroute ships (profiles/ at the repository's root, docs/print-files.md#colour): the names a
// catalogue's `colour.profile` may give, and the file each conversion uses. sharp converts with the perceptual
// intent and without black-point compensation, whatever is asked (its libvips call is fixed), so every other
// intent and compensation comes from a profile of its own made from the named one by scripts/make-cmyk-profiles.ts:
// the same colorant tables (A2B*), the perceptual table (B2A0) replaced by the named intent's conversion.
import type { RenderingIntent } from './print-specs.ts'

export interface CmykProfileInfo {
  /** The profile's file in profiles/, as the named intent (perceptual, no compensation) is made with it. */
  readonly file: string
  /** For people: the printing condition it describes. */
  readonly description: string
}

/** Profile name -> its file. The catalogue refuses any other name. */
export const CMYK_PROFILES: Readonly<Record<string, CmykProfileInfo>> = {
  'printroute-fogra39': {
    file: 'printroute-fogra39.icc',
    description: 'Offset on coated paper (ISO 12647-2, FOGRA39 characterisation data), 330% total ink',
  },
}

export const CMYK_PROFILE_NAMES: readonly string[] = Object.keys(CMYK_PROFILES)

/**
 * The file a conversion with `intent` and `blackPointCompensation` runs through: the named profile itself for
 * perceptual without compensation (the conversion sharp makes), otherwise its variant with the intent baked into
 * the perceptual table (`printroute-fogra39.relative-bpc.icc`). lcms ignores compensation for absolute colorimetric,
 * and so does the catalogue (it refuses the pair).
 */
export function cmykProfileFile(name: string, intent: RenderingIntent, blackPointCompensation: boolean): string {
  const info = CMYK_PROFILES[name]
  if (!info) throw new RangeError(`unknown CMYK profile ${name}`)
  if (intent === 'perceptual' && !blackPointCompensation) return info.file
  const base = info.file.replace(/\.icc$/, '')
  return `${base}.${intent}${blackPointCompensation ? '-bpc' : ''}.icc`
}

/** Every file of one profile: the named one and its variants, as the script makes and the tests check them. */
export function cmykProfileFiles(name: string): string[] {
  const intents: readonly RenderingIntent[] = ['perceptual', 'relative', 'saturation', 'absolute']
  const files = new Set<string>()
  for (const intent of intents) {
    files.add(cmykProfileFile(name, intent, false))
    if (intent !== 'absolute') files.add(cmykProfileFile(name, intent, true))
  }
  return [...files]
}
