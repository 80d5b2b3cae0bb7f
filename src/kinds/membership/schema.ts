import { OPENID, WECHAT_ID_SHAPE } from '../../core/guide-rules.js';
import type { SchemaFragment } from '../../core/schema-fragment.js';

/** A group's members in the file. */
export const MEMBERSHIP_SCHEMA: SchemaFragment = {
  members: {
    description:
      'The exact membership of the group: guide accounts (WeChat IDs). Membership works by account only, so a guide known only by openid cannot be a member. [] or null empties the group; absent leaves the membership alone.',
    type: ['array', 'null'],
    items: {
      $ref: '#/$defs/member',
    },
  },
  member: {
    description: `The account (WeChat ID) of a guide: ${WECHAT_ID_SHAPE} (checked after the schema, so that an openid listed here is named as such).`,
    type: 'string',
    anyOf: [
      {
        // An openid's shape: a WeChat ID is checked after the schema, to name an openid as such.
        pattern: OPENID.source,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
};
