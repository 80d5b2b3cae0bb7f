import { isRecord } from '../core/records.js';

/**
 * The list keys where `null` (a key with nothing after its colon, or `~`) means none, as `[]` does:
 * the file format's rule that a key present states the exact value. Each is the path of keys to it,
 * `*` standing for every item of a list. A list that may not be empty (a task's `recipients` and
 * `materials`, `only_in`) is not here: `null` there is refused, as `[]` is. The published schema
 * allows `null` at exactly these (a test holds the two together), so that editors agree.
 */
export const NONE_LIST_PATHS: readonly (readonly string[])[] = [
  ['groups'],
  ['guides'],
  ['tasks'],
  ['groups', '*', 'members'],
  ['guides', '*', 'quick_replies'],
  ['guides', '*', 'welcome'],
  ['account', 'default_welcome'],
  ['account', 'sensitive_words', 'words'],
  ['protect', 'guides'],
  ['protect', 'guide_openids'],
  ['protect', 'groups'],
  ['protect', 'tasks'],
];

/**
 * A parsed file's value with `[]` for each `null` at {@link NONE_LIST_PATHS}, so that every check
 * and the plan read one meaning; what does not change is shared, not copied.
 */
export function nullListsAsNone(value: unknown): unknown {
  let out = value;
  for (const path of NONE_LIST_PATHS) out = noneAt(out, path);
  return out;
}

function noneAt(node: unknown, path: readonly string[]): unknown {
  const [step, ...rest] = path;
  if (step === undefined) return node === null ? [] : node;
  if (step === '*') {
    if (!Array.isArray(node)) return node;
    let copy: unknown[] | undefined;
    node.forEach((item: unknown, i) => {
      const next = noneAt(item, rest);
      if (next === item) return;
      copy ??= [...node];
      copy[i] = next;
    });
    return copy ?? node;
  }
  if (!isRecord(node) || !Object.hasOwn(node, step)) return node;
  const before = node[step];
  const next = noneAt(before, rest);
  return next === before ? node : { ...node, [step]: next };
}
