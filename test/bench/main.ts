import { benchApply } from './apply.js';
import { benchChaos } from './chaos.js';
import { benchClient } from './client.js';
import { benchReconcile } from './reconcile.js';
import { benchService } from './service.js';
import { benchValidate } from './validate.js';

/**
 * `npm run bench`: every benchmark of the project, each printing its figures and aims.
 * `npm run bench -- service` runs only the sections named.
 */
const sections: Record<string, () => Promise<void>> = {
  service: benchService,
  client: benchClient,
  validate: benchValidate,
  reconcile: benchReconcile,
  apply: benchApply,
  chaos: benchChaos,
};

const wanted = process.argv.slice(2);
console.log(
  `guidectl benchmarks — command: npm run bench${wanted.length > 0 ? ` -- ${wanted.join(' ')}` : ''}`,
);
console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} cores\n`);
for (const [name, run] of Object.entries(sections)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await run();
  console.log('');
}
