import type { KindModule } from '../kind-module.js';
import { readWhole } from '../live-read.js';
import { digestDesiredGuides, GUIDE_DIGEST, GUIDE_EXPORT } from './export.js';
import { normaliseGuideSection } from './normalise.js';
import { GUIDE_PLAN } from './plan.js';
import { GUIDE_READ } from './read.js';
import { checkGuideRules, GUIDE_MESSAGES } from './rules.js';
import { GUIDE_SCHEMA } from './schema.js';
import { GUIDE_WRITES } from './writes.js';

/** The guide profile (nickname, head image, …) kind, as the registry lists it. */
export const GUIDE_KIND = {
  schema: GUIDE_SCHEMA,
  messages: GUIDE_MESSAGES,
  writes: GUIDE_WRITES,
  // Config and the desired digest.
  check: checkGuideRules,
  normalise: normaliseGuideSection,
  desiredDigest: digestDesiredGuides,
  // Planning: its steps of a plan, and where its changes go in the plan's output.
  plan: GUIDE_PLAN,
  changeSection: { resource: 'guide', rank: 2 },
  // Its part of the live state: read, digest, export (live/, plan/digest.ts, report/export.ts).
  readScope: readWhole,
  read: GUIDE_READ,
  digest: GUIDE_DIGEST,
  export: GUIDE_EXPORT,
} as const satisfies KindModule;
