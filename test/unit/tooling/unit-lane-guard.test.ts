// The fast lane's guard (test/setup/unit-lane.ts): a unit test that starts a process or opens a
// socket fails at once with what to do, so slow tests cannot creep back into test/unit.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { describe, expect, it } from 'vitest';

const MOVE = /the unit lane starts no process and opens no socket .*move this test to test\/integration\//;

describe('unit lane guard', () => {
  it('refuses to start a process, by any of the starters', () => {
    expect(() => spawn(process.execPath, ['-e', ''])).toThrow(MOVE);
    expect(() => execFile(process.execPath, ['-e', ''])).toThrow(MOVE);
    expect(() => spawnSync(process.execPath, ['-e', ''])).toThrow(MOVE);
  });

  it('refuses to listen on or dial a socket', () => {
    expect(() => createServer().listen(0)).toThrow(MOVE);
    expect(() => connect(1, '127.0.0.1')).toThrow(MOVE);
  });
});
