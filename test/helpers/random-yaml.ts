/**
 * Random YAML documents in and around the block subset that the fast reader handles
 * (src/config/read-block-yaml.ts), for the test that holds it to the yaml package: keys and
 * scalars that look like numbers, booleans and null; text with ":", "#", quotes, brackets, URLs and
 * Unicode; nested mappings and lists, compact mappings in list items, lists at their key's
 * indentation, flow lists, `{}`, empty values; comments and blank lines at every indentation;
 * duplicate keys; trailing spaces; and a few mutations that leave the subset or break the syntax.
 */

/** A seeded generator (mulberry32): the same seed gives the same documents on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'version',
  'account',
  'guides',
  'nickname',
  'name',
  'words',
  'a',
  'b',
  'key_1',
  'head_image_url',
  '1',
  '01',
  '0x1F',
  '0o17',
  '1e3',
  '.5',
  '-0',
  '+1',
  '1_000',
  '0b1',
  'null',
  'Null',
  '~',
  'true',
  'True',
  'FALSE',
  'yes',
  '.inf',
  '.NaN',
  '12345678901234567890',
  '__proto__',
  'constructor',
  'toString',
  '名前',
  'a b',
  'a:b',
  'a#b',
  'a-b',
  '"quoted key"',
  "'single'",
  '"__proto__"',
  '"1"',
  '"a: b"',
  "'it''s'",
  '"tab\\tkey"',
  '<<',
  '? x',
  '&anchor a',
  '!tag k',
  '-k',
  '[k]',
  '{k}',
  'k,2',
];

/** Scalars inside the subset (as far as the reader is meant to take them). */
const SCALARS = [
  'x',
  'Store 1',
  'Guide 42',
  'hello world',
  '1',
  '0',
  '-7',
  '+3',
  '007',
  '0x1F',
  '0o17',
  '0b101',
  '1.5',
  '1.',
  '.5',
  '1e3',
  '-1.5E-3',
  '6.02e+23',
  '1e400',
  '.inf',
  '-.Inf',
  '.nan',
  '.NAN',
  'NaN',
  '12345678901234567890',
  '1_000',
  'null',
  'Null',
  'NULL',
  'nULL',
  '~',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'yes',
  'no',
  'on',
  'https://mmbiz.qpic.cn/mmbiz_jpg/a/0',
  'pages/store/index?guide=1&x=2',
  'a:b',
  'a #b',
  'a#b',
  'x # y: z',
  "it's",
  'say "hi"',
  '"quoted"',
  "'single'",
  "'it''s'",
  '""',
  "''",
  '"a: b # c"',
  '"\\u00e9t\\u00e9 \\x41 \\U0001F600"',
  '"line\\nbreak \\"q\\" \\\\ \\/ \\t \\0 \\_"',
  '退款',
  '差评 😀',
  'Anna [Store 1]',
  'a, b',
  'x{y}',
  '-x',
  '[]',
  '[ ]',
  '{}',
  '{ }',
  '[a, "b", 1, true, null, ~]',
  "[ refund , 'cheap' , 退款 ]",
  '[a,b]',
  '[a b, c]',
  '[ "x" ]',
  '"x" # y',
  '[a] # c',
  '\u00a0nbsp',
  'x\u00a0',
];

/** Scalars just outside it: the reader must decline them or agree with the yaml package. */
const AROUND = [
  'a: b',
  'a:',
  '#x',
  '"bad \\q escape"',
  '"\\uZZZZ"',
  '"unclosed',
  "'unclosed",
  '- x',
  '-',
  '?x',
  '? x',
  ':x',
  '@x',
  '`x`',
  '%x',
  '!x',
  '!!str x',
  '&a x',
  '*a',
  '|',
  '>',
  '{a: 1}',
  '[a, [b]]',
  '[a, ]',
  '[, a]',
  '[-1]',
  '[a: b]',
  '[a#b]',
  '[a',
  '"x"#y',
  '[a]x',
];

type Shape = 'scalar' | 'map' | 'seq' | 'empty';

interface Layout {
  readonly step: number;
  readonly dashSpaces: number;
  readonly sameIndentLists: boolean;
}

