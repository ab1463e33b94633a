import { useId, type ReactNode } from 'react';

/** Plain-words help for the jargon the main screens use. One home: every page explains a term from here. */
export const GLOSSARY = {
  legs: 'Legs: the WebSocket connections this miner holds open to the gateway, one per gateway worker. Requests arrive on any leg; fewer live legs means less traffic.',
  probe: 'Probe: synthetic traffic the gateway sends a newly connected miner to check speed and proofs before it routes paid requests. Never billed, never scored.',
  TOPLOC: 'TOPLOC: a proof of the model activations sent with every answer. The auditor recomputes the activations and compares; too many mismatches means a different model or quantisation.',
  MAX_INFLIGHT: 'MAX_INFLIGHT: how many requests this rig accepts at once, declared to the gateway and split across the legs.',
  tp2: 'tp2: tensor parallel over 2 GPUs, one engine whose model is split across two cards.',
  u16: 'u16: weights on chain are integers from 0 to 65,535; 65,535 is the whole miner emission of the epoch.',
  'skipped:too-soon': 'skipped: too soon: the validator checked and nothing needed to be sent yet (the same epoch is resubmitted only every 120 blocks).',
  'self-audit': 'Self-audit: this app re-runs a sample of served requests and checks the proof it sent, as the auditor would, to catch drift before the auditor does.',
  epoch: 'Epoch: the provider scores traffic per epoch (daily in production); each verified epoch result sets the weights validators put on chain.',
} as const;

export type GlossaryKey = keyof typeof GLOSSARY;

/** A jargon word with its explanation on hover and on keyboard focus (the word is focusable). */
export function Term({ k, children }: { k: GlossaryKey; children?: ReactNode }) {
  const id = useId();
  return (
    <span className="term" tabIndex={0} aria-describedby={id}>
      {children ?? k}
      <span role="tooltip" id={id} className="term-tip">
        {GLOSSARY[k]}
      </span>
    </span>
  );
}
