import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { shortLocalTime } from '../core/wall-time.js';
import {
  type ChatSink,
  exportChats,
  openOutputFile,
  parseCustomer,
  parseGuideName,
  resolveChatWindow,
  streamOutput,
} from '../inspect/index.js';
import { type ChatFormat, chatExportOutcome, chatPageRenderer } from '../report/chats.js';
import type { CommandContext } from './io.js';
import { createProgress } from './progress.js';
import { environmentSettings, type TargetOptions, withClient } from './session.js';
import { envFilesOptions, targetOptions } from './target-flags.js';

interface ChatsOptions extends TargetOptions {
  customer?: string;
  since?: string;
  until?: string;
  format: ChatFormat;
  output?: string;
}

/** `guidectl chats GUIDE`: every chat record of the window, streamed as JSON lines or CSV. */
export function registerChatsCommand(program: Command, ctx: CommandContext): void {
  envFilesOptions(
    targetOptions(
      program
        .command('chats')
        .summary("write a guide's chat records")
        .description(
          "write a guide's chat records (the last 30 days at most), every page, as JSON lines or CSV",
        )
        .argument('<guide>', 'the guide: its account, or openid:<openid>'),
    ),
  )
    .option('--customer <openid>', "only this customer's messages")
    .option('--since <date>', 'from this time (default: 30 days before --until)')
    .option('--until <date>', 'up to this time; a day counts whole (default: now)')
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).default('jsonl'))
    .option('-o, --output <file>', 'write the records here, whole or not at all')
    .action(async (name: string, options: ChatsOptions) => {
      const { io } = ctx;
      const zone = io.env['TZ'];
      const guide = parseGuideName(name, 'GUIDE');
      const now = Math.floor((io.now ?? Date.now)() / 1000);
      const window = resolveChatWindow(options, zone, now, (unix) => shortLocalTime(unix, zone));
      for (const note of window.notes) io.stderr.write(`guidectl: note: ${note}\n`);
      const settings = await environmentSettings(ctx, options);
      const customer =
        options.customer === undefined ? {} : { customer: parseCustomer(options.customer, '--customer') };
      const out =
        options.output === undefined
          ? streamOutput(io.stdout)
          : await openOutputFile(resolve(io.cwd, options.output), options.output, {
              flag: '-o',
              example: `chats.${options.format}`,
            });
      const render = chatPageRenderer(options.format, {
        timeZone: zone,
        escapeControls: options.output === undefined && io.stdout.isTTY,
      });
      const progress = createProgress(io, 'Reading chat records');
      const sink: ChatSink = {
        write: (records) => out.write(render(records)),
        progress: (done, known) => progress.update(done, known),
      };
      const result = await withClient(
        ctx,
        options,
        (client) => exportChats(client, { guide, ...window, ...customer }, sink),
        settings,
      )
        .finally(() => progress.finish())
        .catch(async (error: unknown) => {
          await out.abandon();
          throw error;
        });
      const outcome = chatExportOutcome(result, options.output);
      await (outcome.whole ? out.commit() : out.abandon());
      io.stderr.write(outcome.text);
      ctx.setExit(outcome.whole ? 0 : 1);
    });
}
