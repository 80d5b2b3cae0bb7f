import { AS_NORMALISED } from '../config-port.js';
import type { KindModule } from '../kind-module.js';
import { ACCOUNT_DIGEST, ACCOUNT_EXPORT } from './export.js';
import { normaliseAccountSection } from './normalise.js';
import { ACCOUNT_PLAN } from './plan.js';
import { ACCOUNT_READ, accountSettingsToRead } from './read.js';
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
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: ACCOUNT_PLAN,
  changeSection: { resource: 'account', rank: 0 },
  // Its part of the live state: read, digest, export (live/, plan/digest.ts, report/export.ts).
  readScope: accountSettingsToRead,
  read: ACCOUNT_READ,
  digest: ACCOUNT_DIGEST,
  export: ACCOUNT_EXPORT,
} as const satisfies KindModule;
