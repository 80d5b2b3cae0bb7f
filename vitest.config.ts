import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

// Test files share a worker process and its loaded modules: loading src/ and compiling the schema
// once per file was a third of the suite's time. The test files themselves are still run afresh.
// A file that mocks a module needs a module registry of its own, or the modules loaded before it
// keep the real one: those files run in the project "isolated", found here by their vi.mock.

const TESTS = 'test';
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
const MOCKING = /\bvi\s*\.\s*(mock|doMock)\s*\(/;
const mocking = testFiles(TESTS).filter((file) => MOCKING.test(readFileSync(file, 'utf8')));

export default defineConfig({
  test: {
    pool: 'forks',
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: [`${TESTS}/**/*.test.ts`],
          exclude: [...configDefaults.exclude, ...mocking],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: mocking, isolate: true },
      },
    ],
  },
});
