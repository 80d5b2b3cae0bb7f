import { UNKNOWN_MEDIA_ID } from '../../core/guide-rules.js';
import type { LiveGuideConfig, LiveWelcome } from '../../core/live.js';
import type { CardMediaId } from '../live-part.js';

/**
 * Welcome messages as the files write them (`where` names them in warnings). A card the files do
 * not give a media id for gets {@link UNKNOWN_MEDIA_ID}, which validate refuses until replaced; a
 * message of a type this version does not understand is left out. Each is said in `warnings`.
 */
export function exportWelcome(
  messages: readonly LiveWelcome[],
  where: string,
  warnings: string[],
  cardMediaId: CardMediaId,
): object[] {
  return messages.flatMap((m): object[] => {
    switch (m.type) {
      case 'text':
        return [{ text: m.text }];
      case 'image':
        return [{ image: m.mediaId }];
      case 'miniprogram': {
        const known = cardMediaId(m);
        if (known === undefined) {
          warnings.push(
            `${where}: a mini-program card's media_id cannot be read back; ${UNKNOWN_MEDIA_ID} stands in its place; validate, plan and apply refuse the file until it is replaced with the media id of the card's cover`,
          );
        }
        const mediaId = known ?? UNKNOWN_MEDIA_ID;
        return [{ miniprogram: { appid: m.appid, title: m.title, path: m.path, media_id: mediaId } }];
      }
      case 'unknown':
        warnings.push(
          `${where}: a welcome message of msgtype ${m.msgtype} is not understood and was left out`,
        );
        return [];
      default: {
        const unreachable: never = m;
        return unreachable;
      }
    }
  });
}

/** A guide's configuration as its entry in the files writes it (nothing when it was not read). */
export function exportGuideConfig(
  config: LiveGuideConfig | undefined,
  where: string,
  warnings: string[],
  cardMediaId: CardMediaId,
): object {
  if (config === undefined) return {};
  return {
    quick_replies: [...config.quickReplies],
    welcome: exportWelcome(config.welcome, where, warnings, cardMediaId),
  };
}
