// Runs before `npm install`, `npm start` and `npm test` (npm pre-scripts). Plain, old JavaScript on
// purpose: it must parse and run on any Node a distribution ships, and say in one sentence what to do.
/* global require, module, __dirname, process */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS so that any Node can run it */
'use strict';
var path = require('path');
var fs = require('fs');

function parse(v) {
  var m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(String(v));
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] || 0)] : null;
}

/** The minimum from package.json's "engines" (one home for the fact). */
function required() {
  var pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  return parse(pkg.engines && pkg.engines.node);
}

/** null when `found` is new enough, else the sentence to print. */
function check(found, need) {
  var have = parse(found);
  need = need || required();
  var ok = have && (have[0] > need[0] || (have[0] === need[0] && (have[1] > need[1] || (have[1] === need[1] && have[2] >= need[2]))));
  if (ok) return null;
  return (
    'engy panel needs Node.js ' +
    need.slice(0, 2).join('.') +
    ' or newer, and this is Node.js ' +
    found +
    ': install Node.js 24 (https://nodejs.org/en/download, or `nvm install 24 && nvm use 24`), then run the command again.'
  );
}

module.exports = { check: check, required: required };

if (require.main === module) {
  var problem = check(process.versions.node);
  if (problem) {
    process.stderr.write(problem + '\n');
    process.exit(1);
  }
}
