// The layers of src/, bottom up: a folder may import only folders on lower rungs (ARCHITECTURE.md).
// `npm run lint` fails on an upward import, an import between two front ends, one source folder importing
// another, or a cycle between modules.
const LAYERS = [
  ['model'],
  ['util'],
  ['archive'],
  ['sources'],
  ['collect'],
  ['stats'],
  ['insights'],
  ['report'],
  ['transcript'],
  ['privacy'],
  ['search'],
  ['site'],
  // Front ends: nothing imports them but the CLI, which starts the other two.
  ['mcp', 'export'],
  ['cli'],
];

const folder = (names) => `^src/(${names.join('|')})/`;

const upward = LAYERS.flatMap((rung, i) => {
  const above = LAYERS.slice(i + 1).flat();
  if (above.length === 0) return [];
  return [
    {
      name: `layer-${rung.join('-')}`,
      comment: `${rung.join(' and ')} may import only the layers below it (${LAYERS.slice(0, i).flat().join(', ') || 'none'}).`,
      severity: 'error',
      from: { path: folder(rung) },
      to: { path: folder(above) },
    },
  ];
});

const sideways = LAYERS.filter((rung) => rung.length > 1).flatMap((rung) =>
  rung.map((name) => ({
    name: `sibling-${name}`,
    comment: `${rung.join(' and ')} are on one rung and do not import each other.`,
    severity: 'error',
    from: { path: folder([name]) },
    to: { path: folder(rung.filter((other) => other !== name)) },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    ...sideways,
    {
      name: 'src-folders-only',
      comment: 'Every module of src/ lives in one of the layers.',
      severity: 'error',
      from: { path: '^src/', pathNot: `${folder(LAYERS.flat())}|\\.d\\.ts$` },
      to: {},
    },
    {
      name: 'one-source-folder',
      comment: 'Each source is one folder behind the Source interface: it does not reach into another source.',
      severity: 'error',
      from: { path: '^src/sources/([^/]+)/' },
      to: { path: '^src/sources/[^/]+/', pathNot: '^src/sources/$1/' },
    },
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-tests-or-scripts-in-src',
      comment: 'src/ does not import the tests, the scripts or the fixtures.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|scripts|fixtures)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.js$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
