// TEST DOUBLE, never shipped: plays a `vite build` that fails with a message.
/* global process */
process.stderr.write('boom: a syntax error\n');
process.exit(1);
