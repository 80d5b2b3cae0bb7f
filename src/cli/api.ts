import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
// The file, not inspect's index: only the error classes of the client (no undici), which openTarget loads.
import { callByHand, parseRequestBody } from '../inspect/call-by-hand.js';
import { showJson } from '../report/escape.js';
import { renderOperationList } from '../report/operation-list.js';
import { stringifyJsonPretty } from '../wire/json.js';
import { isOperationName, OPERATIONS } from '../wire/operations.js';
import type { CommandContext } from './io.js';
import { environmentSettings, type TargetOptions, withClient } from './session.js';
import { envFilesOptions, lockTimeoutFlag, targetOptions } from './target-flags.js';

/** The width `--help` keeps to, as commander does when the output is not a terminal. */
const HELP_WIDTH = 80;

export function registerApiCommand(program: Command, ctx: CommandContext): void {
  envFilesOptions(
    targetOptions(
      program
        .command('api')
        .summary('make one raw call of a guide operation')
        .description(
          'make one raw call of a guide operation and print the answer as JSON (64-bit ids intact)',
        )
        .argument('<operation>', "the operation's wire name (e.g. getguideacct)")
        .argument('[json]', 'the request body, a JSON object (default {})'),
    ),
  )
    .addHelpText(
      'after',
      `\nOperations:\n${renderOperationList('  ', HELP_WIDTH)}\n\n` +
        'Target: WECHAT_ACCESS_TOKEN, or WECHAT_APPID and WECHAT_SECRET, with --base-url\n' +
        '(default https://api.weixin.qq.com); with none of them, the embedded local\n' +
        "service; with --env NAME --files PATH…, that environment's account.\n" +
        `Example: guidectl api getguideacct '{"guide_account": "alice_wx"}'`,
    )
    .addOption(lockTimeoutFlag())
    .action(
      async (
        operation: string,
        json: string | undefined,
        options: TargetOptions & { lockTimeout: number },
      ) => {
        const { io } = ctx;
        if (!isOperationName(operation)) {
          throw new UsageError(
            `unknown operation ${showJson(operation)}; the guide operations are:\n${renderOperationList()}`,
          );
        }
        const body = parseRequestBody(json);
        const settings = await environmentSettings(ctx, options);
        await withClient(
          ctx,
          options,
          async (client) => {
            // An error answer of the operation is still its answer: printed on stdout, the error on
            // stderr, exit 1.
            const { answer, error } = await callByHand(client, operation, body, io.stopSignal);
            io.stdout.write(`${stringifyJsonPretty(answer)}\n`);
            if (error !== undefined) throw error;
          },
          {
            ...settings,
            // A call that writes holds the local database's lock, as apply does.
            ...(OPERATIONS[operation].writes
              ? { lock: { command: `guidectl api ${operation}`, timeoutSeconds: options.lockTimeout } }
              : {}),
            // Nothing reads after a raw call, so an append is confirmed by a read before it, as the
            // library client does by default.
            readBeforeAppends: true,
          },
        );
      },
    );
}
