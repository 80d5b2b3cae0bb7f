import { hostname } from 'node:os';
import { errorCode } from '../core/errors.js';
import type { LockProcess } from '../service/db-lock.js';

/** This process, as the database lock (`service/db-lock.ts`) needs to know it. */
export function thisProcess(): LockProcess {
  return {
    pid: process.pid,
    host: hostname(),
    // Signal 0 only asks whether the pid exists. EPERM means it does, under another user.
    isRunning: (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return errorCode(error) !== 'ESRCH';
      }
    },
    now: () => new Date(),
  };
}
