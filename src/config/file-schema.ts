// biome-ignore-all lint/suspicious/noTemplateCurlyInString: descriptions show the ${name} syntax
import { ENVIRONMENT_NAME, ENVIRONMENT_NAME_MAX_CHARS } from '../core/environments.js';
import { DELETING_OPERATIONS, type JsonValue } from '../core/plan-data.js';
import { DEFAULT_MAX_DELETE_SHARE, DEFAULT_MAX_DELETES } from '../core/safety.js';
import type { SchemaFragment } from '../core/schema-fragment.js';
import { KINDS } from '../kinds/registry.js';
import { VALUE_NAME, VALUE_NAME_MAX_CHARS, VALUE_NAME_SHAPE } from './substitute-values.js';

/**
 * `schema/guidectl.schema.json`, put together from the kinds' fragments and the parts of the file
 * that belong to no kind. `npm run build` writes it (scripts/build-validators.mjs) and a test holds
 * the committed file to it, so the published schema and the code's limits cannot drift apart.
 */

/** The top of the file: what it is and its top-level keys. */
const ROOT: { readonly [keyword: string]: JsonValue } = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'guidectl desired state',
  description:
    'The shopping guides of a WeChat service account as code: guides, guide groups and their members, quick replies, welcome messages, the offline auto reply and the sensitive words. A key that is absent is not managed (left as it is); a key that is present states the exact value ([] and null mean "none"). A folder of such files is merged.',
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  properties: {
    version: {
      description:
        'The version of this file format. Always 1. Required in every file, including each file of a folder.',
      const: 1,
    },
    environments: {
      $ref: '#/$defs/environments',
    },
    account: {
      $ref: '#/$defs/account',
    },
    groups: {
      description:
        'Guide groups, addressed by name. Live groups missing from here are listed by the plan as unmanaged and deleted only when `prune.groups` is true.',
      type: ['array', 'null'],
      items: {
        $ref: '#/$defs/group',
      },
    },
    guides: {
      description:
        'Shopping guides. Live guides missing from here are listed by the plan as unmanaged and deleted only when `prune.guides` is true.',
      type: ['array', 'null'],
      items: {
        $ref: '#/$defs/guide',
      },
    },
    tasks: {
      description:
        'Mass-send tasks, each matched with a live task by guide and name. Absent: tasks are not managed (not read). Present (even [] or null): the tasks of the guides the files declare or a task names are read; live pending tasks missing from here are listed as left alone and cancelled only when `prune.tasks` is true. Executed tasks are history and never change.',
      type: ['array', 'null'],
      items: {
        $ref: '#/$defs/task',
      },
    },
    prune: {
      $ref: '#/$defs/prune',
    },
    protect: {
      $ref: '#/$defs/protect',
    },
    safety: {
      $ref: '#/$defs/safety',
    },
  },
  patternProperties: {
    '^x-': {
      description:
        'Ignored: a top-level key starting with `x-` is a place for YAML anchors (`x-common: &common …`) that other parts of the file merge (`<<: *common`) or alias (`*common`).',
    },
  },
};

