import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { errorCode } from '../core/errors.js';
import type { LockProcess } from '../service/db-lock.js';

/** This process, as the database lock (`service/db-lock.ts`) needs to know it. */
export function thisProcess(): LockProcess {
  return {
    pid: process.pid,
    host: hostname(),
    isRunning: isProcessRunning,
    now: () => new Date(),
  };
}

/**
 * Whether a process of this host has `pid` and still runs. Signal 0 only asks whether the pid
 * exists (EPERM: it does, under another user). A zombie — a process that ended (a `kill -9`) and
 * that its parent has not reaped yet — still has its pid and answers signal 0, but holds nothing:
 * Linux shows it in state Z (or X, dead) in /proc/PID/stat, and it counts as not running, so that
 * a serve restarted right after a `kill -9` of the last one is not refused. Without /proc the
 * signal's answer stands.
 */
function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errorCode(error) !== 'ESRCH';
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // Gone between the two looks; otherwise no /proc here (not Linux): the signal said it runs.
    return errorCode(error) !== 'ENOENT' || !readableProc();
  }
  // `PID (COMMAND) STATE …`: the command may hold spaces and parentheses, so the state follows the last `)`.
  const state = stat.slice(stat.lastIndexOf(')') + 1).trim()[0];
  return state !== 'Z' && state !== 'X';
}

function readableProc(): boolean {
  try {
    readFileSync('/proc/self/stat', 'utf8');
    return true;
  } catch {
    return false;
  }
}
