import { AS_NORMALISED } from '../config-port.js';
import type { KindModule } from '../kind-module.js';
import { normaliseAccountSection } from './normalise.js';
import { ACCOUNT_MESSAGES, checkAccountRules } from './rules.js';
import { ACCOUNT_SCHEMA } from './schema.js';
import { ACCOUNT_WRITES } from './writes.js';

/** The account's own settings (offline reply, sensitive words, default welcome) kind, as the registry lists it. */
export const ACCOUNT_KIND = {
  schema: ACCOUNT_SCHEMA,
  messages: ACCOUNT_MESSAGES,
  writes: ACCOUNT_WRITES,
  // Config and the desired digest.
  check: checkAccountRules,
  normalise: normaliseAccountSection,
  desiredDigest: AS_NORMALISED,
} as const satisfies KindModule;
