import { quote } from '../../core/diagnostics.js';
import {
  APPID_HEX_DIGITS,
  MEDIA_ID_MAX_CHARS,
  MEDIA_ID_RULE,
  UNKNOWN_MEDIA_ID,
} from '../../core/guide-rules.js';
import {
  countChars,
  emptyText,
  itemCount,
  listKeys,
  messageWord,
  type SchemaMessages,
  textTooLong,
} from '../../core/schema-messages.js';

/**
 * A guide's configuration's value rules, in words: quick replies and welcome messages (a task's
 * materials take the welcome messages' words, in the material's name).
 */

/** For a list of welcome messages longer than WeChat sends, a guide's or the account's. */
export const WELCOME_TOO_MANY_HINT = 'WeChat sends the first and the second message only; remove the others';

/** The words for a guide's configuration's values that break the schema fragment (`schema.ts`), by `$defs name/keyword`. */
export const GUIDE_CONFIG_MESSAGES: SchemaMessages = {
  'quickReplies/maxItems': ({ data, limit }) => ({
    code: 'quick-replies-too-many',
    message: `a guide holds at most ${limit} quick replies; this one has ${itemCount(data)}`,
    hint: `keep the ${limit} the guide needs most and remove the others`,
  }),
  'quickReply/minLength': emptyText('quick-reply-empty', 'a quick reply', 'remove it or write its text'),
  'welcome/maxItems': ({ data, limit }) => ({
    code: 'welcome-too-many',
    message: `a guide has at most ${limit} welcome messages; this one has ${itemCount(data)}`,
    hint: WELCOME_TOO_MANY_HINT,
  }),
  'welcomeMessage/minProperties': ({ path }) => ({
    code: 'welcome-form-missing',
    message: `this ${messageWord(path)} is empty; it needs one of "text", "image" or "miniprogram"`,
    hint: 'for example: - text: "Welcome!"',
  }),
  'welcomeMessage/maxProperties': ({ data, path }) => ({
    code: 'welcome-form-multiple',
    message: `a ${messageWord(path)} has exactly one of "text", "image" or "miniprogram"; this one has ${listKeys(data)}`,
    hint: 'make each of them its own entry of the list (each starting with "- ")',
  }),
  'welcomeText/minLength': (ctx) =>
    emptyText('welcome-text-empty', `the text of this ${messageWord(ctx.path)}`)(ctx),
  'mediaId/pattern': ({ data, name }) => ({
    code: 'media-id-invalid',
    message:
      data === ''
        ? `${name} is empty; it must be a media id`
        : `invalid media id: ${name} is ${quote(data)}${countChars(data) > MEDIA_ID_MAX_CHARS ? ` (${countChars(data)} characters)` : ''}; ${MEDIA_ID_RULE}`,
    hint: 'write the media id returned when the material was uploaded',
  }),
  'mediaId/not': ({ name }) => ({
    code: 'media-id-placeholder',
    message: `${name} is ${UNKNOWN_MEDIA_ID}, the placeholder that export writes: replace the placeholder with the media id of ${name === '"image"' ? 'the image' : "the card's cover"}`,
    hint: "the API does not read a card's cover back, so export cannot know it; upload the cover and write its media id",
  }),
  'appid/pattern': ({ data }) => ({
    code: 'appid-invalid',
    message: `appid ${quote(data)} is not a mini-program appid`,
    hint: `an appid is "wx" followed by ${APPID_HEX_DIGITS} lowercase hexadecimal digits, such as wx1234567890abcdef`,
  }),
  'miniprogramTitle/minLength': emptyText('miniprogram-title-empty', 'the title of the mini-program card'),
  'miniprogramTitle/maxLength': textTooLong('miniprogram-title-too-long', 'title'),
  'miniprogramPath/minLength': emptyText(
    'miniprogram-path-empty',
    'the path of the mini-program card',
    'write the page to open, such as pages/index/index',
  ),
};
