import type { WelcomeMessage } from '../core/desired.js';
import type { LiveMaterial, LiveWelcome } from '../core/live.js';
import type { JsonValue } from '../core/plan-data.js';
import type { WrittenWelcome } from '../core/written.js';

/**
 * Welcome messages compared by meaning: text by its text, an image by its media id, a card by
 * appid, title and path — a card's `media_id` cannot be read back, so a changed cover alone is
 * not seen.
 */
export function sameWelcome(desired: WelcomeMessage, live: LiveWelcome): boolean {
  switch (desired.type) {
    case 'text':
      return live.type === 'text' && live.text === desired.text;
    case 'image':
      return live.type === 'image' && live.mediaId === desired.mediaId;
    case 'miniprogram':
      return (
        live.type === 'miniprogram' &&
        live.appid === desired.appid &&
        live.title === desired.title &&
        live.path === desired.path
      );
    default: {
      const unreachable: never = desired;
      return unreachable;
    }
  }
}

export function sameWelcomeList(desired: readonly WelcomeMessage[], live: readonly LiveWelcome[]): boolean {
  return (
    desired.length === live.length &&
    desired.every((d, i) => live[i] !== undefined && sameWelcome(d, live[i]))
  );
}

/** The auto reply of the wire for a welcome message: `{msgtype, content}`. */
export function welcomeToWire(message: WelcomeMessage): { msgtype: number; content: string } {
  switch (message.type) {
    case 'text':
      return { msgtype: 1, content: message.text };
    case 'image':
      return { msgtype: 2, content: message.mediaId };
    case 'miniprogram':
      return {
        msgtype: 3,
        content: JSON.stringify({
          media_id: message.mediaId,
          title: message.title,
          path: message.path,
          appid: message.appid,
        }),
      };
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

/**
 * A welcome message or a task's material (the same kinds, `TaskMaterial` is `WelcomeMessage`) as
 * the file writes it, for showing changes; an image of a task read back shows its picture URL.
 */
export function messageToJson(message: WelcomeMessage | LiveWelcome | LiveMaterial): JsonValue {
  switch (message.type) {
    case 'text':
      return { text: message.text };
    case 'image':
      return 'mediaId' in message ? { image: message.mediaId } : { image: { pic_url: message.picUrl } };
    case 'miniprogram':
      return {
        miniprogram: {
          appid: message.appid,
          title: message.title,
          path: message.path,
          ...('mediaId' in message ? { media_id: message.mediaId } : {}),
        },
      };
    case 'unknown':
      return { unknown: { msgtype: message.msgtype, content: message.content } };
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

/** A welcome message or a task's material as written, as the planner compares it. */
export function normaliseWelcome(written: WrittenWelcome): WelcomeMessage {
  if ('text' in written) return { type: 'text', text: written.text };
  if ('image' in written) return { type: 'image', mediaId: written.image };
  const { appid, title, path, media_id } = written.miniprogram;
  return { type: 'miniprogram', appid, title, path, mediaId: media_id };
}
