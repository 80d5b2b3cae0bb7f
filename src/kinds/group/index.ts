import type { KindModule } from '../kind-module.js';
import { GROUP_MESSAGES } from './rules.js';
import { GROUP_SCHEMA } from './schema.js';
import { GROUP_WRITES } from './writes.js';

/** The guide group kind, as the registry lists it. */
export const GROUP_KIND = {
  schema: GROUP_SCHEMA,
  messages: GROUP_MESSAGES,
  writes: GROUP_WRITES,
} as const satisfies KindModule;
