// Splits sglang's SSE stream (`data: {json}` lines, `data: [DONE]` at the end) without ever
// holding a line: each data line's payload is fed to a fresh document as the bytes arrive, and
// the newline ends it. The final event can be hundreds of MB on one line.
import { fail, type GenerateDocument } from './generate-document.ts';

const L_START = 0,
  L_FIELD = 1,
  L_SPACE = 2,
  L_FIRST = 3,
  L_BRACKET = 4,
  L_JSON = 5,
  L_IGNORE = 6;
const OPEN_BRACKET = new Uint8Array([91]);

export class SseFramer {
  events = 0;
  sawDone = false;
  private line = L_START;
  private field = '';
  private readonly doc: GenerateDocument;

  constructor(doc: GenerateDocument) {
    this.doc = doc;
  }

  feed(buf: Uint8Array, pos: number): void {
    const end = buf.length;
    while (pos < end && !this.sawDone) {
      switch (this.line) {
        case L_START: {
          const c = buf[pos]!;
          if (c === 10 || c === 13) pos++;
          else {
            this.field = '';
            this.line = L_FIELD;
          }
          break;
        }
        case L_FIELD: {
          const c = buf[pos++]!;
          if (c === 58) this.line = this.field === 'data' ? L_SPACE : L_IGNORE;
          else if (c === 10) this.line = L_START;
          else if (this.field.length < 16) this.field += String.fromCharCode(c);
          break;
        }
        case L_SPACE:
          if (buf[pos] === 32) pos++;
          this.line = L_FIRST;
          break;
        case L_FIRST: {
          const c = buf[pos]!;
          if (c === 10) {
            pos++;
            this.line = L_START;
          } else if (c === 91) {
            // '[' opens either a JSON array or the [DONE] marker: the next byte tells.
            pos++;
            this.line = L_BRACKET;
          } else {
            this.beginEvent();
            this.line = L_JSON;
          }
          break;
        }
        case L_BRACKET:
          if (buf[pos] === 68) {
            this.sawDone = true; // the answer is complete: ignore whatever follows
            this.line = L_IGNORE;
          } else {
            this.beginEvent();
            this.doc.feed(OPEN_BRACKET, 0, 1);
            this.line = L_JSON;
          }
          break;
        case L_JSON: {
          const nl = buf.indexOf(10, pos);
          this.doc.feed(buf, pos, nl < 0 ? end : nl);
          if (nl < 0) pos = end;
          else {
            this.endEvent();
            pos = nl + 1;
            this.line = L_START;
          }
          break;
        }
        case L_IGNORE: {
          const nl = buf.indexOf(10, pos);
          pos = nl < 0 ? end : nl + 1;
          if (nl >= 0) this.line = L_START;
          break;
        }
      }
    }
  }

  /** The stream ended: a last event without its newline still counts if complete. */
  end(): void {
    if (this.line === L_JSON) this.endEvent();
    else if (this.line === L_BRACKET) fail('the stream ended inside an event');
    if (this.events === 0) fail('the stream ended with no events');
  }

  private beginEvent(): void {
    this.events++;
    this.doc.begin();
  }

  private endEvent(): void {
    if (!this.doc.complete) fail('an event ended before its JSON was complete');
  }
}
