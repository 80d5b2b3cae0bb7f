import type { GuideId } from '../core/desired.js';

/** `guidectl qrcode --json`: `{"format_version": 1, "guide_account"|"guide_openid", "qrcode_url"}`. */
export function qrcodeToJson(guide: GuideId, url: string): object {
  return {
    format_version: 1,
    ...(guide.kind === 'account' ? { guide_account: guide.account } : { guide_openid: guide.openid }),
    qrcode_url: url,
  };
}
