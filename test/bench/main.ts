/**
 * `npm run bench`: every benchmark of the project, each printing its figures and aims.
 * `npm run bench -- service` runs only the sections named; the sections of `OPT_IN` (minutes
 * long) run only when named. Each section's module is loaded only when it runs.
 */
const sections: Record<string, () => Promise<void>> = {
  service: async () => (await import('./service.js')).benchService(),
  client: async () => (await import('./client.js')).benchClient(),
  validate: async () => (await import('./validate.js')).benchValidate(),
  reconcile: async () => (await import('./reconcile.js')).benchReconcile(),
  apply: async () => (await import('./apply.js')).benchApply(),
  chaos: async () => (await import('./chaos.js')).benchChaos(),
  'start-up': async () => (await import('./start-up.js')).benchStartUp(),
  scale: async () => (await import('./scale.js')).benchScale(),
  tasks: async () => (await import('./tasks.js')).benchTasks(),
  envs: async () => (await import('./envs.js')).benchEnvs(),
  quota: async () => (await import('./quota.js')).benchQuota(),
  guards: async () => (await import('./guards.js')).benchGuards(),
};
const OPT_IN = new Set(['scale', 'tasks', 'envs', 'quota']);

const wanted = process.argv.slice(2);
console.log(
  `guidectl benchmarks — command: npm run bench${wanted.length > 0 ? ` -- ${wanted.join(' ')}` : ''}`,
);
console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} cores\n`);
for (const [name, run] of Object.entries(sections)) {
  if (wanted.length > 0 ? !wanted.includes(name) : OPT_IN.has(name)) continue;
  await run();
  console.log('');
}
