import type { Command } from 'commander';
import { parseGuideName, pathMenuRequest, sendPathMenu } from '../inspect/index.js';
import { pathMenuSentNotice } from '../report/path-menu.js';
import type { CommandContext } from './io.js';
import { environmentSettings, type TargetOptions, withClient } from './session.js';
import { envFilesOptions, lockTimeoutFlag, targetOptions } from './target-flags.js';

interface PathMenuOptions extends TargetOptions {
  appid: string;
  lockTimeout: number;
}

/** `guidectl path-menu GUIDE --appid APPID`: `pushshowwxapathmenu` to the guide's WeChat ID. */
export function registerPathMenuCommand(program: Command, ctx: CommandContext): void {
  envFilesOptions(
    targetOptions(
      program
        .command('path-menu')
        .summary("send a guide a mini program's path menu")
        .description("send a guide a mini program's page-path menu: for 60 days they may copy its page paths")
        .argument('<guide>', "the guide's account (its WeChat ID gets the menu)"),
    ),
  )
    .requiredOption('--appid <appid>', 'the mini program (wx and 16 hex digits)')
    .addOption(lockTimeoutFlag())
    .action(async (name: string, options: PathMenuOptions) => {
      const guide = parseGuideName(name, 'GUIDE');
      const request = pathMenuRequest(guide, options.appid);
      const settings = await environmentSettings(ctx, options);
      await withClient(
        ctx,
        options,
        async (client) => {
          await sendPathMenu(client, guide, request, ctx.io.stopSignal);
          ctx.io.stdout.write(pathMenuSentNotice(options.appid, guide));
          ctx.setExit(0);
        },
        { ...settings, lock: { command: 'guidectl path-menu', timeoutSeconds: options.lockTimeout } },
      );
    });
}
