import type { Command } from 'commander';
import { readQuotas } from '../live/index.js';
import { quotaToJson, renderQuotaTable } from '../report/quota.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { OPERATION_NAMES } from '../wire/operations.js';
import type { CommandContext } from './io.js';
import { environmentSettings, type TargetOptions, withClient } from './session.js';
import { envFilesOptions, targetOptions } from './target-flags.js';

interface QuotaOptions extends TargetOptions {
  json: boolean;
}

/** `guidectl quota`: the daily quota of every guide operation: its limit, used and left today. */
export function registerQuotaCommand(program: Command, ctx: CommandContext): void {
  envFilesOptions(
    targetOptions(
      program
        .command('quota')
        .summary("print the account's daily quotas")
        .description(
          "print the account's daily quota of every guide operation: calls a day, used and left today",
        ),
    ),
  )
    .option('--json', 'print JSON instead of a table', false)
    .addHelpText('after', '\nThe quotas reset at midnight UTC+8.')
    .action(async (options: QuotaOptions) => {
      const settings = await environmentSettings(ctx, options);
      await withClient(
        ctx,
        options,
        async (client, _events, { description }) => {
          const read = await readQuotas(client, OPERATION_NAMES);
          ctx.io.stdout.write(
            options.json
              ? `${stringifyJsonPretty(quotaToJson(read))}\n`
              : renderQuotaTable(read, description),
          );
          ctx.setExit(0);
        },
        settings,
      );
    });
}