/** The file's parts that belong to no kind: prune, protect, safety, environments and references. */
const FILE_DEFS: SchemaFragment = {
  prune: {
    description:
      'Whether to delete what is live but not in the file. In a folder, at most one file may have it.',
    type: 'object',
    additionalProperties: false,
    properties: {
      guides: {
        description: 'Delete live guides that are not in the file. Default false.',
        type: 'boolean',
        default: false,
      },
      groups: {
        description: 'Delete live guide groups that are not in the file. Default false.',
        type: 'boolean',
        default: false,
      },
      tasks: {
        description:
          'Cancel the live pending tasks of the managed guides (those the files declare or a task names) that the files do not list. Default false. Executed tasks are never touched.',
        type: 'boolean',
        default: false,
      },
    },
  },
  protect: {
    description:
      'Guides and groups that no plan may delete (nor, for guides, remove from a group), and tasks that no plan may cancel, even when the rest of the files drop them; trying is a plan error. Entries need not be defined under `guides` or `groups`. Every file of a folder may have it; the lists are merged.',
    type: 'object',
    additionalProperties: false,
    properties: {
      guides: {
        description: 'Accounts (WeChat IDs) of protected guides.',
        type: ['array', 'null'],
        items: {
          $ref: '#/$defs/guideAccount',
        },
      },
      guide_openids: {
        description: 'openids of protected guides that have no account (added by openid).',
        type: ['array', 'null'],
        items: {
          $ref: '#/$defs/openid',
        },
      },
      groups: {
        description: 'Names of protected groups.',
        type: ['array', 'null'],
        items: {
          $ref: '#/$defs/groupName',
        },
      },
      tasks: {
        description:
          'Protected tasks, each by its guide and name: no plan may cancel a live pending copy of it (prune.tasks included), even when `tasks` no longer lists it.',
        type: ['array', 'null'],
        items: {
          $ref: '#/$defs/protectedTask',
        },
      },
    },
  },
  safety: {
    description:
      'Limits of the deletion guards. A plan that deletes more guides, groups, memberships, pending tasks or list entries (sensitive words, quick replies, welcome messages, the offline reply) than the limit is refused (plan and apply exit 1) unless `--allow-delete KIND=N` acknowledges that many. The limit of each kind is the smaller of `max_deletes` and `max_delete_share` of the live count (but at least 1). Flags (`--max-deletes`, `--max-delete-share`) override these. In a folder, at most one file may have it.',
    type: 'object',
    additionalProperties: false,
    properties: {
      max_deletes: {
        $ref: '#/$defs/maxDeletes',
      },
      max_delete_share: {
        $ref: '#/$defs/maxDeleteShare',
      },
    },
  },
  maxDeletes: {
    description: `The most deletions of each kind a plan may make without --allow-delete. Default ${DEFAULT_MAX_DELETES} each.`,
    type: 'object',
    additionalProperties: false,
    properties: {
      guides: {
        $ref: '#/$defs/deleteLimit',
        description: `The most guides a plan may delete (${DELETING_OPERATIONS.guides}). Default ${DEFAULT_MAX_DELETES}.`,
      },
      groups: {
        $ref: '#/$defs/deleteLimit',
        description: `The most groups a plan may delete (${DELETING_OPERATIONS.groups}). Default ${DEFAULT_MAX_DELETES}.`,
      },
      memberships: {
        $ref: '#/$defs/deleteLimit',
        description: `The most memberships a plan may remove (${DELETING_OPERATIONS.memberships}). Default ${DEFAULT_MAX_DELETES}.`,
      },
      tasks: {
        $ref: '#/$defs/deleteLimit',
        description: `The most pending tasks a plan may cancel (${DELETING_OPERATIONS.tasks}). Default ${DEFAULT_MAX_DELETES}.`,
      },
      words: {
        $ref: '#/$defs/deleteLimit',
        description: `The most sensitive words a plan may remove from the account's list. Default ${DEFAULT_MAX_DELETES}.`,
      },
      quick_replies: {
        $ref: '#/$defs/deleteLimit',
        description: `The most quick replies a plan may remove, all guides together (a reply kept in the list is not counted). Default ${DEFAULT_MAX_DELETES}.`,
      },
      welcome_messages: {
        $ref: '#/$defs/deleteLimit',
        description: `The most welcome messages a plan may remove, of the guides and the account's default together. Default ${DEFAULT_MAX_DELETES}.`,
      },
      offline_replies: {
        $ref: '#/$defs/deleteLimit',
        description: `Whether a plan may delete the offline auto reply (there is at most one; 0 refuses it). Default ${DEFAULT_MAX_DELETES}.`,
      },
    },
  },
  deleteLimit: {
    description: 'A whole number, 0 or more; 0 refuses every deletion of this kind.',
    type: 'integer',
    examples: [DEFAULT_MAX_DELETES],
    minimum: 0,
  },
  maxDeleteShare: {
    description: `The largest share of the live guides (groups, memberships of the groups the files manage) that a plan may delete without --allow-delete: a number from 0 to 1 (${DEFAULT_MAX_DELETE_SHARE}), or a percentage as text ("${DEFAULT_MAX_DELETE_SHARE * 100}%", as the flag takes it). Whatever the share, a plan may delete at least 1. Default ${DEFAULT_MAX_DELETE_SHARE}.`,
    type: ['number', 'string'],
    examples: [DEFAULT_MAX_DELETE_SHARE, `${DEFAULT_MAX_DELETE_SHARE * 100}%`],
    minimum: 0,
    maximum: 1,
    anyOf: [
      {
        pattern: '^(100(\\.0+)?|[0-9]{1,2}(\\.[0-9]+)?)%$',
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
  environments: {
    description: `The accounts (environments) these files are applied to, by name, in the order they are planned and applied: each with its target and the values that \`\${name}\` in any string of the files takes there. Absent: the files describe one account, chosen by the process environment as before. In a folder, at most one file may have it. Names: a letter, then letters, digits, \`_\` or \`-\` (at most ${ENVIRONMENT_NAME_MAX_CHARS}).`,
    type: 'object',
    minProperties: 1,
    patternProperties: {
      [ENVIRONMENT_NAME.source]: {
        $ref: '#/$defs/environment',
      },
    },
    additionalProperties: false,
  },
  environment: {
    description:
      "One environment: its API base URL, the prefix of its credentials' variables, and its values. Empty (`{}`): the embedded local service over `.guidectl/<name>.db`.",
    type: 'object',
    additionalProperties: false,
    properties: {
      base_url: {
        $ref: '#/$defs/baseUrl',
      },
      credentials: {
        $ref: '#/$defs/credentialsPrefix',
      },
      values: {
        $ref: '#/$defs/envValues',
      },
    },
  },
  baseUrl: {
    description:
      "The guide API's base URL for this environment, such as https://api.weixin.qq.com or a `guidectl serve`; without user or password. Absent: the WeChat API when the environment names `credentials` (their variables must then be set), else the embedded local service.",
    type: 'string',
    pattern: '^https?://[^\\s/?#@]+(?:[/?#]\\S*)?$',
    examples: ['https://staging.example.com'],
  },
  credentialsPrefix: {
    description:
      "The prefix of the process environment variables that hold this environment's credentials: PREFIX_APPID and PREFIX_SECRET, or PREFIX_ACCESS_TOKEN. A name, never a secret: capital letters, digits and `_`, starting with a letter.",
    type: 'string',
    pattern: '^[A-Z](?:[A-Z0-9_]{0,62}[A-Z0-9])?$',
    examples: ['STAGING', 'PROD'],
  },
  envValues: {
    description: `The values of this environment, by name: \`\${name}\` in any string of the files takes the value of the environment being checked or planned. Names: a letter or \`_\`, then letters, digits or \`_\` (at most ${VALUE_NAME_MAX_CHARS}). Values are text, taken as written.`,
    type: 'object',
    patternProperties: {
      [VALUE_NAME.source]: {
        $ref: '#/$defs/envValue',
      },
    },
    additionalProperties: false,
  },
  envValue: {
    description: 'A value: text (quote numbers), taken as written (a `${…}` in it is not replaced).',
    type: 'string',
    examples: ['wx1234567890abcdef'],
  },
  onlyIn: {
    description:
      'The environments this exists in, by name; absent: in every environment. Each name must be declared under `environments`.',
    type: 'array',
    items: {
      $ref: '#/$defs/environmentName',
    },
    examples: [['staging']],
  },
  environmentName: {
    description: 'The name of an environment declared under `environments`.',
    type: 'string',
    pattern: ENVIRONMENT_NAME.source,
  },
  valueReference: {
    description:
      'A text with a `${name}` reference to a value of the environments (`$${` writes a literal `${`). guidectl checks such a field after it puts in the value of each environment; an editor, which cannot, takes it as it is.',
    type: 'string',
    pattern: `(?:^|[^$])\\$\\{${VALUE_NAME_SHAPE}\\}`,
  },
};

/** The kinds' fragments, in the order the file lists them, then the file's own parts. */
const FRAGMENTS: readonly SchemaFragment[] = [...Object.values(KINDS).map((kind) => kind.schema), FILE_DEFS];

/** The whole schema as a value; a `$defs` name that two fragments give is a mistake of the code. */
export function fileSchema(): { readonly [keyword: string]: JsonValue } {
  const defs: Record<string, JsonValue> = {};
  for (const fragment of FRAGMENTS) {
    for (const [name, def] of Object.entries(fragment)) {
      if (Object.hasOwn(defs, name)) throw new Error(`the schema's $defs entry ${name} is given twice`);
      defs[name] = def;
    }
  }
  return { ...ROOT, $defs: defs };
}

/** The schema's text as the committed file has it: the formatter's layout (`biome format`). */
export function fileSchemaText(): string {
  return `${jsonText(fileSchema(), '', '')}\n`;
}

/** Lines no longer than this hold a list on one line, as the formatter does. */
const LINE_WIDTH = 110;

/**
 * JSON laid out as biome lays it out: every mapping open, one key a line; a list of plain values
 * on one line when it fits, else one item a line. `lead` is what the line holds before the value.
 */
function jsonText(value: JsonValue, indent: string, lead: string): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (isList(value)) {
    if (value.length === 0) return '[]';
    if (value.every((item) => item === null || typeof item !== 'object' || isList(item))) {
      const flat = `[${value.map((item) => jsonText(item, '', '')).join(', ')}]`;
      // The comma after the value counts towards the width.
      if (indent.length + lead.length + flat.length + 1 <= LINE_WIDTH) return flat;
    }
    return `[\n${value.map((item) => `${inner}${jsonText(item, inner, '')}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, item]) => {
    const keyText = `${JSON.stringify(key)}: `;
    return `${inner}${keyText}${jsonText(item, inner, keyText)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

function isList(value: JsonValue): value is readonly JsonValue[] {
  return Array.isArray(value);
}
