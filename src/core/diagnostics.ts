import { compareText } from './compare-text.js';

/**
 * A problem found in what a user wrote, returned (never thrown) so that a run reports all of them
 * at once. The renderers in `report/` turn these into `file:line:col: error: message` lines or
 * JSON; nothing else formats them.
 */

/** `error` stops the command (exit 1); `warning` is printed and the command goes on. */
export type Severity = 'error' | 'warning';

/**
 * Every diagnostic code, stable for good: users search for them, tests and CI scripts branch on
 * them. A code is never renamed or reused for a different problem; new problems get new codes.
 * Messages may change; codes may not.
 *
 * The codes that loading the files can produce (`config/`); each has a fixture in
 * `test/config/fixtures/`.
 */
export const CONFIG_DIAGNOSTIC_CODES = [
  // Paths and files
  'path-not-found',
  'path-unreadable',
  'folder-empty',
  'file-too-large',
  'file-not-text',
  'file-empty',
  'file-not-desired-state',
  'file-outside-folder',
  // YAML syntax
  'yaml-syntax',
  'yaml-multiple-documents',
  'yaml-tab-indent',
  'yaml-indent',
  'yaml-duplicate-key',
  'yaml-tag',
  'yaml-alias-limit',
  'yaml-complex-key',
  'yaml-merge-invalid',
  'yaml-nesting-too-deep',
  // Shape of the file
  'top-level-not-mapping',
  'version-missing',
  'version-unsupported',
  'unknown-key',
  'missing-key',
  'wrong-type',
  'schema-violation',
  // Values
  'text-lone-surrogate',
  'nickname-empty',
  'nickname-too-long',
  'head-image-url-invalid',
  'head-image-url-too-long',
  'guide-account-invalid',
  'openid-invalid',
  'guide-identity-missing',
  'guide-identity-both',
  'quick-reply-empty',
  'quick-replies-too-many',
  'welcome-too-many',
  'default-welcome-too-many',
  'welcome-form-missing',
  'welcome-form-multiple',
  'welcome-text-empty',
  'media-id-invalid',
  'media-id-placeholder',
  'appid-invalid',
  'miniprogram-title-empty',
  'miniprogram-title-too-long',
  'miniprogram-path-empty',
  'offline-reply-empty',
  'offline-reply-too-long',
  'semantics-invalid',
  'sensitive-word-empty',
  'sensitive-word-duplicate',
  'sensitive-words-too-many',
  'group-name-empty',
  'group-name-too-long',
  'member-invalid',
  'task-name-empty',
  'task-name-too-long',
  'task-remark-too-long',
  'task-materials-too-many',
  'task-materials-empty',
  'task-guide-both',
  'task-guide-missing',
  'task-recipients-both',
  'task-recipients-missing',
  'task-recipients-empty',
  'push-at-invalid',
  'task-text-too-long',
  'recipients-file-not-found',
  'recipients-file-outside-folder',
  'recipients-file-hidden',
  'recipients-file-empty',
  'recipients-file-bad-line',
  'recipients-file-not-text',
  'recipient-invalid',
  'recipient-duplicate',
  // Rules across the whole desired state
  'guide-duplicate',
  'group-duplicate',
  'account-duplicate',
  'prune-duplicate',
  'member-openid-only',
  'member-unknown',
  'member-duplicate',
  'task-duplicate',
  'task-guide-unknown',
  // Safety settings
  'safety-duplicate',
  'safety-limit-invalid',
  // Environments (`environments:`, `${name}` references, `only_in`)
  'environments-duplicate',
  'environments-empty',
  'environments-undeclared',
  'environment-name-invalid',
  'environment-name-reserved',
  'environment-name-conflict',
  'environment-credentials-invalid',
  'environment-base-url-invalid',
  'env-value-name-invalid',
  'env-value-unknown',
  'env-value-missing',
  'env-reference-invalid',
  'only-in-unknown',
  'only-in-empty',
  // More problems than are listed (the first 100 are)
  'too-many-problems',
] as const;

