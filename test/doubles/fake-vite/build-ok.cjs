// TEST DOUBLE, never shipped: plays `vite build` in a temp checkout by writing the built index.html.
/* global require */
/* eslint-disable @typescript-eslint/no-require-imports */
const fs = require('fs');
fs.mkdirSync('dist-renderer', { recursive: true });
fs.writeFileSync('dist-renderer/index.html', '<!doctype html><title>built</title>');
