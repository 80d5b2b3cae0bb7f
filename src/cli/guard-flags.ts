import { type Command, InvalidArgumentError, Option } from 'commander';
import { DELETE_KINDS, type DeleteKind } from '../core/desired.js';

/** Adds the deletion-guard flags, parsed as the use cases take them (`GuardFlags`). */
export function guardOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--allow-delete <kind=n>', 'allow up to N deletes of a kind')
        .argParser(kindCounts('--allow-delete'))
        .default({}, 'none'),
    )
    .addOption(
      new Option('--max-deletes <kind=n>', 'guard: most deletes of a kind')
        .argParser(kindCounts('--max-deletes'))
        .default({}, '10 each'),
    )
    .option('--max-delete-share <share>', 'guard: largest share deleted (default: 25%)', parseShare);
}

/** Parses `guides=12` (or `guides=12,groups=2`) into counts by kind, merged with earlier ones. */
export function kindCounts(
  flag: string,
): (value: string, previous: Partial<Record<DeleteKind, number>>) => Partial<Record<DeleteKind, number>> {
  return (value, previous) => {
    const out = { ...previous };
    for (const part of value.split(',')) {
      const match = /^\s*([a-z_]+)\s*=\s*([0-9]+)\s*$/.exec(part);
      const kind = DELETE_KINDS.find((k) => k === match?.[1]);
      const n = Number(match?.[2]);
      if (match === null || kind === undefined || !Number.isSafeInteger(n)) {
        throw new InvalidArgumentError(
          `${flag} takes KIND=N, where KIND is one of ${DELETE_KINDS.join(', ')} and N a whole number, e.g. ${flag} guides=12; not ${JSON.stringify(part)}.`,
        );
      }
      out[kind] = n;
    }
    return out;
  };
}

/** Parses a share: `0.25` or `25%`, from 0 to 1. */
export function parseShare(value: string): number {
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(%?)\s*$/.exec(value);
  const n = match === null ? Number.NaN : Number(match[1]) / (match[2] === '%' ? 100 : 1);
  if (!(n >= 0 && n <= 1)) {
    throw new InvalidArgumentError('--max-delete-share takes a share from 0 to 1, as 0.25 or 25%.');
  }
  return n;
}
