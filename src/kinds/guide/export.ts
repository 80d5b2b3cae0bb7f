import { compareText } from '../../core/compare-text.js';
import { type DesiredGuide, type DesiredState, guideKey } from '../../core/desired.js';
import type { LiveGuide } from '../../core/live.js';
import { exportGuideConfig } from '../guide-config/export.js';
import type { CardMediaId, KindDigest, KindExport } from '../live-part.js';

/**
 * A guide as the plan's live digest and fingerprints cover it: its id as a key (`account:x`), its
 * configuration (when read) as read with it.
 */
export type CanonicalGuide = Omit<LiveGuide, 'id'> & { readonly id: string };

export function canonicalGuide(guide: LiveGuide): CanonicalGuide {
  return { ...guide, id: guideKey(guide.id) };
}

/** The guides by key, not in the order the API listed them (each key made once, not per comparison). */
export function canonicalGuides(guides: readonly LiveGuide[]): CanonicalGuide[] {
  return guides.map(canonicalGuide).sort((a, b) => compareText(a.id, b.id));
}

/**
 * The desired guides in the desired digest's order: by key, whatever file or order declared them
 * (each key made once, not per comparison).
 */
export function canonicalDesiredGuides(guides: readonly DesiredGuide[]): DesiredGuide[] {
  return guides
    .map((guide) => ({ guide, key: guideKey(guide.id) }))
    .sort((a, b) => compareText(a.key, b.key))
    .map((e) => e.guide);
}

/** The guide kind's section of the desired digest: the guides in its order. */
export function digestDesiredGuides(desired: DesiredState): Partial<DesiredState> {
  return { guides: canonicalDesiredGuides(desired.guides) };
}

/** Each guide's fingerprint (`hash` of its canonical form), by key. */
export function guideFingerprints(
  guides: readonly LiveGuide[],
  hash: (value: unknown) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const guide of canonicalGuides(guides)) out[guide.id] = hash(guide);
  return out;
}

/** A guide's key as a stale plan's message names the guide: its account, or `openid o…`. */
export function guideAddress(key: string): string {
  return key.startsWith('openid:') ? `openid ${key.slice('openid:'.length)}` : key.slice('account:'.length);
}

/**
 * The guides as the files write them: by account, then those known only by openid, by openid;
 * each with its configuration when it was read.
 */
export function exportGuides(
  guides: readonly LiveGuide[],
  warnings: string[],
  cardMediaId: CardMediaId,
): object[] {
  return [...guides].sort(compareGuides).map((guide) => {
    const id = guide.id.kind === 'account' ? { account: guide.id.account } : { openid: guide.id.openid };
    const name = guide.id.kind === 'account' ? guide.id.account : `openid ${guide.id.openid}`;
    return {
      ...id,
      nickname: guide.nickname,
      head_image_url: guide.headImageUrl,
      ...exportGuideConfig(guide.config, `guide ${name}`, warnings, cardMediaId),
    };
  });
}

function compareGuides(a: LiveGuide, b: LiveGuide): number {
  if (a.id.kind === 'account') return b.id.kind === 'account' ? compareText(a.id.account, b.id.account) : -1;
  return b.id.kind === 'account' ? 1 : compareText(a.id.openid, b.id.openid);
}

/** The guides' part of the live digest and fingerprints: by key, each with its configuration when read. */
export const GUIDE_DIGEST: KindDigest = {
  resource: 'guide',
  canonical: (live) => ({ guides: canonicalGuides(live.guides) }),
  fingerprints: (live, hash) => ({ guides: guideFingerprints(live.guides, hash) }),
  compared: (fingerprints) =>
    new Map(
      Object.entries(fingerprints.guides).map(([key, hash]) => [key, { hash, address: guideAddress(key) }]),
    ),
  decode: (saved, read) => ({ guides: read.strings(saved['guides'], 'live_fingerprints.guides') }),
};

/** The file's `guides` section. */
export const GUIDE_EXPORT: KindExport = {
  write: (live, { warnings, cardMediaId }) => ({ guides: exportGuides(live.guides, warnings, cardMediaId) }),
};