/** The codes of problems found when the files are compared with the live state (`plan/`). */
export const PLAN_DIAGNOSTIC_CODES = [
  'group-live-duplicates',
  'member-not-found',
  'member-would-be-pruned',
  // Protected guides and groups (see `protect` in the file format)
  'protected-guide-delete',
  'protected-group-delete',
  'protected-member-remove',
  'protected-not-found',
  'protected-task-cancel',
  // Mass-send tasks
  'task-guide-not-found',
  'task-push-time-past',
  'task-push-time-too-far',
  'task-executed',
  'task-live-duplicates',
  // A call the service would refuse for its size (a body over 1 MiB)
  'request-too-large',
] as const;

export const DIAGNOSTIC_CODES = [...CONFIG_DIAGNOSTIC_CODES, ...PLAN_DIAGNOSTIC_CODES] as const;

/** The closed set of diagnostic codes; see {@link CONFIG_DIAGNOSTIC_CODES} and {@link PLAN_DIAGNOSTIC_CODES}. */
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

/** A place in a source file. Lines and columns are 1-based; columns count UTF-16 code units, as editors do. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * One problem, pinned to a place in a file.
 *
 * Invariants: `line` and `column` are ≥ 1 (a problem with a whole file, such as a missing file,
 * is reported at 1:1); when present, `endLine:endColumn` is at or after `line:column` and is
 * exclusive. `message` is one sentence in plain words that says what is wrong and, where there is
 * one, the fix; `hint` adds advice that does not fit in the sentence. `related` names other places
 * involved (for example where a duplicated guide was first defined).
 */
export interface Diagnostic extends SourceLocation {
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly endLine?: number;
  readonly endColumn?: number;
  readonly hint?: string;
  readonly related?: readonly RelatedLocation[];
  /**
   * The environments (of the files' `environments:`) in which the problem occurs, in declared
   * order; absent when it does not depend on the environment (then the message does not name one).
   */
  readonly environments?: readonly string[];
  /**
   * Set when the text at this place may be a secret (a credentials setting of an environment):
   * renderers do not show the line of the file under the message.
   */
  readonly mayHoldSecret?: true;
  /**
   * Only on `too-many-problems`, the diagnostic that stands for those not listed: how many errors
   * and warnings it stands for. It counts as those, not as one problem.
   */
  readonly notShown?: DiagnosticCounts;
}

/** Another place that a diagnostic refers to, with what it is ("first defined here"). */
export interface RelatedLocation extends SourceLocation {
  readonly message: string;
}

export function isDiagnosticCode(value: string): value is DiagnosticCode {
  return DIAGNOSTIC_CODES.some((code) => code === value);
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

export interface DiagnosticCounts {
  readonly errors: number;
  readonly warnings: number;
}

/** The problems that diagnostics report: `too-many-problems` counts as the problems it stands for. */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): DiagnosticCounts {
  let errors = 0;
  let warnings = 0;
  for (const d of diagnostics) {
    if (d.notShown !== undefined) {
      errors += d.notShown.errors;
      warnings += d.notShown.warnings;
    } else if (d.severity === 'error') errors++;
    else warnings++;
  }
  return { errors, warnings };
}

/**
 * The documented order of diagnostics: by file (in the order given by `fileOrder`, unknown files
 * last by name), then line, column, code and message, so that the same input always prints the
 * same lines in the same order.
 */
export function sortDiagnostics(
  diagnostics: readonly Diagnostic[],
  fileOrder: readonly string[] = [],
): Diagnostic[] {
  const rank = new Map(fileOrder.map((file, index) => [file, index]));
  const fileRank = (file: string): number => rank.get(file) ?? fileOrder.length;
  return [...diagnostics].sort(
    (a, b) =>
      fileRank(a.file) - fileRank(b.file) ||
      compareText(a.file, b.file) ||
      a.line - b.line ||
      a.column - b.column ||
      compareText(a.code, b.code) ||
      compareText(a.message, b.message),
  );
}

/** A value quoted for a message, shortened when long. */
export function quote(value: unknown): string {
  const s = typeof value === 'string' ? value : String(value);
  const chars = [...s];
  const shown = chars.length > 40 ? `${chars.slice(0, 37).join('')}…` : s;
  return JSON.stringify(shown);
}

/** What a value rule says about a value that breaks it: its code, and one text for its message and fix. */
export interface RuleProblem {
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly hint?: string;
}
