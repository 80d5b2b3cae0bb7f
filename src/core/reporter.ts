import type { Diagnostic, DiagnosticCode, RelatedLocation, RuleProblem, Severity } from './diagnostics.js';
import type { LocatedFile, SpanPart, ValuePath } from './positions.js';

/** Where something is in a file, to be worked out when needed. */
export interface Ref {
  readonly parsed: LocatedFile;
  readonly path: ValuePath;
  readonly part?: SpanPart;
}

interface Place {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * Collects the diagnostics of one run of the rules over the files (`config/check-rules.ts` and
 * the kinds' rules), and names places in the files for their messages.
 */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly displayPath: (file: string) => string) {}

  report(
    severity: Severity,
    code: DiagnosticCode,
    parsed: LocatedFile,
    path: ValuePath,
    part: SpanPart,
    message: string,
    extra: { hint?: string; related?: readonly RelatedLocation[] } = {},
  ): void {
    this.diagnostics.push({
      severity,
      code,
      message,
      file: parsed.file,
      ...parsed.locate(path, part),
      ...extra,
    });
  }

  /** A value rule's problem, at the value. */
  problem(
    severity: Severity,
    parsed: LocatedFile,
    path: ValuePath,
    { code, message, hint }: RuleProblem,
  ): void {
    this.report(severity, code, parsed, path, 'value', message, hint === undefined ? {} : { hint });
  }

  /** Places are worked out only when a problem is reported: most guides have none. */
  placeOf({ parsed, path, part = 'value' }: Ref): Place {
    const { line, column } = parsed.locate(path, part);
    return { file: parsed.file, line, column };
  }

  /** "line 12" in the same file, "north.yaml:12:5" in another. */
  describePlace(place: Place, from: string): string {
    return place.file === from
      ? `line ${place.line}`
      : `${this.displayPath(place.file)}:${place.line}:${place.column}`;
  }
}

/** "at line 12", or "at column 20" when both are on the same line (a [flow, list]). */
export function describeEarlier(parsed: LocatedFile, earlier: ValuePath, here: ValuePath): string {
  const a = parsed.locate(earlier);
  const b = parsed.locate(here);
  return a.line === b.line ? `at column ${a.column}` : `at line ${a.line}`;
}
