import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileSchema, fileSchemaText } from '../../src/config/file-schema.js';
import { ACCOUNT_SCHEMA } from '../../src/kinds/account/schema.js';
import { GROUP_SCHEMA } from '../../src/kinds/group/schema.js';
import { GUIDE_SCHEMA } from '../../src/kinds/guide/schema.js';
import { GUIDE_CONFIG_SCHEMA } from '../../src/kinds/guide-config/schema.js';
import { MEMBERSHIP_SCHEMA } from '../../src/kinds/membership/schema.js';
import { TASK_SCHEMA } from '../../src/kinds/task/schema.js';

const SCHEMA_FILE = new URL('../../schema/guidectl.schema.json', import.meta.url);

describe('schema/guidectl.schema.json, put together from the kinds', () => {
  it('is the committed file, byte for byte (npm run build writes it)', () => {
    expect(fileSchemaText()).toBe(readFileSync(SCHEMA_FILE, 'utf8'));
  });

  it("holds each kind's fragment as its $defs entries", () => {
    const defs = fileSchema()['$defs'] as Record<string, unknown>;
    const kinds = [
      GUIDE_SCHEMA,
      GUIDE_CONFIG_SCHEMA,
      GROUP_SCHEMA,
      MEMBERSHIP_SCHEMA,
      ACCOUNT_SCHEMA,
      TASK_SCHEMA,
    ];
    for (const fragment of kinds) {
      for (const [name, def] of Object.entries(fragment)) expect(defs[name], name).toBe(def);
    }
    expect(Object.keys(GUIDE_SCHEMA)).toEqual(
      expect.arrayContaining(['guide', 'guideAccount', 'openid', 'nickname', 'headImageUrl']),
    );
  });
});
