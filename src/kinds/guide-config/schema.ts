import {
  APPID,
  APPID_HEX_DIGITS,
  CARD_TITLE_MAX_CHARS,
  MAX_QUICK_REPLIES,
  MAX_WELCOME_MESSAGES,
  MEDIA_ID,
  MEDIA_ID_MAX_CHARS,
  UNKNOWN_MEDIA_ID,
} from '../../core/guide-rules.js';
import type { SchemaFragment } from '../../core/schema-fragment.js';

/** A guide's configuration in the file: its quick replies and welcome messages (a task's materials are welcome messages too). */
export const GUIDE_CONFIG_SCHEMA: SchemaFragment = {
  quickReplies: {
    description: `The guide's quick replies, in order: at most ${MAX_QUICK_REPLIES}. [] or null deletes them all; absent leaves them alone.`,
    type: ['array', 'null'],
    items: {
      $ref: '#/$defs/quickReply',
    },
    maxItems: MAX_QUICK_REPLIES,
  },
  quickReply: {
    description: 'A quick reply: the text the guide can send with one tap.',
    type: 'string',
    minLength: 1,
  },
  welcome: {
    description: `This guide's welcome messages, sent to a customer newly bound to the guide: at most ${MAX_WELCOME_MESSAGES}, sent in order. [] or null deletes them; absent leaves them alone.`,
    type: ['array', 'null'],
    maxItems: MAX_WELCOME_MESSAGES,
    items: {
      $ref: '#/$defs/welcomeMessage',
    },
  },
  welcomeMessage: {
    description: 'One welcome message: exactly one of `text`, `image` or `miniprogram`.',
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    properties: {
      text: {
        $ref: '#/$defs/welcomeText',
      },
      image: {
        $ref: '#/$defs/mediaId',
        description: "An image message: the media id of an image uploaded to the account's material library.",
      },
      miniprogram: {
        $ref: '#/$defs/miniprogram',
      },
    },
  },
  welcomeText: {
    description: 'A text message: the text sent to the customer.',
    type: 'string',
    minLength: 1,
  },
  mediaId: {
    description: `A media id of the account's material library: 1 to ${MEDIA_ID_MAX_CHARS} letters, digits, \`_\` and \`-\`. Not \`${UNKNOWN_MEDIA_ID}\`, the placeholder \`guidectl export\` writes for a card's cover (which cannot be read back): replace it with the media id of the cover.`,
    type: 'string',
    anyOf: [
      {
        pattern: MEDIA_ID.source,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    not: {
      const: UNKNOWN_MEDIA_ID,
    },
  },
  miniprogram: {
    description: 'A mini-program card message.',
    type: 'object',
    additionalProperties: false,
    required: ['appid', 'title', 'path', 'media_id'],
    properties: {
      appid: {
        $ref: '#/$defs/appid',
      },
      title: {
        $ref: '#/$defs/miniprogramTitle',
      },
      path: {
        $ref: '#/$defs/miniprogramPath',
      },
      media_id: {
        $ref: '#/$defs/mediaId',
        description: "The media id of the card's cover image.",
      },
    },
  },
  appid: {
    description: `The appid of a mini program linked to the account: \`wx\` then ${APPID_HEX_DIGITS} lowercase hexadecimal digits.`,
    type: 'string',
    anyOf: [
      {
        pattern: APPID.source,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['wx1234567890abcdef'],
  },
  miniprogramTitle: {
    description: `The title of the card: 1 to ${CARD_TITLE_MAX_CHARS} characters.`,
    type: 'string',
    minLength: 1,
    anyOf: [
      {
        maxLength: CARD_TITLE_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
  miniprogramPath: {
    description: 'The page the card opens, with its query if any, such as `pages/index/index?id=1`.',
    type: 'string',
    minLength: 1,
    examples: ['pages/index/index'],
  },
};
