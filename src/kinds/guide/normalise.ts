import { type DesiredGuide, type GuideId, guideIdFrom, type SourceRef } from '../../core/desired.js';
import type { WrittenGuide } from '../../core/written.js';
import { type DesiredParts, entrySourceOf, type NormaliseFile, sourceOf } from '../config-port.js';
import { normaliseGuideConfig } from '../guide-config/normalise.js';

/** The guide kind's normalising of one file: its guides in the environment, and those it protects. */
export function normaliseGuideSection({ parsed, written, exists }: NormaliseFile, into: DesiredParts): void {
  (written.guides ?? []).forEach((guide, index) => {
    if (!exists(guide)) return;
    const desired = normaliseGuide(guide, sourceOf(parsed, ['guides', index]));
    into.guides.push(desired);
    if (guide.protected === true)
      into.protectGuide(desired.id, entrySourceOf(parsed, ['guides', index, 'protected'], 'key'));
  });
}

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
