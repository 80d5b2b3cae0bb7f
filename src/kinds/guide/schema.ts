import {
  HEAD_IMAGE_URL,
  HEAD_IMAGE_URL_MAX_CHARS,
  NICKNAME_MAX_CHARS,
  OPENID,
  OPENID_MAX_CHARS,
  WECHAT_ID,
  WECHAT_ID_SHAPE,
} from '../../core/guide-rules.js';
import type { SchemaFragment } from '../../core/schema-fragment.js';
import { NICKNAME_LENGTH } from './rules.js';

/** A guide's part of the file: the guide, its identity and its profile. */
export const GUIDE_SCHEMA: SchemaFragment = {
  guide: {
    description: 'A shopping guide, named by exactly one of `account` or `openid`.',
    type: 'object',
    additionalProperties: false,
    required: ['nickname', 'head_image_url'],
    properties: {
      account: {
        $ref: '#/$defs/guideAccount',
      },
      openid: {
        $ref: '#/$defs/openid',
      },
      nickname: {
        $ref: '#/$defs/nickname',
      },
      head_image_url: {
        $ref: '#/$defs/headImageUrl',
      },
      quick_replies: {
        $ref: '#/$defs/quickReplies',
      },
      welcome: {
        $ref: '#/$defs/welcome',
      },
      protected: {
        $ref: '#/$defs/guideProtected',
      },
      only_in: {
        $ref: '#/$defs/onlyIn',
      },
    },
    oneOf: [
      {
        type: 'object',
        properties: {
          account: true,
        },
        required: ['account'],
      },
      {
        type: 'object',
        properties: {
          openid: true,
        },
        required: ['openid'],
      },
    ],
  },
  guideAccount: {
    description: `The guide's WeChat ID (guide_account): ${WECHAT_ID_SHAPE}. Use \`account\` rather than \`openid\` when the guide must be in a group: membership works by account only.`,
    type: 'string',
    anyOf: [
      {
        pattern: WECHAT_ID.source,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['alice_wx'],
  },
  openid: {
    description: `The guide's openid or unionid (guide_openid), for a guide added without a WeChat ID: 1 to ${OPENID_MAX_CHARS} letters, digits, \`_\` or \`-\`. Such a guide cannot be a group member.`,
    type: 'string',
    anyOf: [
      {
        pattern: OPENID.source,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
  nickname: {
    description: `The name customers see: ${NICKNAME_LENGTH}.`,
    type: 'string',
    minLength: 1,
    anyOf: [
      {
        maxLength: NICKNAME_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['Alice'],
  },
  headImageUrl: {
    description: `The http(s) URL of the guide's profile picture, at most ${HEAD_IMAGE_URL_MAX_CHARS} characters.`,
    type: 'string',
    anyOf: [
      {
        // A RegExp's source writes `/` as `\/`; a schema's pattern need not.
        pattern: HEAD_IMAGE_URL.source.replaceAll('\\/', '/'),
        maxLength: HEAD_IMAGE_URL_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['https://mmbiz.qpic.cn/mmbiz_jpg/alice/0'],
  },
  guideProtected: {
    description:
      "true: no plan may delete this guide nor remove it from any group it is in (a group's `members` that leaves it out, or a pruned group that holds it), whatever the rest of the files say; trying is a plan error. To keep it protected even after its definition is dropped from `guides`, list it under `protect.guides` instead. Default false.",
    type: 'boolean',
    default: false,
  },
};
