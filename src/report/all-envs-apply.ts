import type { EnvironmentApply } from '../core/environment-plan.js';
import { stringifyJson, stringifyJsonPretty } from '../wire/json.js';
import type { ApplyFormat, OutputChunk } from './apply-output.js';
import { escapeControls } from './escape.js';
import { alignColumns } from './table.js';

/** The version of `apply --all-envs --json` and of the stream's `environments_summary` event. */
const ALL_ENVS_APPLY_FORMAT_VERSION = 1;

/** Where one environment's apply writes its output, and how a failure it threw is written there. */
export interface EnvironmentSink {
  /** Takes the environment's output, as its apply writes it (see {@link AllEnvsApplyOutput}). */
  write(chunks: readonly OutputChunk[]): void;
}

/**
 * The output of `apply --all-envs` in `format`, around each environment's own apply output:
 * - human text: each environment's output as it comes, then a line per environment;
 * - `--json`: each environment's `apply --json` object gathered, then one object
 *   `{"format_version", "environments": {NAME: APPLY}, "summary"}` (skipped environments are
 *   only in the summary);
 * - `--json-stream`: each environment's events as they come, each with `environment` after its
 *   `type`, then an `environments_summary` event.
 * Stderr's chunks are written as they come.
 */
export interface AllEnvsApplyOutput {
  /** Where environment `name` writes its output. */
  environment(name: string): EnvironmentSink;
  /** Writes the last text (the table, the JSON object, or the summary event); returns the exit status. */
  finish(results: readonly EnvironmentApply[]): 0 | 1;
}

export function allEnvsApplyOutput(
  format: ApplyFormat,
  write: (chunk: OutputChunk) => void,
): AllEnvsApplyOutput {
  const gathered = new Map<string, Readonly<Record<string, unknown>>>();
  const stdout = (text: string): void => write({ to: 'stdout', text });
  return {
    environment(name) {
      const take = (chunk: OutputChunk): void => {
        if (format === 'human' || chunk.to === 'stderr' || chunk.value === undefined) write(chunk);
        else if (format === 'json') gathered.set(name, chunk.value);
        else stdout(`${stringifyJson(tagEvent(chunk.value, name))}\n`);
      };
      return {
        write: (chunks) => {
          for (const chunk of chunks) take(chunk);
        },
      };
    },
    finish(results) {
      const summary = summaryOf(results);
      if (format === 'human')
        stdout(
          `\n${renderEnvironmentApplies(results.map((r) => ({ ...r, status: APPLY_WORDS[r.status] })))}`,
        );
      else if (format === 'json-stream')
        stdout(
          `${stringifyJson({ format_version: ALL_ENVS_APPLY_FORMAT_VERSION, type: 'environments_summary', ...summary })}\n`,
        );
      else {
        const environments: Record<string, unknown> = {};
        for (const { name } of results) {
          const value = gathered.get(name);
          if (value !== undefined) environments[name] = value;
        }
        const value = { format_version: ALL_ENVS_APPLY_FORMAT_VERSION, environments, summary };
        stdout(`${stringifyJsonPretty(value)}\n`);
      }
      return summary.exit_code;
    },
  };
}

/** An event with `"environment": NAME` after its `format_version` and `type`. */
function tagEvent(event: Readonly<Record<string, unknown>>, environment: string): Record<string, unknown> {
  const { format_version: version, type, ...rest } = event;
  return { format_version: version, type, environment, ...rest };
}

/** How each environment's apply ended, in the human table. */
const APPLY_WORDS: Readonly<Record<EnvironmentApply['status'], string>> = {
  applied: 'applied',
  unchanged: 'no changes',
  failed: 'failed',
  interrupted: 'interrupted',
  skipped: 'skipped',
};

function summaryOf(results: readonly EnvironmentApply[]) {
  const count = (status: EnvironmentApply['status']): number =>
    results.filter((r) => r.status === status).length;
  return {
    environments: results.map(({ name, status }) => ({ name, status })),
    applied: count('applied'),
    unchanged: count('unchanged'),
    failed: count('failed'),
    interrupted: count('interrupted'),
    skipped: count('skipped'),
    exit_code: results.every((r) => r.status === 'applied' || r.status === 'unchanged')
      ? (0 as const)
      : (1 as const),
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

/**
 * `guidectl: environment NAME: MESSAGE`, a stderr line about one environment of several; a message
 * that starts by naming the environment is not given its name twice.
 */
export function environmentStderrLine(name: string, message: string): string {
  return message.startsWith(`environment ${name} `)
    ? `guidectl: ${message}\n`
    : `guidectl: environment ${name}: ${message}\n`;
}
