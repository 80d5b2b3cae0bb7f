import { type DesiredGuide, type GuideId, guideIdFrom, type SourceRef } from '../../core/desired.js';
import type { WrittenGuide } from '../../core/written.js';
import { normaliseGuideConfig } from '../guide-config/normalise.js';

/** A guide as written, once checked, with its configuration. */
export function normaliseGuide(written: WrittenGuide, source: SourceRef): DesiredGuide {
  return {
    id: guideIdOf(written),
    nickname: written.nickname,
    headImageUrl: written.head_image_url,
    ...normaliseGuideConfig(written),
    source,
  };
}

function guideIdOf(written: WrittenGuide): GuideId {
  const id = guideIdFrom(written.account, written.openid);
  // The schema's oneOf (and its patterns) make this unreachable.
  if (id === undefined)
    throw new Error('normalise: a guide with neither account nor openid passed the schema');
  return id;
}
