import { type Command, Option } from 'commander';
import { TASK_STATUS_FILTERS, type TaskStatusFilter } from '../core/account-records.js';
import { ifDefined } from '../core/records.js';
import { listTasks, parseGuideName } from '../inspect/index.js';
import { renderTaskTable, tasksToJson } from '../report/tasks.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import { createProgress } from './progress.js';
import { environmentSettings, type TargetOptions, withClient } from './session.js';
import { envFilesOptions, targetOptions } from './target-flags.js';

interface TasksOptions extends TargetOptions {
  guide?: string;
  status?: TaskStatusFilter;
  json: boolean;
}

/** `guidectl tasks`: the live mass-send tasks, every guide's (or one's), every page, as a table or JSON. */
export function registerTasksCommand(program: Command, ctx: CommandContext): void {
  envFilesOptions(
    targetOptions(
      program
        .command('tasks')
        .summary('list the live mass-send tasks')
        .description('list the live mass-send tasks: name, guide, push time (local), recipients, status'),
    ),
  )
    .option('--guide <guide>', "only this guide's tasks: account or openid:<id>")
    .addOption(new Option('--status <status>', 'filter').choices(TASK_STATUS_FILTERS))
    .option('--json', 'print JSON instead of a table', false)
    .action(async (options: TasksOptions) => {
      const guide = options.guide === undefined ? undefined : parseGuideName(options.guide, '--guide');
      const zone = ctx.io.env['TZ'];
      const settings = await environmentSettings(ctx, options);
      await withClient(
        ctx,
        options,
        async (client) => {
          const progress = createProgress(ctx.io, 'Reading tasks');
          const tasks = await listTasks(
            client,
            {
              ...ifDefined('guide', guide),
              ...ifDefined('status', options.status),
            },
            (done, total) => progress.update(done, total),
          ).finally(() => progress.finish());
          ctx.io.stdout.write(
            options.json
              ? `${stringifyJsonPretty(tasksToJson(tasks, zone))}\n`
              : renderTaskTable(tasks, zone),
          );
          ctx.setExit(0);
        },
        settings,
      );
    });
}
