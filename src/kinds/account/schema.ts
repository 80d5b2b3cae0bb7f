import {
  MAX_SENSITIVE_WORDS,
  MAX_WELCOME_MESSAGES,
  OFFLINE_REPLY_MAX_CHARS,
} from '../../core/guide-rules.js';
import type { SchemaFragment } from '../../core/schema-fragment.js';

/** The account's part of the file: offline reply, sensitive words and default welcome. */
export const ACCOUNT_SCHEMA: SchemaFragment = {
  account: {
    description:
      'Account-wide settings. Absent: account settings are left alone. In a folder, at most one file may have it.',
    type: 'object',
    additionalProperties: false,
    properties: {
      offline_auto_reply: {
        $ref: '#/$defs/offlineAutoReply',
      },
      sensitive_words: {
        $ref: '#/$defs/sensitiveWords',
      },
      default_welcome: {
        $ref: '#/$defs/defaultWelcome',
      },
    },
  },
  offlineAutoReply: {
    description: `The reply sent to customers while a guide is offline: 1 to ${OFFLINE_REPLY_MAX_CHARS} characters. null deletes it; absent leaves it alone.`,
    type: ['string', 'null'],
    minLength: 1,
    anyOf: [
      {
        maxLength: OFFLINE_REPLY_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['We are offline now, back at 9:00.'],
  },
  sensitiveWords: {
    description: 'The sensitive words (black_keyword) of the account: the exact set. Absent: left alone.',
    type: 'object',
    additionalProperties: false,
    required: ['semantics', 'words'],
    properties: {
      semantics: {
        $ref: '#/$defs/semantics',
      },
      words: {
        $ref: '#/$defs/sensitiveWordList',
      },
    },
  },
  sensitiveWordList: {
    description: `The exact set of sensitive words, at most ${MAX_SENSITIVE_WORDS}; [] or null deletes them all. Each word non-empty and listed once; order does not matter.`,
    type: ['array', 'null'],
    items: {
      $ref: '#/$defs/sensitiveWord',
    },
    maxItems: MAX_SENSITIVE_WORDS,
  },
  semantics: {
    description:
      'How the target applies a black_keyword write, so that the plan makes the right calls: `append` (adds the words not yet present; how WeChat behaves in practice) or `replace` (replaces the whole list; what the documentation says).',
    type: 'string',
    anyOf: [
      {
        enum: ['append', 'replace'],
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
  sensitiveWord: {
    description: 'A sensitive word; not empty.',
    type: 'string',
    minLength: 1,
  },
  defaultWelcome: {
    description: `The account-wide welcome messages, sent to a customer newly bound to a guide who has none of their own: at most ${MAX_WELCOME_MESSAGES}, sent in order. [] or null deletes them; absent leaves them alone.`,
    type: ['array', 'null'],
    maxItems: MAX_WELCOME_MESSAGES,
    items: {
      $ref: '#/$defs/welcomeMessage',
    },
  },
};
