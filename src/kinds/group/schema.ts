import { GROUP_NAME_MAX_CHARS } from '../../core/guide-rules.js';
import type { SchemaFragment } from '../../core/schema-fragment.js';

/** A group's part of the file. */
export const GROUP_SCHEMA: SchemaFragment = {
  group: {
    description: 'A guide group, addressed by its name.',
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: {
        $ref: '#/$defs/groupName',
      },
      members: {
        $ref: '#/$defs/members',
      },
      protected: {
        $ref: '#/$defs/groupProtected',
      },
      only_in: {
        $ref: '#/$defs/onlyIn',
      },
    },
  },
  groupName: {
    description: `The group's name, 1 to ${GROUP_NAME_MAX_CHARS} characters: unique among the groups of the file (or folder).`,
    type: 'string',
    minLength: 1,
    anyOf: [
      {
        maxLength: GROUP_NAME_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
  groupProtected: {
    description:
      'true: no plan may delete this group (prune.groups included), whatever the rest of the files say; trying is a plan error. To keep it protected even after its definition is dropped from `groups`, list it under `protect.groups` instead. Default false.',
    type: 'boolean',
    default: false,
  },
};
