/**
 * Numbers in human output, one way everywhere: thousands separated (`2,020`), and a noun in the
 * singular for exactly one (`1 group`, `0 groups`, `2,020 groups`). Flags to copy (`--allow-delete
 * guides=12`) keep bare digits, since a shell reads them.
 */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 group`, `2,020 groups`; `plural` for nouns that do not just add an s. */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}
