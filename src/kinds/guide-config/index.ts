import type { KindModule } from '../kind-module.js';
import { GUIDE_CONFIG_PLAN } from './plan.js';
import { GUIDE_CONFIG_READ, guideConfigsToRead } from './read.js';
import { GUIDE_CONFIG_MESSAGES } from './rules.js';
import { GUIDE_CONFIG_SCHEMA } from './schema.js';
import { GUIDE_CONFIG_WRITES } from './writes.js';

/** The guide's quick replies and welcome messages kind, as the registry lists it. */
export const GUIDE_CONFIG_KIND = {
  schema: GUIDE_CONFIG_SCHEMA,
  messages: GUIDE_CONFIG_MESSAGES,
  writes: GUIDE_CONFIG_WRITES,
  // Config and the desired digest: a configuration is written inside its guide, so the guide kind's.
  check: { partOf: 'guide' },
  normalise: { partOf: 'guide' },
  desiredDigest: { partOf: 'guide' },
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: GUIDE_CONFIG_PLAN,
  changeSection: { partOf: 'guide' },
  // Its part of the live state: read, digest, export (live/, plan/digest.ts, report/export.ts).
  readScope: (desired) => ({ guideConfigs: guideConfigsToRead(desired) }),
  read: GUIDE_CONFIG_READ,
  digest: { partOf: 'guide' },
  export: { partOf: 'guide' },
} as const satisfies KindModule;
