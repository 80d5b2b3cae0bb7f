import type { DesiredState } from '../../core/desired.js';
import type { LiveReadScope } from '../../core/live.js';

/** The account settings the files manage: the ones read. */
export function accountSettingsToRead(
  desired: DesiredState,
): Pick<LiveReadScope, 'offlineAutoReply' | 'sensitiveWords' | 'defaultWelcome'> {
  return {
    offlineAutoReply: desired.account?.offlineAutoReply !== undefined,
    sensitiveWords: desired.account?.sensitiveWords !== undefined,
    defaultWelcome: desired.account?.defaultWelcome !== undefined,
  };
}
