import { quote, type RuleProblem } from '../../core/diagnostics.js';
import { NICKNAME_MAX_CHARS } from '../../core/guide-rules.js';

/**
 * A guide's value rules, in words: the schema's messages (`config/check-schema.ts`) and the rules
 * after it say the same text, whichever of them finds the problem.
 */

/** A nickname's length, as messages and the schema's description state it. */
export const NICKNAME_LENGTH = `1 to ${NICKNAME_MAX_CHARS} characters`;

/**
 * A profile picture's address that is not an http(s) URL: the schema refuses the shape, the rules
 * an address of that shape that does not parse.
 */
export function headImageUrlInvalid(url: unknown): RuleProblem {
  return {
    code: 'head-image-url-invalid',
    message: `head_image_url ${quote(url)} must be an http(s) URL`,
    hint: 'write the full address of the picture, such as https://mmbiz.qpic.cn/…',
  };
}
