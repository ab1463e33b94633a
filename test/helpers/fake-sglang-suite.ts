// One fake sglang serve (a real child process) shared by the tests of a describe block.
import { afterAll, beforeAll } from 'vitest';
import { startFakeSglang, type FakeSglang } from '../doubles/fake-sglang/spawn.ts';

/** Started and ready before the block's first test, stopped after its last; read `url`/`serve` inside tests. */
export function fakeSglangPerSuite(args: string[], startTimeoutMs = 60_000): { readonly serve: FakeSglang; readonly url: string } {
  let serve: FakeSglang | null = null;
  let url: string | null = null;
  beforeAll(async () => {
    serve = startFakeSglang(args);
    url = await serve.ready();
  }, startTimeoutMs);
  afterAll(async () => {
    await serve?.stop();
  });
  const started = <T>(v: T | null): T => {
    if (v === null) throw new Error("the suite's fake sglang is read before its beforeAll started it");
    return v;
  };
  return {
    get serve() {
      return started(serve);
    },
    get url() {
      return started(url);
    },
  };
}
