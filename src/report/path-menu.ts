import { describeGuideId, type GuideId } from '../core/desired.js';
import { escapeControls } from './escape.js';

/** What `guidectl path-menu` says once the menu is sent. */
export function pathMenuSentNotice(appid: string, guide: GuideId): string {
  return `Sent the page-path menu of ${escapeControls(appid)} to ${describeGuideId(guide)}: they may copy its page paths for 60 days.\n`;
}
