/**
 * Numbers in human output, one way everywhere: thousands separated (`2,020`), and a noun in the
 * singular for exactly one (`1 group`, `0 groups`, `2,020 groups`). Flags to copy (`--allow-delete
 * guides=12`) keep bare digits, since a shell reads them.
 */
export function formatCount(n: number): string {
  // By hand: the first toLocaleString of a process sets up ICU, 20-100 ms of a small command's start.
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** `1 group`, `2,020 groups`; `plural` for nouns that do not just add an s. */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}
