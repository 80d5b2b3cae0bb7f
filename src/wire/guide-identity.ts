import type { GuideId } from '../core/desired.js';

/** The identity keys of a guide on the wire: exactly one of `guide_account` and `guide_openid`. */
export function wireGuideIdentity(id: GuideId): { guide_account: string } | { guide_openid: string } {
  return id.kind === 'account' ? { guide_account: id.account } : { guide_openid: id.openid };
}

/** The guide an answer names (by the key it was added with), or undefined when it names none. */
export function guideIdOf(item: {
  readonly guide_account?: string;
  readonly guide_openid?: string;
}): GuideId | undefined {
  if (item.guide_account !== undefined && item.guide_account !== '')
    return { kind: 'account', account: item.guide_account };
  if (item.guide_openid !== undefined && item.guide_openid !== '')
    return { kind: 'openid', openid: item.guide_openid };
  return undefined;
}
