import { quote } from './diagnostics.js';

/**
 * The rules and limits of the guide API on the values a user writes, in one home: the service
 * (`service/`) enforces them on requests and the desired-state check (`config/` and the schema
 * file, which a test holds to these constants) reports them before any call is made, so that a
 * file that validates is never refused by the service for its values.
 *
 * Invariants: each pattern is anchored (`^…$`) and its `source` is exactly the `pattern` of the
 * matching `$defs` entry of `schema/guidectl.schema.json` (where `/` need not be written `\/`);
 * lengths count code points, as WeChat does.
 */

/** A WeChat ID (`guide_account`, `wx_username`): 6–20 characters, a letter first, then letters, digits, `_`, `-`. */
export const WECHAT_ID_MIN_CHARS = 6;
export const WECHAT_ID_MAX_CHARS = 20;
export const WECHAT_ID = new RegExp(
  `^[A-Za-z][A-Za-z0-9_-]{${WECHAT_ID_MIN_CHARS - 1},${WECHAT_ID_MAX_CHARS - 1}}$`,
);
/** The shape of a WeChat ID in words, as the schema's descriptions state it. */
export const WECHAT_ID_SHAPE = `${WECHAT_ID_MIN_CHARS} to ${WECHAT_ID_MAX_CHARS} characters, a letter first, then letters, digits, \`_\` or \`-\``;
/** The rule of {@link WECHAT_ID} in words, for messages. */
export const WECHAT_ID_RULE = `a WeChat ID has ${WECHAT_ID_MIN_CHARS} to ${WECHAT_ID_MAX_CHARS} characters: a letter first, then letters, digits, "_" or "-"`;

/** The longest openid or unionid, in characters. */
export const OPENID_MAX_CHARS = 64;
/** An openid or unionid (`guide_openid`): 1–64 letters, digits, `_` and `-`. */
export const OPENID = new RegExp(`^[A-Za-z0-9_-]{1,${OPENID_MAX_CHARS}}$`);
/** The rule of {@link OPENID} in words, for messages. */
export const OPENID_RULE = `an openid has 1 to ${OPENID_MAX_CHARS} letters, digits, "_" or "-"`;

/** The name customers see (`guide_nickname`), in code points. */
export const NICKNAME_MAX_CHARS = 16;
/** The profile picture (`guide_headimgurl`): an http(s) URL of at most this many code points. */
export const HEAD_IMAGE_URL_MAX_CHARS = 2048;

/**
 * The shape of a profile picture's address: http(s), in any case, then no white space (which `new
 * URL` would trim or percent-encode, so that what is read back differs from what was written).
 */
export const HEAD_IMAGE_URL = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/\S+$/;

/**
 * Whether a profile picture's address is one the service takes: of {@link HEAD_IMAGE_URL}'s shape,
 * and a URL that parses. The schema states the shape, so a file and the service agree both ways:
 * what the service holds, `export` writes as a file that validates.
 */
