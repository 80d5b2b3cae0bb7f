import { quote } from '../../core/diagnostics.js';
import { OPENID_RULE, TASK_NAME_MAX_CHARS } from '../../core/guide-rules.js';
import { isRecord } from '../../core/records.js';
import {
  emptyText,
  type SchemaMessage,
  type SchemaMessages,
  textTooLong,
} from '../../core/schema-messages.js';
import { IDENTIFIER_HINT } from '../guide/rules.js';

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
