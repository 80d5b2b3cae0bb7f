import type { DesiredGuide } from '../../core/desired.js';
import type { WrittenGuide } from '../../core/written.js';
import { normaliseWelcome } from '../welcome.js';

/** A guide's quick replies and welcome messages as written, once checked. */
export function normaliseGuideConfig(written: WrittenGuide): Pick<DesiredGuide, 'quickReplies' | 'welcome'> {
  return {
    ...(written.quick_replies === undefined ? {} : { quickReplies: [...written.quick_replies] }),
    ...(written.welcome === undefined ? {} : { welcome: written.welcome.map(normaliseWelcome) }),
  };
}
