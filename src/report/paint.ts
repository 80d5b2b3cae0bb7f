/** ANSI styling that is the identity when colour is off (no terminal, or NO_COLOR set). */
export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

export function paint(color: boolean): Paint {
  const style =
    (open: number, close: number) =>
    (s: string): string =>
      color ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
    bold: style(1, 22),
    dim: style(2, 22),
  };
}
