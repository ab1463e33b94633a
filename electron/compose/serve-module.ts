// Serve setup: finding Python/Docker runtimes and installing sglang, with its topic and handlers.
import { SglangSetupService } from '../engine/serve/sglang-setup-service.ts';
import { toDisposable } from '../engine/lib/disposable.ts';
import type { Wiring } from './wiring.ts';

export function wireServe(w: Wiring): SglangSetupService {
  w.module('serve');
  const { paths, logs } = w.rt;
  const sglang = new SglangSetupService({ dataDir: paths.root, log: logs.logger('sglang-setup') });
  w.add(toDisposable(() => sglang.dispose()));
  w.bind(
    'sglang',
    () => sglang.snapshot(),
    (l) => sglang.onDidChange(l),
  );
  w.handle({
    'serve.detectRuntimes': (req) => sglang.detect(req.refresh),
    'serve.installSglang': () => {
      sglang.start();
      return null;
    },
    'serve.cancelSglangInstall': () => {
      sglang.cancel();
      return null;
    },
  });
  return sglang;
}
