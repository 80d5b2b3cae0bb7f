import type { KindModule } from '../kind-module.js';
import { MEMBERSHIP_MESSAGES } from './rules.js';
import { MEMBERSHIP_SCHEMA } from './schema.js';
import { MEMBERSHIP_WRITES } from './writes.js';

/** The group's members kind, as the registry lists it. */
export const MEMBERSHIP_KIND = {
  schema: MEMBERSHIP_SCHEMA,
  messages: MEMBERSHIP_MESSAGES,
  writes: MEMBERSHIP_WRITES,
} as const satisfies KindModule;