/** One random document (usually a root mapping), as text. */
export function randomDocument(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const chance = (p: number): boolean => random() < p;
  const layout: Layout = {
    step: pick([2, 2, 2, 4, 1, 3]),
    dashSpaces: pick([1, 1, 1, 2, 3]),
    sameIndentLists: chance(0.3),
  };
  const lines: string[] = [];
  const pad = (n: number): string => ' '.repeat(n);
  const comment = (): string => pick([' # note', ' #', '  # a: b', ' # - x', ' #x']);
  const trail = (): string => (chance(0.1) ? comment() : chance(0.1) ? pick([' ', '  ']) : '');
  const extras = (indent: number): void => {
    while (chance(0.18)) {
      const at = Math.max(0, indent + pick([-4, -2, -1, 0, 0, 1, 2, 4, 6]));
      lines.push(
        chance(0.5) ? pad(at) + pick(['# comment', '#', '# x: y', '#- z']) : pick(['', ' ', pad(at)]),
      );
    }
  };
  const shape = (depth: number): Shape =>
    depth > 4 ? pick(['scalar', 'empty']) : pick(['scalar', 'scalar', 'scalar', 'map', 'seq', 'empty']);
  const key = (used: string[]): string => {
    const k =
      used.length > 0 && chance(0.08) ? pick(used) : chance(0.85) ? pick(KEYS.slice(0, 12)) : pick(KEYS);
    used.push(k);
    return k;
  };
  const scalar = (): string => (chance(0.93) ? pick(SCALARS) : pick(AROUND));
  const colon = (): string => (chance(0.08) ? pick(['  :', ' :']) : ':');
  const space = (): string => pick([' ', ' ', ' ', '  ']);

  // `first` is what goes before the first key of a mapping on its first line ("- " for a list item).
  const map = (indent: number, depth: number, first: string | undefined): void => {
    const used: string[] = [];
    const entries = 1 + Math.floor(random() * 4);
    for (let i = 0; i < entries; i++) {
      const prefix = i === 0 && first !== undefined ? first : pad(indent);
      entry(prefix, indent, depth, key(used));
      extras(indent);
    }
  };
  const entry = (prefix: string, indent: number, depth: number, k: string): void => {
    const s = shape(depth);
    if (s === 'scalar') lines.push(`${prefix}${k}${colon()}${space()}${scalar()}${trail()}`);
    else if (s === 'empty') lines.push(`${prefix}${k}${colon()}${chance(0.3) ? ' ' : ''}${trail()}`);
    else {
      lines.push(`${prefix}${k}:${trail()}`);
      extras(indent);
      const inner = s === 'seq' && layout.sameIndentLists ? indent : indent + layout.step;
      if (s === 'map') map(indent + layout.step, depth + 1, undefined);
      else seq(inner, depth + 1);
    }
  };
  const seq = (indent: number, depth: number): void => {
    const items = 1 + Math.floor(random() * 4);
    for (let i = 0; i < items; i++) {
      const dash = `${pad(indent)}-${pad(layout.dashSpaces)}`;
      const s = shape(depth);
      if (s === 'map') map(indent + 1 + layout.dashSpaces, depth + 1, dash);
      else if (s === 'scalar') lines.push(`${dash}${scalar()}${trail()}`);
      else if (s === 'empty') lines.push(`${pad(indent)}-${chance(0.3) ? ' ' : ''}${trail()}`);
      else {
        lines.push(`${dash}- ${scalar()}`);
      }
      extras(indent);
    }
  };

  extras(0);
  map(0, 0, undefined);
  let text = lines.join('\n') + (chance(0.8) ? '\n' : '');
  if (chance(0.15)) text = mutate(text, random);
  return text;
}

/** A change that usually takes the text out of the subset or breaks it. */
function mutate(text: string, random: () => number): string {
  const at = Math.floor(random() * (text.length + 1));
  const insert = [
    '\t',
    '\r',
    '---\n',
    '...\n',
    '&a ',
    '*a',
    '!!str ',
    '|',
    ' ',
    '  ',
    ':',
    '-',
    '#',
    '"',
    "'",
    '\n  ',
  ];
  const what = insert[Math.floor(random() * insert.length)] ?? ' ';
  if (random() < 0.3) return text.slice(0, at) + text.slice(at + 1);
  return text.slice(0, at) + what + text.slice(at);
}
