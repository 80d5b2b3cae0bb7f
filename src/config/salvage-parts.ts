import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Indexed } from '../core/positions.js';
import { ifDefined, isRecord } from '../core/records.js';
import type { RuleGroup, RuleGuide, RuleTask, WrittenParts, WrittenWelcome } from '../core/written.js';
import type { PartValidators } from './compile-schema.js';

/**
 * The parts of a file that broke the schema, for the rules across entries: the sections that pass
 * on their own, and each guide and group whose key fields passed (a guide's account or openid, a
 * group's name), with those of its other fields that passed. So a guide with a nickname too long
 * still takes part in the duplicate check. A guide or group whose key fields did not pass is left
 * out, and the parts are marked incomplete when it is a guide (a member or task may name it).
 * Every task that is a mapping is kept, with the fields that passed: one with no guide (or a name
 * or guide that did not pass) takes part in the checks of its own values (its recipients, push
 * time and texts) though not in those that need its name and guide, so one run shows them all.
 */
export function salvageParts(
  value: Record<string, unknown>,
  parts: PartValidators,
  errors: readonly ErrorObject[],
): WrittenParts {
  const failed = failedPlaces(errors);
  let incomplete = false;
  const pick = <T, R>(
    list: string,
    valid: ValidateFunction<T>,
    asRule: (item: T) => R,
    salvage: (item: Record<string, unknown>, at: FieldCheck) => R | undefined,
  ): Indexed<R>[] => {
    const items = value[list];
    if (items === undefined) return [];
    if (!Array.isArray(items)) {
      if (list === 'guides') incomplete = true;
      return [];
    }
    const out: Indexed<R>[] = [];
    items.forEach((item: unknown, index) => {
      if (valid(item)) {
        out.push({ index, value: asRule(item) });
        return;
      }
      const pointer = `/${list}/${index}`;
      const salvaged =
        isRecord(item) && !failed.whole.has(pointer)
          ? salvage(item, fieldCheck(item, pointer, failed))
          : undefined;
      if (salvaged !== undefined) out.push({ index, value: salvaged });
      else if (list === 'guides') incomplete = true;
    });
    return out;
  };
  const { account, prune, safety } = value;
  const guides = pick('guides', parts.guide, (g): RuleGuide => g, salvageGuide);
  const groups = pick('groups', parts.group, (g): RuleGroup => g, salvageGroup);
  const tasks = pick('tasks', parts.task, (t): RuleTask => t, salvageTask);
  return {
    ...(parts.account(account) ? { account } : {}),
    ...(parts.prune(prune) ? { prune } : {}),
    ...(parts.safety(safety) ? { safety } : {}),
    guides,
    groups,
    tasks,
    ...(incomplete ? { incomplete: true } : {}),
  };
}

/** The places (JSON pointers) that the errors are at or inside of. */
interface FailedPlaces {
  /** Each error's place and every place that holds it. */
  readonly under: ReadonlySet<string>;
  /**
   * Places that fail as a whole (the wrong type). Not a missing or unknown key, nor neither or both
   * of a pair of keys (`oneOf`): those leave the other keys as they are, and each salvage function
   * checks the pair of its entry's key fields itself.
   */
  readonly whole: ReadonlySet<string>;
}

function failedPlaces(errors: readonly ErrorObject[]): FailedPlaces {
  const under = new Set<string>();
  const whole = new Set<string>();
  for (const e of errors) {
    const pointer = e.instancePath;
    // A missing or unknown key is an error of the mapping, but leaves its other keys as they are.
    if (e.keyword !== 'required' && e.keyword !== 'additionalProperties' && e.keyword !== 'oneOf')
      whole.add(pointer);
    if (under.has(pointer)) continue;
    for (let i = pointer.length; i > 0; i = pointer.lastIndexOf('/', i - 1)) under.add(pointer.slice(0, i));
  }
  return { under, whole };
}

/** The fields of one entry: present and passed (by the errors, and of the type the rules read). */
interface FieldCheck {
  text(key: string): string | undefined;
  texts(key: string): readonly string[] | undefined;
  /** Whether the key is written (whether or not its value passed). */
  has(key: string): boolean;
  /** Whether the value at this path inside the entry passed. */
  passed(...path: (string | number)[]): boolean;
}

function fieldCheck(item: Record<string, unknown>, pointer: string, failed: FailedPlaces): FieldCheck {
  const passed = (...path: (string | number)[]): boolean => !failed.under.has(`${pointer}/${path.join('/')}`);
  return {
    passed,
    has: (key) => item[key] !== undefined,
    text: (key) => {
      const v = item[key];
      return typeof v === 'string' && passed(key) ? v : undefined;
    },
    texts: (key) => {
      const v = item[key];
      return Array.isArray(v) && passed(key) && v.every((s) => typeof s === 'string') ? v : undefined;
    },
  };
}

/** `only_in` when it passed, or nothing when it is not written; undefined when it is written wrong. */
function onlyIn(at: FieldCheck): { only_in?: readonly string[] } | undefined {
  if (!at.has('only_in')) return {};
  const only = at.texts('only_in');
  return only === undefined ? undefined : { only_in: only };
}

function salvageGuide(_: Record<string, unknown>, at: FieldCheck): RuleGuide | undefined {
  const account = at.text('account');
  const openid = at.text('openid');
  const only = onlyIn(at);
  if ((account === undefined) === (openid === undefined) || only === undefined) return undefined;
  if (at.has('account') && at.has('openid')) return undefined;
  const url = at.text('head_image_url');
  return {
    ...ifDefined('account', account),
    ...ifDefined('openid', openid),
    ...ifDefined('head_image_url', url),
    ...only,
  };
}

function salvageGroup(_: Record<string, unknown>, at: FieldCheck): RuleGroup | undefined {
  const name = at.text('name');
  const only = onlyIn(at);
  if (name === undefined || only === undefined) return undefined;
  const members = at.texts('members');
  return { name, ...ifDefined('members', members), ...only };
}

function salvageTask(item: Record<string, unknown>, at: FieldCheck): RuleTask {
  const name = at.text('name');
  const guide = at.text('guide');
  const openid = at.text('guide_openid');
  // Named by its guide and name only when both passed and exactly one guide key is written.
  const keyed =
    name !== undefined &&
    (guide === undefined) !== (openid === undefined) &&
    !(at.has('guide') && at.has('guide_openid'));
  const pushAt = at.text('push_at');
  // Written but wrong: still written, for "both recipients and recipients_file" (not "neither").
  const recipients = at.texts('recipients') ?? (at.has('recipients') ? [] : undefined);
  const file = at.text('recipients_file') ?? (at.has('recipients_file') ? '' : undefined);
  const materials = Array.isArray(item['materials'])
    ? item['materials'].map((m: unknown, i): WrittenWelcome | undefined =>
        isRecord(m) && typeof m['text'] === 'string' && at.passed('materials', i)
          ? { text: m['text'] }
          : undefined,
      )
    : undefined;
  return {
    ...(keyed ? { name } : {}),
    ...(keyed && guide !== undefined ? { guide } : {}),
    ...(keyed && openid !== undefined ? { guide_openid: openid } : {}),
    ...ifDefined('push_at', pushAt),
    ...ifDefined('recipients', recipients),
    ...ifDefined('recipients_file', file),
    ...ifDefined('materials', materials),
    // Written wrong (the schema reports it), the task is taken as in every environment.
    ...(onlyIn(at) ?? {}),
  };
}
