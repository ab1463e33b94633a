// Issue 32 item 2: a failed request's error is {message, type, status}; a status only when the
// failure has one, and a 4xx only when the buyer's request caused it.
import { describe, expect, it } from 'vitest';
import { BadRequestError, clientFacingStatus, responseErrorOf, unservableFrameError } from '../../../electron/engine/miner/response-errors.ts';
import { ServeHttpError } from '../../../electron/engine/miner/serve-http.ts';

describe('response errors', () => {
  it("relays the serve's own status: its 4xx is the buyer's, its 5xx stays a 5xx", () => {
    expect(responseErrorOf(new ServeHttpError(400, 'serve 400: top_p must be <= 1'))).toEqual({ message: 'serve 400: top_p must be <= 1', type: 'ServeError', status: 400 });
    expect(responseErrorOf(new ServeHttpError(503, 'serve 503: overloaded'))).toMatchObject({ status: 503 });
  });

  it("relabels only the serve 500s whose text comes from the buyer's payload", () => {
    expect(clientFacingStatus(500, 'Error while loading image data: bad base64')).toBe(400);
    expect(clientFacingStatus(500, 'CUDA out of memory')).toBe(500);
    expect(clientFacingStatus(502, 'cannot identify image file')).toBe(502);
  });

  it('a request the template refused is a 400; a serve that cannot be reached has no status', () => {
    expect(responseErrorOf(new BadRequestError('the chat template refused the request: x'))).toMatchObject({ type: 'BadRequest', status: 400 });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(responseErrorOf(refused)).toMatchObject({ type: 'MinerError', status: null });
    expect(responseErrorOf('plain text')).toEqual({ message: 'plain text', type: 'MinerError', status: null });
    expect(unservableFrameError('serve without request.messages')).toMatchObject({ type: 'BadRequest', status: 400 });
  });
});
