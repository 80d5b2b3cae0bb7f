import { type Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import type { PlanFormat } from '../report/plan-output.js';

// The output flags of plan and show, in a module of their own: show loads them without plan's
// use case, target and live reader.

/** `--format`, `--json`, `--markdown` as parsed. */
export interface FormatFlags {
  json: boolean;
  markdown: boolean;
  format?: PlanFormat;
}

/** Adds `--format` and its `--json`/`--markdown` shorthands (read by {@link chooseFormat}). */
export function formatOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json', 'markdown']))
    .option('--json', 'same as --format json', false)
    .option('--markdown', 'same as --format markdown (a PR comment)', false);
}

/** `--format`, or the `--json`/`--markdown` shorthands; contradictions are usage errors. */
export function chooseFormat(options: FormatFlags): PlanFormat {
  const asked = new Set<PlanFormat>();
  if (options.format !== undefined) asked.add(options.format);
  if (options.json) asked.add('json');
  if (options.markdown) asked.add('markdown');
  if (asked.size > 1) throw new UsageError(`choose one output format, not ${[...asked].join(' and ')}`);
  return [...asked][0] ?? 'human';
}
