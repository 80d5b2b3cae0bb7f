import type { Command } from 'commander';
import { createGuideQrcode, parseGuideName } from '../inspect/index.js';
import { qrcodeToJson } from '../report/qrcode.js';
import { stringifyJsonPretty } from '../wire/json.js';
import type { CommandContext } from './io.js';
import { environmentSettings, type TargetOptions, withClient } from './session.js';
import { envFilesOptions, lockTimeoutFlag, targetOptions } from './target-flags.js';

interface QrcodeOptions extends TargetOptions {
  info?: string;
  json: boolean;
  lockTimeout: number;
}

/** `guidectl qrcode GUIDE`: makes the guide's QR code (`guidecreateqrcode`) and prints its URL. */
export function registerQrcodeCommand(program: Command, ctx: CommandContext): void {
  envFilesOptions(
    targetOptions(
      program
        .command('qrcode')
        .summary("make a guide's QR code; print its URL")
        .description("make a guide's QR code (whoever scans it is bound to the guide) and print its URL")
        .argument('<guide>', 'the guide: its account, or openid:<openid>'),
    ),
  )
    .option('--info <text>', 'text the scan event carries back (qrcode_info)')
    .option('--json', 'print JSON with the qrcode_url', false)
    .addOption(lockTimeoutFlag())
    .action(async (name: string, options: QrcodeOptions) => {
      const guide = parseGuideName(name, 'GUIDE');
      const settings = await environmentSettings(ctx, options);
      await withClient(
        ctx,
        options,
        async (client) => {
          const url = await createGuideQrcode(client, guide, options.info, ctx.io.stopSignal);
          ctx.io.stdout.write(
            options.json ? `${stringifyJsonPretty(qrcodeToJson(guide, url))}\n` : `${url}\n`,
          );
          ctx.setExit(0);
        },
        { ...settings, lock: { command: 'guidectl qrcode', timeoutSeconds: options.lockTimeout } },
      );
    });
}
