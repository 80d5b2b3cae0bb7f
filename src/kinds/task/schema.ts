// biome-ignore-all lint/suspicious/noTemplateCurlyInString: descriptions show the ${name} syntax
import {
  MATERIAL_WORD_MAX_BYTES,
  MAX_TASK_MATERIALS,
  OPENID,
  OPENID_MAX_CHARS,
  TASK_NAME_MAX_CHARS,
  TASK_REMARK_MAX_CHARS,
} from '../../core/guide-rules.js';
import type { JsonValue } from '../../core/plan-data.js';
import type { SchemaFragment } from '../../core/schema-fragment.js';

/** A task, or a `protect.tasks` entry, names its guide by exactly one of two keys. */
const ONE_GUIDE_KEY: JsonValue = [
  { type: 'object', properties: { guide: true }, required: ['guide'] },
  { type: 'object', properties: { guide_openid: true }, required: ['guide_openid'] },
];

/** A mass-send task's part of the file, and a protected task. */
export const TASK_SCHEMA: SchemaFragment = {
  task: {
    description: `A mass-send task: a guide sends 1 to ${MAX_TASK_MATERIALS} materials to some of its customers at a push time. Named by its guide (exactly one of \`guide\` or \`guide_openid\`) and its name, unique per guide. Recipients are given by exactly one of \`recipients\` or \`recipients_file\`.`,
    type: 'object',
    additionalProperties: false,
    required: ['name', 'push_at', 'materials'],
    properties: {
      name: {
        $ref: '#/$defs/taskName',
      },
      guide: {
        $ref: '#/$defs/guideAccount',
        description:
          'The account (WeChat ID) of the guide who sends the task: declared under guides, or a live guide.',
      },
      guide_openid: {
        $ref: '#/$defs/openid',
        description: 'The openid of the guide who sends the task, for a guide added without a WeChat ID.',
      },
      remark: {
        $ref: '#/$defs/taskRemark',
      },
      push_at: {
        $ref: '#/$defs/pushAt',
      },
      recipients: {
        $ref: '#/$defs/recipients',
      },
      recipients_file: {
        $ref: '#/$defs/recipientsFile',
      },
      materials: {
        $ref: '#/$defs/taskMaterials',
      },
      protected: {
        $ref: '#/$defs/taskProtected',
      },
      only_in: {
        $ref: '#/$defs/onlyIn',
      },
    },
    oneOf: ONE_GUIDE_KEY,
  },
  taskName: {
    description: `The task's name: 1 to ${TASK_NAME_MAX_CHARS} characters, unique among the tasks of its guide.`,
    type: 'string',
    minLength: 1,
    anyOf: [
      {
        maxLength: TASK_NAME_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['Spring sale'],
  },
  taskRemark: {
    description: `A note on the task, at most ${TASK_REMARK_MAX_CHARS} characters. Absent: none.`,
    type: 'string',
    anyOf: [
      {
        maxLength: TASK_REMARK_MAX_CHARS,
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
  },
  pushAt: {
    description:
      'When the task is sent: ISO 8601 date and time with a UTC offset, such as 2026-12-01T10:00:00+08:00 (or Z for UTC; +0800 is taken too). The API takes whole seconds: a fraction of a second is taken only when it is zeros (.000). A task to create or change must be pushed from now to one month ahead.',
    type: 'string',
    anyOf: [
      {
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.0+)?)?(Z|[+-]\\d{2}:?\\d{2})$',
      },
      {
        $ref: '#/$defs/valueReference',
      },
    ],
    examples: ['2026-12-01T10:00:00+08:00'],
  },
  recipients: {
    description:
      'The customers the task is sent to: openids of customers bound to the guide, at least one; a set (order and repeats do not matter).',
    type: 'array',
    minItems: 1,
    items: {
      $ref: '#/$defs/recipient',
    },
  },
  recipient: {
    description: `The openid of a customer: 1 to ${OPENID_MAX_CHARS} letters, digits, \`_\` or \`-\`.`,
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
  recipientsFile: {
    description:
      'A file of recipients, relative to this YAML file: one openid a line, or a CSV file with a header line that has an `openid` column (fields separated by commas, semicolons or tabs). It may hold `${name}` references to the values of the environments (`customers/${market}-vip.csv`): each environment reads the file its values name.',
    type: 'string',
    minLength: 1,
    pattern: '\\S',
    examples: ['customers/spring-vip.csv'],
  },
  taskMaterials: {
    description: `What the task sends: 1 to ${MAX_TASK_MATERIALS} materials, in order, each one of \`text\` (at most ${MATERIAL_WORD_MAX_BYTES} bytes of UTF-8), \`image\` or \`miniprogram\`.`,
    type: 'array',
    minItems: 1,
    maxItems: MAX_TASK_MATERIALS,
    items: {
      $ref: '#/$defs/welcomeMessage',
    },
  },
  taskProtected: {
    description:
      'true: no plan may cancel this task (prune.tasks included); trying is a plan error. Default false.',
    type: 'boolean',
    default: false,
  },
  protectedTask: {
    description: 'A task by its guide (exactly one of `guide` or `guide_openid`) and its name.',
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      guide: {
        $ref: '#/$defs/guideAccount',
      },
      guide_openid: {
        $ref: '#/$defs/openid',
      },
      name: {
        $ref: '#/$defs/taskName',
      },
    },
    oneOf: ONE_GUIDE_KEY,
  },
};
