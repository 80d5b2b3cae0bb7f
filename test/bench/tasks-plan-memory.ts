import { createGuideClient } from '../../src/client/index.js';
import { loadDesiredState } from '../../src/config/index.js';
import { readLiveState, readOnlyClient, readScopeFor } from '../../src/live/index.js';
import { planChanges } from '../../src/plan/index.js';

// Run by the tasks benchmark in a process of its own: loads the files, reads the account (the
// least the files need), compares; prints one JSON line of figures.
const [file, url, appid, secret] = process.argv.slice(2);
if (file === undefined || url === undefined || appid === undefined || secret === undefined)
  throw new Error('usage: tasks-plan-memory FILE URL APPID SECRET');

let started = performance.now();
const loaded = await loadDesiredState([file]);
const desired = loaded.state;
if (desired === undefined) throw new Error(JSON.stringify(loaded.diagnostics.slice(0, 3)));
const loadSeconds = (performance.now() - started) / 1000;

const client = createGuideClient({ baseUrl: url, auth: { appid, secret } });
started = performance.now();
const live = await readLiveState(readOnlyClient(client), readScopeFor(desired));
const readSeconds = (performance.now() - started) / 1000;
await client.close();

started = performance.now();
const result = planChanges(desired, live);
const compareSeconds = (performance.now() - started) / 1000;
const peakMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(
  `${JSON.stringify({
    loadSeconds,
    readSeconds,
    compareSeconds,
    calls: result.plan?.calls.length ?? -1,
    warnings: result.diagnostics.length,
    peakMb,
  })}\n`,
);
