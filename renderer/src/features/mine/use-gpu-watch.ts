import { useEffect } from 'react';
import { engineApi } from '../../stores/engine-store.ts';

/** While the engine does not answer gpus.watch (an older rig, a dropped link), ask again this often. */
const RETRY_MS = 15_000;

/**
 * Holds the engine's GPU watch lease while the calling component is mounted: the engine samples the
 * GPUs at 1 Hz until the lease lapses, so renewing at a third of it keeps the pace through a slow
 * answer, and a closed page costs the rig nothing after the lease ends.
 */
export function useGpuWatch(): void {
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const renew = () =>
      void engineApi()
        .invoke('gpus.watch', null)
        .then((r) => {
          if (live) timer = setTimeout(renew, r.ok ? Math.max(1_000, r.value.leaseMs / 3) : RETRY_MS);
        });
    renew();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
}
