import type { EnvironmentApply } from '../core/environment-plan.js';
import { isRecord } from '../core/records.js';
import { parseJson, stringifyJson, stringifyJsonPretty } from '../wire/json.js';
import { type ApplyFormat, noPlanOutput } from './apply-output.js';
import { escapeControls } from './escape.js';
import { alignColumns } from './table.js';

/** The version of `apply --all-envs --json` and of the stream's `environments_summary` event. */
const ALL_ENVS_APPLY_FORMAT_VERSION = 1;

/** Where one environment's apply writes its stdout, and how a failure it threw is written there. */
export interface EnvironmentSink {
  write(text: string): void;
  /** A known failure that ended the environment before its own output: written as apply writes a plan that cannot be made. */
  failed(message: string): void;
}

/**
 * The output of `apply --all-envs` in `format`, around each environment's own apply output:
 * - human text: each environment's output as it comes, then a line per environment;
 * - `--json`: each environment's `apply --json` object gathered, then one object
 *   `{"format_version", "environments": {NAME: APPLY}, "summary"}` (skipped environments are
 *   only in the summary);
 * - `--json-stream`: each environment's events as they come, each with `environment` after its
 *   `type`, then an `environments_summary` event.
 */
export interface AllEnvsApplyOutput {
  /** Where environment `name` writes its stdout; undefined for human text (straight to stdout). */
  environment(name: string): EnvironmentSink | undefined;
  /** The last text: the table, the JSON object, or the summary event. */
  finish(results: readonly EnvironmentApply[]): string;
}

export function allEnvsApplyOutput(
  format: ApplyFormat,
  cwd: string,
  stdout: (text: string) => void,
): AllEnvsApplyOutput {
  const gathered = new Map<string, string>();
  return {
    environment(name) {
      if (format === 'human') return undefined;
      const write = format === 'json-stream' ? taggedLines(name, stdout) : gather(gathered, name);
      return {
        write,
        failed(message) {
          for (const chunk of noPlanOutput(message, [], { format, cwd }))
            if (chunk.to === 'stdout') write(chunk.text);
        },
      };
    },
    finish(results) {
      if (format === 'human') return `\n${renderEnvironmentApplies(results)}`;
      const summary = summaryOf(results);
      if (format === 'json-stream')
        return `${stringifyJson({ format_version: ALL_ENVS_APPLY_FORMAT_VERSION, type: 'environments_summary', ...summary })}\n`;
      const environments: Record<string, unknown> = {};
      for (const { name } of results) {
        const text = gathered.get(name);
        if (text !== undefined && text.trim() !== '') environments[name] = parseJson(text);
      }
      const value = { format_version: ALL_ENVS_APPLY_FORMAT_VERSION, environments, summary };
      return `${stringifyJsonPretty(value)}\n`;
    },
  };
}

function gather(gathered: Map<string, string>, name: string): (text: string) => void {
  return (text) => gathered.set(name, (gathered.get(name) ?? '') + text);
}

/** Writes whole lines of an environment's stream to `out`, each tagged (a partial line waits). */
function taggedLines(environment: string, out: (text: string) => void): (text: string) => void {
  let pending = '';
  return (text) => {
    pending += text;
    const end = pending.lastIndexOf('\n');
    if (end < 0) return;
    const lines = pending.slice(0, end).split('\n');
    pending = pending.slice(end + 1);
    out(lines.map((line) => `${tagEvent(line, environment)}\n`).join(''));
  };
}

/** An event line with `"environment": NAME` after its `format_version` and `type`. */
function tagEvent(line: string, environment: string): string {
  const event = parseJson(line);
  if (!isRecord(event)) return line;
  const { format_version: version, type, ...rest } = event;
  return stringifyJson({ format_version: version, type, environment, ...rest });
}

function summaryOf(results: readonly EnvironmentApply[]) {
  const count = (status: EnvironmentApply['status']): number =>
    results.filter((r) => r.status === status).length;
  return {
    environments: results.map(({ name, status }) => ({ name, status })),
    applied: count('applied'),
    failed: count('failed'),
    interrupted: count('interrupted'),
    skipped: count('skipped'),
    exit_code: results.every((r) => r.status === 'applied') ? 0 : 1,
  };
}

/** `apply --all-envs`'s last lines: each environment and how it ended, in the order applied. */
export function renderEnvironmentApplies(
  results: readonly { readonly name: string; readonly status: string; readonly message?: string }[],
): string {
  const rows = results.map((r) => [
    r.name,
    r.status,
    r.message === undefined ? '' : escapeControls(r.message),
  ]);
  return alignColumns(['ENVIRONMENT', 'APPLY', ''], rows);
}
