// Builds ../../static/plotly-ragrecall.min.js the way plotly.js builds its own dist files
// (its esbuild-config.js), from entry.js. Run `npm ci && npm run build` here.
const path = require('path');
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');
const { version } = require('plotly.js/package.json');

esbuild
  .build({
    entryPoints: [path.join(__dirname, 'entry.js')],
    outfile: path.join(__dirname, '..', '..', 'static', 'plotly-ragrecall.min.js'),
    format: 'iife',
    globalName: 'Plotly',
    bundle: true,
    minify: true,
    sourcemap: false,
    plugins: [InlineCSSPlugin(), environmentPlugin({ NODE_DEBUG: false })],
    alias: { stream: 'stream-browserify' },
    define: { global: 'window', 'define.amd': 'false' },
    target: 'es2016',
    legalComments: 'eof',
    banner: {
      js:
        `/* plotly.js v${version} (core, bar, box): ragrecall's chart bundle, ` +
        'built by scripts/chart_bundle. Copyright 2012-2026, Plotly, Inc. ' +
        'MIT licence: static/plotly.js-LICENSE.txt */',
    },
    logLevel: 'info',
  })
  .catch(() => process.exit(1));
