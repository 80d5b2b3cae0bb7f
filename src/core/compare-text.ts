/**
 * Orders strings by UTF-16 code units, as `<` does: the same on every machine, locale and Node
 * version (unlike `localeCompare`), so that sorted output, plans and their digests are stable
 * byte for byte. Every sort of text in src/ uses this one.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A sorted copy of `values`, by {@link compareText}. */
export function sortedText(values: readonly string[]): string[] {
  return [...values].sort(compareText);
}