export function isHttpUrl(text: string): boolean {
  if (!HEAD_IMAGE_URL.test(text)) return false;
  try {
    const url = new URL(text);
    // An http(s) URL without a host does not parse, so the scheme is all there is left to check.
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Whether a text that is meant to be a URL holds a user or password (an `@` before the path): such
 * a text is never shown in a message, in case the password is real.
 */
export function hasUserInfo(text: string): boolean {
  const authority = text.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '').split(/[/?#]/, 1)[0] ?? '';
  return authority.includes('@');
}

/** The longest media id, in characters. */
export const MEDIA_ID_MAX_CHARS = 128;
/** A media id (an image message, a card's cover): 1–128 letters, digits, `_` and `-`. */
export const MEDIA_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MEDIA_ID_MAX_CHARS}}$`);
/** The rule of {@link MEDIA_ID} in words, for messages. */
export const MEDIA_ID_RULE = `a media id has 1 to ${MEDIA_ID_MAX_CHARS} letters, digits, "_" or "-"`;
/** The lowercase hexadecimal digits of a mini-program appid after its `wx`. */
export const APPID_HEX_DIGITS = 16;
/** A mini-program appid: `wx` and {@link APPID_HEX_DIGITS} lowercase hexadecimal digits. */
export const APPID = new RegExp(`^wx[0-9a-f]{${APPID_HEX_DIGITS}}$`);
/** The title of a mini-program card, in code points. */
export const CARD_TITLE_MAX_CHARS = 35;
/** Welcome messages (auto replies) of one guide or of the account: `guide_auto_reply` and `_plus`. */
export const MAX_WELCOME_MESSAGES = 2;

/**
 * The largest request body, in bytes, that `guidectl serve` takes (45002 past it; WeChat documents
 * no limit): the planner splits what it can append in several calls and refuses the rest.
 */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** The offline auto reply of the account, in code points. */
export const OFFLINE_REPLY_MAX_CHARS = 300;
/** Most quick replies one guide holds. */
export const MAX_QUICK_REPLIES = 1_000;
/** Most sensitive words (`black_keyword`) of an account (errcode 9300814 past it). */
export const MAX_SENSITIVE_WORDS = 1_000;
/** Most guides of an account (errcode 9300812 past it). */
export const MAX_GUIDES = 100_000;
/** A guide group's name, in code points. */
export const GROUP_NAME_MAX_CHARS = 64;

/** A mass-send task's name (`task_name`), in code points. */
export const TASK_NAME_MAX_CHARS = 16;
/** A mass-send task's remark (`task_remark`), in code points. */
export const TASK_REMARK_MAX_CHARS = 100;
/** Most materials of one mass-send task. */
export const MAX_TASK_MATERIALS = 3;
/** A text material's `word`, in UTF-8 bytes (not characters: the API counts bytes here). */
export const MATERIAL_WORD_MAX_BYTES = 300;
/**
 * How far ahead a task's `push_time` may lie: "one month" in the API's words, held as 30 days, so
 * that the window does not depend on the calendar or a time zone. Now itself is allowed.
 */
export const PUSH_WINDOW_SECONDS = 30 * 86_400;

/**
 * What `guidectl export` writes as a mini-program card's `media_id`: the API does not read a
 * card's cover back. It is a valid media id in form, so the desired-state check refuses it by name.
 */
export const UNKNOWN_MEDIA_ID = 'UNKNOWN_MEDIA_ID';

/** Characters as WeChat counts them: Unicode code points. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Why `id` is not a WeChat ID, as the end of a sentence that names it ("starts with "1"", "has 2
 * characters"); undefined when it is one.
 */
export function explainWechatId(id: string): string | undefined {
  if (WECHAT_ID.test(id)) return undefined;
  const chars = [...id];
  if (chars.length < WECHAT_ID_MIN_CHARS || chars.length > WECHAT_ID_MAX_CHARS) {
    return `has ${chars.length} character${chars.length === 1 ? '' : 's'}`;
  }
  if (!/^[A-Za-z]/.test(id)) return `starts with ${JSON.stringify(chars[0] ?? '')}, not a letter`;
  const bad = chars.find((c) => !/^[A-Za-z0-9_-]$/.test(c)) ?? '';
  return `contains ${bad === ' ' ? 'a space' : JSON.stringify(bad)}`;
}

/** The service's words for a value that is not a WeChat ID, with the reason and the rule. */
export function wechatIdMessage(what: string, data: unknown): string {
  const id = typeof data === 'string' ? data : String(data);
  const reason = explainWechatId(id) ?? 'is not one';
  return `invalid WeChat ID: ${what} ${quote(id)} ${reason}; ${WECHAT_ID_RULE}`;
}

/**
 * Half of a surrogate pair without its other half, which only an escape (`"\ud800"`) can write:
 * not a character, so no text may hold one (WeChat would store U+FFFD). Under the `u` flag a pair
 * is one code point, which `\p{Cs}` does not match. The file's check and the service's both use it.
 */
export const LONE_SURROGATE = /\p{Cs}/u;
