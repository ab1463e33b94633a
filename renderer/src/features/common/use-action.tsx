// The one way a page runs an engine call on the user's behalf: it shows the call as busy and every
// failed Result as a sentence next to the control, so no refusal is swallowed by a `void invoke(...)`.
import { useMemo, useState } from 'react';
import type { EngineApi, InvokeMethod, InvokeRequest, InvokeResponse } from '../../../../shared/api.ts';
import { errorMessage } from '../../../../shared/errors.ts';
import type { Result } from '../../../../shared/result.ts';
import { engineApi } from '../../stores/engine-store.ts';

const NO_ANSWER = 'The engine did not answer. Check the connection banner and try again.';

function thrownSentence(e: unknown): string {
  const m = errorMessage(e);
  return m ? `${NO_ANSWER} (${m})` : NO_ANSWER;
}

export interface ActionState {
  busy: boolean;
  /** The last failure's sentence (the engine's AppError message), or null. */
  error: string | null;
}

export interface ActionRunner {
  /** Runs a step that resolves an error sentence or null (for steps made of several calls). */
  run(step: () => Promise<string | null>): Promise<void>;
  /** Invokes one method; a failed Result shows its message. Resolves the Result for callers that read it. */
  invoke<M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>>;
  clear(): void;
}

/**
 * The state machine behind `useAction`, free of React so it is tested on its own. A step that throws
 * (the engine store not connected yet, a transport fault) is shown like a refusal, never lost.
 */
export function actionRunner(set: (next: (prev: ActionState) => ActionState) => void, api: () => EngineApi = engineApi): ActionRunner {
  let pending = 0;
  const begin = () => {
    pending += 1;
    set(() => ({ busy: true, error: null }));
  };
  const end = (error: string | null) => {
    pending -= 1;
    const busy = pending > 0;
    set((prev) => ({ busy, error: error ?? prev.error }));
  };
  const run = async (step: () => Promise<string | null>) => {
    begin();
    try {
      end(await step());
    } catch (e) {
      end(thrownSentence(e));
    }
  };
  const invoke = async <M extends InvokeMethod>(method: M, req: InvokeRequest<M>): Promise<Result<InvokeResponse<M>>> => {
    begin();
    try {
      const r = await api().invoke(method, req);
      end(r.ok ? null : r.error.message);
      return r;
    } catch (e) {
      const message = thrownSentence(e);
      end(message);
      return { ok: false, error: { code: 'unavailable', message } };
    }
  };
  return { run, invoke, clear: () => set((prev) => ({ ...prev, error: null })) };
}

export function useAction(): ActionState & ActionRunner {
  const [state, setState] = useState<ActionState>({ busy: false, error: null });
  const runner = useMemo(() => actionRunner(setState), []);
  return { ...state, ...runner };
}

/** Where a failed action's sentence appears. */
export function ActionError({ error }: { error: string | null }) {
  return error ? (
    <div className="error-box" role="alert">
      {error}
    </div>
  ) : null;
}
