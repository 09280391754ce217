'use strict';
// plotly.js's core (which holds the scatter trace, shapes, annotations, hover and click)
// with the two more traces the dashboard draws: bars (Overview, Failures, Ranks) and boxes
// (No-answer). The same version as the plotly Python package's own plotly.js.
var Plotly = require('plotly.js/lib/core');

Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/box')]);

module.exports = Plotly;
