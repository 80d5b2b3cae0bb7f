/**
 * A word of a command that a hint prints for the user to copy, as a POSIX shell reads it: as is
 * when it holds only characters no shell treats specially, else in single quotes, each `'` in it
 * written `'\''` (close the quotes, an escaped quote, open them again). Inside single quotes
 * nothing else is special, so spaces, `$`, `"` and backslashes stay as they are.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
