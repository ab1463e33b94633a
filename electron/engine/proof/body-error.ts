// The one error the /generate body parser throws: the body is not what sglang sends.

export class GenerateBodyError extends Error {
  override readonly name = 'GenerateBodyError';
}

/** What to tell the user when a serve answers without hidden states (PROTOCOL.md section 4.5). */
export const NO_HIDDEN_STATES_MESSAGE =
  'The serve returned no hidden states, so no proof can be built: start sglang with --enable-return-hidden-states, ' + 'and make sure nothing on its PYTHONPATH empties meta_info.hidden_states.';
