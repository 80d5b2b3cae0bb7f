import { type GuideId, guideIdFrom } from '../core/desired.js';

/** The identity keys of a guide on the wire: exactly one of `guide_account` and `guide_openid`. */
export function wireGuideIdentity(id: GuideId): { guide_account: string } | { guide_openid: string } {
  return id.kind === 'account' ? { guide_account: id.account } : { guide_openid: id.openid };
}

/** The guide an answer names (by the key it was added with), or undefined when it names none. */
export function guideIdOf(item: {
  readonly guide_account?: unknown;
  readonly guide_openid?: unknown;
}): GuideId | undefined {
  return guideIdFrom(item.guide_account, item.guide_openid);
}
