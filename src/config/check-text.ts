import type { Diagnostic } from '../core/diagnostics.js';
import { LONE_SURROGATE } from '../core/guide-rules.js';
import type { SpanPart, ValuePath } from '../core/positions.js';
import type { ParsedYaml } from './parse-yaml.js';

/**
 * A surrogate with no partner, written as an escape (`"\uD800"`, `"\U0000DC00"`): the only way a
 * file gets one, since the file itself is decoded as UTF-8, which cannot hold one. Checked first on
 * the text, so that files without such an escape (nearly all) cost one search and no walk.
 */
const SURROGATE_ESCAPE = /\\(?:u|U0000)[dD][89a-fA-F]/;

/**
 * Every text of a file (keys and values) that holds a lone surrogate: not a character, so no
 * service can store it (it comes back as U+FFFD) and the plan of it would never converge.
 */
export function checkLoneSurrogates(parsed: ParsedYaml, text: string): Diagnostic[] {
  if (!SURROGATE_ESCAPE.test(text)) return [];
  const found: Diagnostic[] = [];
  const report = (value: string, path: ValuePath, part: SpanPart): void => {
    const lone = LONE_SURROGATE.exec(value)?.[0];
    if (lone === undefined) return;
    const unit = `\\u${lone.charCodeAt(0).toString(16).toUpperCase()}`;
    found.push({
      severity: 'error',
      code: 'text-lone-surrogate',
      message: `this ${part === 'key' ? 'key' : 'text'} holds the escape "${unit}" alone: half of a surrogate pair without its other half is not a character, so WeChat cannot store it and the plan would never match`,
      hint: 'write the character itself, both halves of its pair ("\\uD83D\\uDE00"), or one \\U escape ("\\U0001F600")',
      file: parsed.file,
      ...parsed.locate(path, part),
    });
  };
  const walk = (value: unknown, path: ValuePath): void => {
    if (typeof value === 'string') report(value, path, 'value');
    else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) walk(item, [...path, i]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        report(key, [...path, key], 'key');
        walk(item, [...path, key]);
      }
    }
  };
  walk(parsed.value, []);
  return found;
}
