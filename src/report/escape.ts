/**
 * The one home for showing user strings on a terminal. A string from a file, the account or the
 * API may hold control characters; printed raw, ESC sequences could recolour or erase lines, CR
 * or LF could forge a plan line, BEL could ring, and bidirectional overrides could show a word
 * backwards. Every user string in human output goes through these functions; JSON output for
 * machines needs none (JSON escapes what it must, and machines do not render text).
 *
 * Escaped: C0 controls (U+0000–U+001F, tab included), DEL and C1 controls (U+007F–U+009F), the
 * line and paragraph separators (U+2028, U+2029), every format character (Unicode Cf: the
 * zero-width space, joiners and word joiner U+200B–U+200D and U+2060, the bidirectional marks,
 * embeddings, overrides and isolates U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, the
 * byte-order mark U+FEFF, the soft hyphen, tag characters…), which print as nothing, so that
 * `"B\u200bye"` cannot pass for `"Bye"`, and a surrogate without its pair — as `\n`, `\r`, `\t`
 * or `\u001b`, the way JSON writes them (a character beyond U+FFFF as its two UTF-16 halves).
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(c: string): string {
  const short = SHORT[c];
  if (short !== undefined) return short;
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

const UNSAFE_BESIDES_LINES = new RegExp(`(?!\\n)${UNSAFE.source}`, 'u');

/** Whether `text` holds an unsafe character other than the line feed. */
export function hasControlsBesidesLines(text: string): boolean {
  return UNSAFE_BESIDES_LINES.test(text);
}

/** `text` with every unsafe character escaped (`\u001b`, `\n`); the rest, backslashes too, as is. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** Like {@link escapeControls}, but line feeds are kept: for multi-line messages made by guidectl. */
export function escapeControlsKeepingLines(text: string): string {
  return text.replace(UNSAFE, (c) => (c === '\n' ? c : escapeOne(c)));
}

/**
 * A JSON value as one safe line: `JSON.stringify`, with the characters it leaves raw (C1, bidi
 * overrides, separators) escaped too. Strings come out quoted: `"Alice\u001b[2J"`.
 */
export function showJson(value: unknown): string {
  // JSON.stringify escapes C0 itself; what it leaves raw is escaped here, as JSON would write it.
  return (JSON.stringify(value) ?? String(value)).replace(UNSAFE, escapeOne);
}
