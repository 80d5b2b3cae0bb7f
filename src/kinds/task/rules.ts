import { quote } from '../../core/diagnostics.js';
import { MATERIAL_WORD_MAX_BYTES, OPENID_RULE, TASK_NAME_MAX_CHARS } from '../../core/guide-rules.js';
import type { Indexed, LocatedFile } from '../../core/positions.js';
import { isRecord } from '../../core/records.js';
import { describeEarlier, type Ref, type Reporter } from '../../core/reporter.js';
import {
  emptyText,
  type SchemaMessage,
  type SchemaMessages,
  textTooLong,
} from '../../core/schema-messages.js';
import { parseWrittenTime } from '../../core/task-time.js';
import type { RuleTask } from '../../core/written.js';
import type { RuleContext } from '../config-port.js';
import { IDENTIFIER_HINT, type KnownGuides } from '../guide/rules.js';

const PUSH_AT_FORM = 'such as 2026-12-01T10:00:00+08:00 (or Z for UTC)';

/** What is wrong with a push_at that is not ISO 8601 with an offset, and what to write instead. */
function pushAtProblem(text: string): { message: string; hint: string } {
  const zone = '(Z|[+-]\\d{2}:?\\d{2})';
  const fraction = new RegExp(`^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2})(\\.\\d+)${zone}$`).exec(text);
  if (fraction !== null) {
    return {
      message: `push_at ${quote(text)} has a fraction of a second (${fraction[2]}); the API takes whole seconds`,
      hint: `write ${fraction[1]}${fraction[3]}, or the second you mean`,
    };
  }
  const noZone = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.0+)?$/.exec(text);
  if (noZone !== null) {
    return {
      message: `push_at ${quote(text)} has no UTC offset, so the moment it names is not known`,
      hint: `add the offset of the time: ${noZone[1]}T${noZone[2]}+08:00 for China, or Z for UTC`,
    };
  }
  const space = new RegExp(`^(\\d{4}-\\d{2}-\\d{2}) (\\d{2}:\\d{2}(?::\\d{2})?)${zone}$`).exec(text);
  if (space !== null) {
    return {
      message: `push_at ${quote(text)} has a space between the date and the time; ISO 8601 puts a T there`,
      hint: `write ${space[1]}T${space[2]}${space[3]}`,
    };
  }
  const hours = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)([+-]\d{2})$/.exec(text);
  if (hours !== null) {
    return {
      message: `push_at ${quote(text)} has an offset of hours only`,
      hint: `write the offset with its minutes: ${hours[1]}${hours[2]}:00`,
    };
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    return {
      message: `push_at ${quote(text)} is a date without a time and UTC offset`,
      hint: `add the time and the offset: ${text}T10:00:00+08:00`,
    };
  }
  return {
    message: `push_at ${quote(text)} is not an ISO 8601 date and time with an offset`,
    hint: `write the date, the time and the UTC offset, ${PUSH_AT_FORM}`,
  };
}

/** A task (or a `protect.tasks` entry) with both guide keys, or neither. */
export const taskGuideOneOf: SchemaMessage = ({ data }) =>
  isRecord(data) && 'guide' in data && 'guide_openid' in data
    ? {
        code: 'task-guide-both',
        message:
          'this task has both "guide" and "guide_openid"; a task names its guide by exactly one of them',
        hint: 'keep "guide" (the account) when the guide has one',
      }
    : {
        code: 'task-guide-missing',
        message: 'this task names no guide; add "guide: <account>" (or "guide_openid: …")',
        hint: 'the guide is the one who sends the task to its customers',
      };

/** What the schema check says when a task breaks one of its constraints, by `$defs` entry and keyword. */
export const TASK_MESSAGES: SchemaMessages = {
  'taskName/minLength': emptyText(
    'task-name-empty',
    'the task name',
    `write 1 to ${TASK_NAME_MAX_CHARS} characters`,
  ),
  'taskName/maxLength': textTooLong('task-name-too-long', 'task name'),
  'taskRemark/maxLength': textTooLong('task-remark-too-long', 'remark'),
  'taskMaterials/maxItems': ({ data, limit }) => ({
    code: 'task-materials-too-many',
    message: `a task sends at most ${limit} materials; this one has ${Array.isArray(data) ? data.length : '?'}`,
    hint: `keep ${limit}, or split the task in two`,
  }),
  'taskMaterials/minItems': () => ({
    code: 'task-materials-empty',
    message: 'a task sends at least one material; this list is empty',
    hint: 'for example: - text: "Spring sale starts now!"',
  }),
  'pushAt/pattern': ({ data }) => ({ code: 'push-at-invalid', ...pushAtProblem(String(data)) }),
  'recipients/minItems': () => ({
    code: 'task-recipients-empty',
    message: 'recipients is empty; a task is sent to at least one customer',
    hint: 'list the openids of the customers, or give a recipients_file',
  }),
  'recipient/pattern': ({ data }) => ({
    code: 'recipient-invalid',
    message:
      data === '' ? 'a recipient is empty' : `invalid openid: recipient ${quote(data)}; ${OPENID_RULE}`,
    hint: IDENTIFIER_HINT,
  }),
  'recipientsFile/minLength': emptyText(
    'recipients-file-not-found',
    'recipients_file',
    'write the path of the file',
  ),
  'recipientsFile/pattern': emptyText(
    'recipients-file-not-found',
    'recipients_file',
    'write the path of the file',
  ),
  'task/oneOf': taskGuideOneOf,
};

