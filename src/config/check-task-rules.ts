import { quote } from '../core/diagnostics.js';
import { MATERIAL_WORD_MAX_BYTES } from '../core/guide-rules.js';
import { describeEarlier, type Ref, type Reporter } from '../core/reporter.js';
import { parseWrittenTime } from '../core/task-time.js';
import type { RuleTask } from '../core/written.js';
import type { KnownGuides } from '../kinds/guide/rules.js';
import type { RuleFile } from './check-rules.js';
import type { ParsedYaml } from './parse-yaml.js';

/**
 * Tasks: one per guide and name across the files; a guide the files declare (else a warning: it
 * must be live); a push time that is a real date; texts of at most 300 bytes; each inline recipient
 * once (a warning: recipients are a set). A task without its name and guide (they broke the
 * schema, which says so) has the checks of its own values only.
 */
export function checkTasks(
  files: readonly RuleFile[],
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
  parsed: ParsedYaml,
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
  parsed: ParsedYaml,
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

function checkTaskValues(parsed: ParsedYaml, index: number, task: RuleTask, out: Reporter): void {
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
