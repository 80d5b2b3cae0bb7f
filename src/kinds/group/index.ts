import type { KindModule } from '../kind-module.js';
import { digestDesiredGroups } from './export.js';
import { normaliseGroupSection } from './normalise.js';
import { GROUP_PLAN } from './plan.js';
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
} as const satisfies KindModule;