/** The tasks of one file that passed the schema, with the means to point into the file. */
export interface TaskRuleFile {
  readonly parsed: LocatedFile;
  readonly parts: { readonly tasks: readonly Indexed<RuleTask>[] };
}

/** The task kind's rules, as the registry runs them: after the guides, whose names they read. */
export function checkTaskRules(files: readonly TaskRuleFile[], context: RuleContext, out: Reporter): void {
  checkTasks(files, context.guides, context.complete, out);
}

/**
 * Tasks: one per guide and name across the files; a guide the files declare (else a warning: it
 * must be live); a push time that is a real date; texts of at most 300 bytes; each inline recipient
 * once (a warning: recipients are a set). A task without its name and guide (they broke the
 * schema, which says so) has the checks of its own values only.
 */
function checkTasks(
  files: readonly TaskRuleFile[],
  known: KnownGuides,
  complete: boolean,
  out: Reporter,
): void {
  const tasks = new Map<string, Ref>();
  for (const { parsed, parts } of files) {
    for (const { index, value: task } of parts.tasks) {
      const { name } = task;
      if (name !== undefined) {
        checkTaskDuplicate(parsed, index, task, name, tasks, out);
        checkTaskGuide(parsed, index, task, name, known, complete, out);
      }
      checkTaskValues(parsed, index, task, out);
    }
  }
}

function checkTaskDuplicate(
  parsed: LocatedFile,
  index: number,
  task: RuleTask,
  name: string,
  tasks: Map<string, Ref>,
  out: Reporter,
): void {
  const guide = task.guide === undefined ? `openid ${task.guide_openid ?? ''}` : task.guide;
  const key = `${guide}\u0000${name}`;
  const firstRef = tasks.get(key);
  if (firstRef === undefined) {
    tasks.set(key, { parsed, path: ['tasks', index, 'name'] });
    return;
  }
  const first = out.placeOf(firstRef);
  out.report(
    'error',
    'task-duplicate',
    parsed,
    ['tasks', index, 'name'],
    'value',
    `task ${quote(name)} of ${guide} is also defined at ${out.describePlace(first, parsed.file)}`,
    {
      hint: 'task names are unique per guide; rename one, or merge the two',
      related: [{ ...first, message: `task ${quote(name)} first defined here` }],
    },
  );
}

function checkTaskGuide(
  parsed: LocatedFile,
  index: number,
  task: RuleTask,
  taskName: string,
  known: KnownGuides,
  complete: boolean,
  out: Reporter,
): void {
  const declared =
    task.guide !== undefined ? known.byAccount.has(task.guide) : known.byOpenid.has(task.guide_openid ?? '');
  if (declared || !complete) return;
  const key = task.guide !== undefined ? 'guide' : 'guide_openid';
  const name = task.guide ?? `openid ${task.guide_openid ?? ''}`;
  out.report(
    'warning',
    'task-guide-unknown',
    parsed,
    ['tasks', index, key],
    'value',
    `guide ${name} of task ${quote(taskName)} is not a guide in the files given; plan will require it to exist in the account`,
    { hint: 'add the guide under "guides", or check the spelling' },
  );
}

function checkTaskValues(parsed: LocatedFile, index: number, task: RuleTask, out: Reporter): void {
  if (task.recipients !== undefined && task.recipients_file !== undefined) {
    out.report(
      'error',
      'task-recipients-both',
      parsed,
      ['tasks', index, 'recipients_file'],
      'key',
      'this task has both "recipients" and "recipients_file"; give exactly one of them',
      { hint: 'keep the list, or the file' },
    );
  } else if (task.recipients === undefined && task.recipients_file === undefined) {
    out.report(
      'error',
      'task-recipients-missing',
      parsed,
      ['tasks', index],
      'value',
      'this task has no recipients; add "recipients: [openid, …]" or "recipients_file: path"',
      {
        hint: 'recipients_file is relative to this YAML file: one openid a line, or a CSV with an openid column',
      },
    );
  }
  if (task.push_at !== undefined && parseWrittenTime(task.push_at) === undefined) {
    out.report(
      'error',
      'push-at-invalid',
      parsed,
      ['tasks', index, 'push_at'],
      'value',
      `push_at ${quote(task.push_at)} is not a real date and time`,
      { hint: 'check the day of the month, the hour (00–23) and the offset (at most ±18:00)' },
    );
  }
  (task.materials ?? []).forEach((material, m) => {
    if (material === undefined || !('text' in material)) return;
    const bytes = Buffer.byteLength(material.text, 'utf8');
    if (bytes <= MATERIAL_WORD_MAX_BYTES) return;
    out.report(
      'error',
      'task-text-too-long',
      parsed,
      ['tasks', index, 'materials', m, 'text'],
      'value',
      `the text of this material is ${bytes} bytes of UTF-8; the limit is ${MATERIAL_WORD_MAX_BYTES} (a Chinese character takes 3)`,
      { hint: 'shorten the text, or split it into two materials' },
    );
  });
  const seen = new Map<string, number>();
  (task.recipients ?? []).forEach((openid, r) => {
    const earlier = seen.get(openid);
    if (earlier === undefined) {
      seen.set(openid, r);
      return;
    }
    const path = ['tasks', index, 'recipients'];
    out.report(
      'warning',
      'recipient-duplicate',
      parsed,
      [...path, r],
      'value',
      `recipient ${openid} is listed twice (first ${describeEarlier(parsed, [...path, earlier], [...path, r])}); it is sent once`,
      { hint: 'remove one; recipients are a set' },
    );
  });
}
