import type { KindModule } from '../kind-module.js';
import { readWhole } from '../live-read.js';
import { digestDesiredGroups, GROUP_DIGEST, GROUP_EXPORT } from './export.js';
import { normaliseGroupSection } from './normalise.js';
import { GROUP_PLAN } from './plan.js';
import { GROUP_READ } from './read.js';
import { checkGroupRules, GROUP_MESSAGES } from './rules.js';
import { GROUP_SCHEMA } from './schema.js';
import { GROUP_WRITES } from './writes.js';

/** The guide group kind, as the registry lists it. */
export const GROUP_KIND = {
  schema: GROUP_SCHEMA,
  messages: GROUP_MESSAGES,
  writes: GROUP_WRITES,
  // Config and the desired digest.
  check: checkGroupRules,
  normalise: normaliseGroupSection,
  desiredDigest: digestDesiredGroups,
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: GROUP_PLAN,
  changeSection: { resource: 'group', rank: 1 },
  // Its part of the live state: read, digest, export (live/, plan/digest.ts, report/export.ts).
  readScope: readWhole,
  read: GROUP_READ,
  digest: GROUP_DIGEST,
  export: GROUP_EXPORT,
} as const satisfies KindModule;
