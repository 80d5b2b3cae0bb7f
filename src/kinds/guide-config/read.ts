import { type DesiredState, type GuideId, guideKey } from '../../core/desired.js';
import type { LiveGuideConfig, LiveWelcome } from '../../core/live.js';
import { wireGuideIdentity } from '../../wire/guide-identity.js';
import type { GetGuideConfigAnswer } from '../../wire/messages.js';
import { toWelcome } from '../kind.js';
import type { GuideReads, KindRead, ReadContext } from '../live-read.js';
import type { ReadPort } from '../read-port.js';

/** The keys of the guides whose quick replies or welcome messages the files manage: the configurations read. */
export function guideConfigsToRead(desired: DesiredState): Set<string> {
  return new Set(
    desired.guides
      .filter((g) => g.quickReplies !== undefined || g.welcome !== undefined)
      .map((g) => guideKey(g.id)),
  );
}

/** A guide's quick replies and welcome messages, as read back. */
export async function readGuideConfig(
  read: ReadPort<'getguideconfig'>,
  guide: GuideId,
): Promise<LiveGuideConfig> {
  return toGuideConfig(await read('getguideconfig', wireGuideIdentity(guide)));
}

function toGuideConfig(answer: GetGuideConfigAnswer): LiveGuideConfig {
  return { quickReplies: answer.guide_fast_reply_list.map((r) => r.content), welcome: welcomeOf(answer) };
}

/** The welcome messages of a configuration read back (a guide's, or the account's default). */
export function welcomeOf(answer: GetGuideConfigAnswer): LiveWelcome[] {
  const replies = [answer.guide_auto_reply, answer.guide_auto_reply_plus].filter((r) => r !== undefined);
  return replies.map(toWelcome);
}

/** Each guide's configuration in scope, through the read window; put in the guide once all are read. */
export const GUIDE_CONFIG_READ: KindRead = { perGuide: startGuideConfigReads };

function startGuideConfigReads(context: ReadContext): GuideReads {
  const wanted = context.scope.guideConfigs;
  const configs = new Map<string, Promise<LiveGuideConfig>>();
  return {
    add: (guide, key) => {
      if ((wanted !== 'all' && !wanted.has(key)) || configs.has(key)) return;
      const config = context.startWindowed((port) => readGuideConfig(port, guide));
      configs.set(key, config);
    },
    finish: async (draft) => {
      draft.guides = await Promise.all(
        draft.guides.map(async (guide) => {
          const config = configs.get(guideKey(guide.id));
          return config === undefined ? guide : { ...guide, config: await config };
        }),
      );
    },
  };
}
