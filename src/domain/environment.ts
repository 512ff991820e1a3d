/** The two environments every account has: Live fulfils and bills; Sandbox never does. */
export type Environment = 'sandbox' | 'live'
