import type { DesiredState } from '../../core/desired.js';
import type { LiveAccount, LiveReadScope } from '../../core/live.js';
import { welcomeOf } from '../guide-config/read.js';
import type { KindRead } from '../live-read.js';
import type { ReadPort } from '../read-port.js';

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

/**
 * The account settings in `scope`: the offline reply and sensitive words from one read of the
 * account's configuration, the default welcome from the configuration of no guide.
 */
export async function readAccount(
  read: ReadPort<'getguideacctconfig' | 'getguideconfig'>,
  scope: Pick<LiveReadScope, 'offlineAutoReply' | 'sensitiveWords' | 'defaultWelcome'>,
): Promise<LiveAccount> {
  const acct =
    scope.offlineAutoReply || scope.sensitiveWords
      ? read('getguideacctconfig', {})
      : Promise.resolve(undefined);
  const welcome = scope.defaultWelcome ? read('getguideconfig', {}) : Promise.resolve(undefined);
  const [config, defaults] = await Promise.all([acct, welcome]);
  return {
    ...(scope.offlineAutoReply && config !== undefined
      ? { offlineAutoReply: config.guide_auto_reply?.content ?? null }
      : {}),
    ...(scope.sensitiveWords && config !== undefined
      ? { sensitiveWords: [...config.black_keyword.values] }
      : {}),
    ...(defaults === undefined ? {} : { defaultWelcome: welcomeOf(defaults) }),
  };
}

/** The account settings in scope, read once for the account. */
export const ACCOUNT_READ: KindRead = {
  once: async (context, draft) => {
    draft.account = await context.start((port) => readAccount(port, context.scope));
  },
};
