import { NOISE_WA_HEADER } from '@whiskeysockets/baileys';

/** Largest frame the 3-byte length prefix can announce. */
export const MAX_FRAME_BYTES = 0xff_ffff;

/** Prefixes a payload with its 3-byte big-endian length (WhatsApp's frame format). */
export function encodeFrame(payload: Uint8Array): Buffer {
  if (payload.length > MAX_FRAME_BYTES) throw new RangeError(`frame of ${payload.length} bytes exceeds ${MAX_FRAME_BYTES}`);
  const frame = Buffer.allocUnsafe(3 + payload.length);
  frame.writeUIntBE(payload.length, 0, 3);
  frame.set(payload, 3);
  return frame;
}

/**
 * Splits the client's byte stream into frames. The client's first bytes are its intro header: `WA`,
 * protocol 6, dictionary version — optionally preceded by an `ED` edge-routing block (`ED`, 0, 1, 3-byte
 * length, routing info) when it reconnects with routing info it was given.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  private sawIntro = false;
  /** Routing info the client sent in an `ED` block, if any. */
  routingInfo: Buffer | undefined;

  /** Adds received bytes; returns the complete frames, throws on a malformed intro. */
  push(data: Uint8Array): Buffer[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, data]) : Buffer.from(data);
    if (!this.sawIntro && !this.readIntro()) return [];
    const frames: Buffer[] = [];
    while (this.buffered.length >= 3) {
      const size = this.buffered.readUIntBE(0, 3);
      if (this.buffered.length < 3 + size) break;
      frames.push(this.buffered.subarray(3, 3 + size));
      this.buffered = this.buffered.subarray(3 + size);
    }
    return frames;
  }

  private readIntro(): boolean {
    let offset = 0;
    if (this.buffered.length >= 2 && this.buffered.toString('latin1', 0, 2) === 'ED') {
      if (this.buffered.length < 7) return false;
      const routingLength = (this.buffered[4]! << 16) | this.buffered.readUInt16BE(5);
      if (this.buffered.length < 7 + routingLength) return false;
      this.routingInfo = Buffer.from(this.buffered.subarray(7, 7 + routingLength));
      offset = 7 + routingLength;
    }
    if (this.buffered.length < offset + NOISE_WA_HEADER.length) return false;
    const header = this.buffered.subarray(offset, offset + NOISE_WA_HEADER.length);
    if (!header.equals(NOISE_WA_HEADER)) throw new Error(`unexpected intro header ${header.toString('hex')}`);
    this.buffered = this.buffered.subarray(offset + NOISE_WA_HEADER.length);
    this.sawIntro = true;
    return true;
  }
}
