import { ERRCODE } from '../wire/errcodes.js';
import type { ClientEvent } from './events.js';

/**
 * Whether an event is a wait forced by the token throttle: the token exchange answered 45011
 * (after repeated failed token requests the API refuses them all for a while, up to a minute).
 * Such a wait is told even without `--verbose`, or a command would be silent all that time.
 */
export function isThrottledTokenWait(event: ClientEvent): boolean {
  return (
    event.type === 'retry' && event.operation === 'stable_token' && event.errcode === ERRCODE.minuteQuota
  );
}

/**
 * The lines of a `--verbose` log for an event, or undefined for events the log leaves out (a wait
 * of the token throttle is logged without `--verbose` too: {@link isThrottledTokenWait}). Bodies
 * are as the client redacted them; the caller escapes control characters for its terminal.
 */
export function eventLine(event: ClientEvent): string | undefined {
  switch (event.type) {
    case 'http': {
      const outcome =
        event.status === undefined ? `failed: ${event.error ?? 'no answer'}` : `${event.status}`;
      const lines = [`guidectl: ${event.method} ${event.url} → ${outcome} (${event.durationMs} ms)`];
      lines.push(`guidectl:   > ${event.requestBody ?? '(credentials, not shown)'}`);
      if (event.status !== undefined)
        lines.push(`guidectl:   < ${event.responseBody ?? '(access token, not shown)'}`);
      return lines.join('\n');
    }
    case 'retry':
      if (isThrottledTokenWait(event))
        return `guidectl: waiting ${(event.delayMs / 1000).toFixed(1)} s: token requests are throttled (45011, after repeated failed token requests)`;
      return `guidectl: ${event.operation}: attempt ${event.attempt} failed (${event.reason}); retrying in ${event.delayMs} ms`;
    case 'token-refresh':
      return `guidectl: access token ${event.ok ? 'fetched' : 'fetch failed'} (${event.reason}${event.errcode === undefined ? '' : ` after ${event.errcode}`}${event.forced ? ', forced' : ''}) in ${event.durationMs} ms`;
    case 'confirm':
      return `guidectl: ${event.operation}: the answer was lost; confirmed by reading: ${event.outcome} (${event.detail})`;
    case 'held':
      return `guidectl: ${event.operation}: no answer within ${(event.timeoutMs / 1000).toFixed(1)} s; the server may still be working on it, so it is waited for (up to ${Math.round(event.settleMs / 1000)} s more) before anything that depends on it`;
    case 'call-start':
    case 'call-end':
      return undefined;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
