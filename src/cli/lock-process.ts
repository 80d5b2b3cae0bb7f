import { hostname } from 'node:os';
import { isProcessRunning, type LockProcess } from '../service/db-lock.js';

/** This process, as the database lock (`service/db-lock.ts`) needs to know it. */
export function thisProcess(): LockProcess {
  return {
    pid: process.pid,
    host: hostname(),
    isRunning: isProcessRunning,
    now: () => new Date(),
  };
}
