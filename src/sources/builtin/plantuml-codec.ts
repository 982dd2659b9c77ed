import { inflateRawSync } from 'node:zlib';
import { GatewayError } from '../../foundation/model/gateway-error.js';

/** PlantUML's own base64 alphabet: digits first, then upper, then lower case, then `-` and `_`. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_';

const DECODE_TABLE: ReadonlyMap<string, number> = new Map([...ALPHABET].map((char, index) => [char, index]));

/**
 * Ceiling on a decoded diagram. A few kilobytes of encoded text can inflate to gigabytes (a deflate
 * bomb); no real diagram comes near this.
 */
export const MAX_DECODED_BYTES = 1024 * 1024;

/**
 * Encodes diagram source the way PlantUML servers expect in their URLs: UTF-8, raw deflate at
 * level 9, then PlantUML's base64 variant. Output length is always a multiple of 4.
 *
 * Deflate runs through pako, a faithful port of reference zlib, not node:zlib: Node bundles
 * Chromium's zlib fork, whose level-9 output differs from reference zlib for most inputs, and the
 * URLs must be byte-identical to those PlantUML's own encoder (Java, reference zlib) produces.
 * The text is encoded as given (`@startuml`/`@enduml` lines kept; servers accept both forms).
 * pako is imported on the first call, not with the built-in catalog: a client's first
 * `tools/list` should not wait for a deflate implementation few sessions use.
 */
export async function encodePlantUml(source: string): Promise<string> {
  const { deflateRaw } = await import('pako');
  return encode64(deflateRaw(Buffer.from(source, 'utf8'), { level: 9 }));
}

/**
 * Decodes a PlantUML URL text back to diagram source. Accepts the standard deflate form, with or
 * without the explicit `~0` prefix, and the uncompressed hex form `~h`. The legacy Huffman form
 * (`~1`) and the other `~` variants are rejected. Failures are `validation_input` errors whose
 * `details.reason` says what is wrong.
 */
export function decodePlantUml(encoded: string): string {
  const text = encoded.trim();
  if (text === '') throw invalid('the encoded text is empty');
  if (text.startsWith('~h')) return utf8(hexToBytes(text.slice(2)));
  if (text.startsWith('~0')) return inflate(decode64(text.slice(2), 2));
  if (text.startsWith('~1')) {
    throw invalid('the "~1" prefix marks PlantUML\'s legacy Huffman encoding, which is not supported');
  }
  if (text.startsWith('~')) {
    throw invalid(`unsupported encoding prefix "${text.slice(0, 2)}" (supported: none, "~0", "~h")`);
  }
  return inflate(decode64(text, 0));
}

/**
 * PlantUML's base64: 3-byte groups to 4 characters. A trailing group of 1 or 2 bytes is padded
 * with zero bytes and still yields 4 characters (no `=`), exactly as the reference encoder does.
 */
function encode64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b1 = bytes[i] ?? 0;
    const b2 = bytes[i + 1] ?? 0;
    const b3 = bytes[i + 2] ?? 0;
    out += char(b1 >> 2);
    out += char(((b1 & 0x3) << 4) | (b2 >> 4));
    out += char(((b2 & 0xf) << 2) | (b3 >> 6));
    out += char(b3 & 0x3f);
  }
  return out;
}

function char(sixBits: number): string {
  return ALPHABET.charAt(sixBits & 0x3f);
}

/**
 * The inverse of `encode64`. The zero padding comes back as trailing zero bytes, which inflate
 * ignores because they follow the final deflate block. `offset` is where `text` starts in the
 * caller's input, so error positions match what the caller sent.
 */
function decode64(text: string, offset: number): Uint8Array {
  if (text === '') throw invalid('there is no encoded data after the prefix');
  if (text.length % 4 === 1) {
    throw invalid(`the encoded data has ${text.length} characters (4n+1), so it is truncated or corrupted`);
  }
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let bitCount = 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    const value = DECODE_TABLE.get(ch);
    if (value === undefined) {
      throw invalid(
        `invalid character ${JSON.stringify(ch)} at position ${i + offset}; PlantUML encoding uses only 0-9, A-Z, a-z, "-" and "_"`,
      );
    }
    bits = ((bits << 6) | value) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      out[n++] = (bits >> bitCount) & 0xff;
    }
  }
  return out.subarray(0, n);
}

function inflate(deflated: Uint8Array): string {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(deflated, { maxOutputLength: MAX_DECODED_BYTES });
  } catch (error) {
    if (error instanceof RangeError) {
      throw invalid(`the decoded diagram would exceed ${MAX_DECODED_BYTES} bytes`);
    }
    const message = error instanceof Error ? error.message : String(error);
    throw invalid(`the data does not inflate (${message}); it may be truncated or not a PlantUML encoding`);
  }
  return utf8(inflated);
}

function hexToBytes(hex: string): Uint8Array {
  if (hex === '') throw invalid('there is no encoded data after the "~h" prefix');
  if (hex.length % 2 !== 0) throw invalid('the "~h" hex form must have an even number of digits');
  if (hex.length / 2 > MAX_DECODED_BYTES) {
    throw invalid(`the decoded diagram would exceed ${MAX_DECODED_BYTES} bytes`);
  }
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) throw invalid(`invalid hex digit ${JSON.stringify(bad[0])} at position ${bad.index + 2}`);
  return Buffer.from(hex, 'hex');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function utf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalid('the decoded bytes are not valid UTF-8 text');
  }
}

function invalid(reason: string): GatewayError {
  return new GatewayError('validation_input', `Cannot decode PlantUML text: ${reason}`, {
    details: { path: '/encoded', reason },
  });
}
