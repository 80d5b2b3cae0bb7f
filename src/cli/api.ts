import type { Command } from 'commander';
// Only the error classes (no undici): the client itself is loaded by openTarget.
import { GuideApiError } from '../client/errors.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { isRecord } from '../core/records.js';
import { showJson } from '../report/escape.js';
import { parseJson, stringifyJsonPretty } from '../wire/json.js';
import { isOperationName, OPERATION_NAMES, OPERATIONS } from '../wire/operations.js';
import type { CommandContext } from './io.js';
import { type TargetOptions, withClient } from './session.js';
import { targetOptions } from './target-flags.js';

function operationList(): string {
  const reads = OPERATION_NAMES.filter((op) => !OPERATIONS[op].writes);
  const writes = OPERATION_NAMES.filter((op) => OPERATIONS[op].writes);
  return `reads: ${reads.join(', ')}\nwrites: ${writes.join(', ')}`;
}

/** The request body argument: a JSON object, read without losing 64-bit ids. */
function readBody(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    const why = errorMessage(error);
    throw new UsageError(`the request body is not valid JSON: ${why}`);
  }
  if (!isRecord(value)) {
    throw new UsageError('the request body must be a JSON object, e.g. \'{"guide_account": "alice_wx"}\'');
  }
  return value;
}

export function registerApiCommand(program: Command, ctx: CommandContext): void {
  targetOptions(
    program
      .command('api')
      .description('make one raw call of a guide operation and print the answer as JSON (64-bit ids intact)')
      .argument('<operation>', 'the operation, by its wire name (e.g. getguideacct)')
      .argument('[json]', 'the request body, a JSON object (default {})'),
  )
    .addHelpText(
      'after',
      `\nOperations:\n${operationList()
        .split('\n')
        .map((l) => `  ${l}`)
        .join(
          '\n',
        )}\n\nTarget: WECHAT_ACCESS_TOKEN, or WECHAT_APPID and WECHAT_SECRET, with --base-url (default ` +
        'https://api.weixin.qq.com); with none of them, the embedded local service.\n' +
        `Example: guidectl api getguideacct '{"guide_account": "alice_wx"}'\n`,
    )
    .action(async (operation: string, json: string | undefined, options: TargetOptions) => {
      const { io } = ctx;
      if (!isOperationName(operation)) {
        throw new UsageError(
          `unknown operation ${showJson(operation)}; the guide operations are:\n${operationList()}`,
        );
      }
      const body = readBody(json);
      await withClient(
        ctx,
        options,
        async (client) => {
          try {
            const answer = await client.call(operation, body);
            io.stdout.write(`${stringifyJsonPretty(answer)}\n`);
          } catch (error) {
            // An error answer of the operation is still its answer: printed on stdout as it came
            // (`{"errcode", "errmsg"}`, the errmsg scrubbed of secrets), the error on stderr, exit 1.
            if (error instanceof GuideApiError && error.operation === operation)
              io.stdout.write(`${stringifyJsonPretty({ errcode: error.errcode, errmsg: error.errmsg })}\n`);
            throw error;
          }
        },
        {
          // A call that writes holds the local database's lock, as apply does.
          ...(OPERATIONS[operation].writes
            ? { lock: { command: `guidectl api ${operation}`, timeoutSeconds: 0 } }
            : {}),
          // Nothing reads after a raw call, so an append is confirmed by a read before it, as the
          // library client does by default.
          readBeforeAppends: true,
        },
      );
    });
}
