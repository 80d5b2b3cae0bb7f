import type { KindModule } from '../kind-module.js';
import { MEMBERSHIP_PLAN } from './plan.js';
import { groupMembersToRead } from './read.js';
import { MEMBERSHIP_MESSAGES } from './rules.js';
import { MEMBERSHIP_SCHEMA } from './schema.js';
import { MEMBERSHIP_WRITES } from './writes.js';

/** The group's members kind, as the registry lists it. */
export const MEMBERSHIP_KIND = {
  schema: MEMBERSHIP_SCHEMA,
  messages: MEMBERSHIP_MESSAGES,
  writes: MEMBERSHIP_WRITES,
  // Config and the desired digest: members are written inside their groups, so the group kind's.
  check: { partOf: 'group' },
  normalise: { partOf: 'group' },
  desiredDigest: { partOf: 'group' },
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: MEMBERSHIP_PLAN,
  changeSection: { partOf: 'group' },
  // Its part of the live state: read, digest, export (live/, plan/digest.ts, report/export.ts).
  readScope: (desired) => ({ groupMembers: groupMembersToRead(desired) }),
  read: { partOf: 'group' },
  digest: { partOf: 'group' },
  export: { partOf: 'group' },
} as const satisfies KindModule;
