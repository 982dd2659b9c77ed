import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { deflateRaw } from 'pako';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { decodePlantUml, encodePlantUml, MAX_DECODED_BYTES } from './plantuml-codec.js';

// The npm encoder is an oracle for tests only (a devDependency); it ships no types.
const require = createRequire(import.meta.url);
const oracle = require('plantuml-encoder') as {
  encode(source: string): string;
  decode(text: string): string;
};

const deflatedLength = (source: string): number =>
  deflateRaw(Buffer.from(source, 'utf8'), { level: 9 }).length;

/** Known-good encodings made with reference zlib, as PlantUML's Java encoder makes them. */
const VECTORS = (
  JSON.parse(
    readFileSync(new URL('../../../test/fixtures/plantuml-vectors.json', import.meta.url), 'utf8'),
  ) as {
    vectors: { source: string; encoded: string; deflatedBytes: number }[];
  }
).vectors;

/** Diagrams of many sizes and shapes, so that every deflated length class mod 3 shows up. */
function sampleDiagrams(): string[] {
  const samples = [
    'Bob -> Alice : hello',
    '@startuml\nBob -> Alice : hello\n@enduml',
    '@startuml\nclass Car {\n  +drive(): void\n}\nCar <|-- Sedan\n@enduml',
    '@startuml\nstart\n:Hello world;\nif (ok?) then (yes)\n  :go;\nelse (no)\n  stop\nendif\nstop\n@enduml',
    '@startuml\nAlice -> Bob : 日本語のメッセージ\nBob --> Alice : Ça va? Ünïcödé ✓ 🚀\n@enduml',
    '',
    'a',
  ];
  for (let i = 1; i <= 60; i++) {
    const lines = ['@startuml'];
    for (let j = 0; j < i; j++) lines.push(`Actor${j % 7} -> Service${(j * 3 + i) % 11} : call ${j * i}`);
    lines.push('@enduml');
    samples.push(lines.join('\n'));
  }
  return samples;
}

function decodeError(encoded: string): GatewayError {
  try {
    decodePlantUml(encoded);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error(`expected decodePlantUml(${JSON.stringify(encoded)}) to throw`);
}

describe('encodePlantUml', () => {
  it('encodes the well-known examples exactly as plantuml.com documents them', async () => {
    expect(await encodePlantUml('Bob -> Alice : hello')).toBe('SyfFKj2rKt3CoKnELR1Io4ZDoSa70000');
    expect(await encodePlantUml('@startuml\nBob -> Alice : hello\n@enduml')).toBe(
      'SoWkIImgAStDuNBAJrBGjLDmpCbCJbMmKiX8pSd9vt98pKi1IW80',
    );
    // 22 deflated bytes: the last group holds one real byte and still yields 4 characters.
    expect(deflatedLength('Bob -> Alice : hello') % 3).toBe(1);
  });

  it('matches the reference encoder byte for byte on diagrams of every deflated length class', async () => {
    const classes = new Set(VECTORS.map((v) => v.deflatedBytes % 3));
    expect([...classes].sort()).toEqual([0, 1, 2]);
    for (const vector of VECTORS) {
      expect(await encodePlantUml(vector.source), vector.source).toBe(vector.encoded);
    }
  });

  it('covers deflated lengths of every class mod 3, each decodable by the independent decoder and round-tripping', async () => {
    const classes = new Set<number>();
    for (const source of sampleDiagrams()) {
      const length = deflatedLength(source);
      classes.add(length % 3);
      const encoded = await encodePlantUml(source);
      expect(oracle.decode(encoded)).toBe(source);
      expect(encoded.length).toBe(Math.ceil(length / 3) * 4);
      expect(encoded).toMatch(/^[0-9A-Za-z_-]*$/);
      expect(decodePlantUml(encoded)).toBe(source);
    }
    expect([...classes].sort()).toEqual([0, 1, 2]);
  });

  it('pads a final partial group instead of dropping it, unlike a plain base64 remap', async () => {
    const source = '@startuml\nA -> B : hi\nB -> A : yo\n@enduml';
    const bytes = Buffer.from(deflateRaw(Buffer.from(source), { level: 9 }));
    expect(bytes.length % 3).not.toBe(0);
    const remapped = bytes.toString('base64url').replace(/[A-Za-z0-9]/g, (c) => {
      const std = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
      return '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.charAt(std.indexOf(c));
    });
    const encoded = await encodePlantUml(source);
    expect(encoded.length % 4).toBe(0);
    expect(remapped.length % 4).not.toBe(0);
    expect(encoded.startsWith(remapped.slice(0, -1))).toBe(true);
  });

  it('round-trips unicode text', async () => {
    const source = 'Ålice -> Bøb : 你好，世界 — ñ, ß, ИЯ, 👩‍💻\nnote right: e\u0301 (combining)';
    const encoded = await encodePlantUml(source);
    expect(decodePlantUml(encoded)).toBe(source);
    expect(oracle.decode(encoded)).toBe(source);
  });
});

describe('decodePlantUml', () => {
  it('decodes the encodings plantuml.com documents', () => {
    // Made by PlantUML's Java encoder; our encoder now produces the same text (see above).
    expect(decodePlantUml('SoWkIImgAStDuNBAJrBGjLDmpCbCJbMmKiX8pSd9vt98pKi1IW80')).toBe(
      '@startuml\nBob -> Alice : hello\n@enduml',
    );
  });

  it('accepts the explicit ~0 deflate prefix and the ~h hex form, and trims whitespace', () => {
    expect(decodePlantUml('~0SyfFKj2rKt3CoKnELR1Io4ZDoSa70000')).toBe('Bob -> Alice : hello');
    const hex = Buffer.from('A -> B : ü', 'utf8').toString('hex');
    expect(decodePlantUml(`~h${hex}`)).toBe('A -> B : ü');
    expect(decodePlantUml(`~h${hex.toUpperCase()}`)).toBe('A -> B : ü');
    expect(decodePlantUml('  SyfFKj2rKt3CoKnELR1Io4ZDoSa70000\n')).toBe('Bob -> Alice : hello');
  });

  it('tolerates a final group without its padding characters', () => {
    expect(decodePlantUml('SyfFKj2rKt3CoKnELR1Io4ZDoSa700')).toBe('Bob -> Alice : hello');
  });

  it('rejects the legacy Huffman (~1) and other prefixed forms with a reason', () => {
    const huffman = decodeError('~1SyfFKj2rKt3CoKnELR1Io4ZDoSa70000');
    expect(huffman.code).toBe('validation_input');
    expect(huffman.details?.reason).toMatch(/legacy Huffman/);
    expect(decodeError('~gABCD').details?.reason).toMatch(/unsupported encoding prefix "~g"/);
  });

  it('rejects invalid characters, naming the character and position', () => {
    const error = decodeError('SyfFKj2r+t3CoKnELR1Io4ZDoSa70000');
    expect(error.code).toBe('validation_input');
    expect(error.details).toMatchObject({ path: '/encoded' });
    expect(error.details?.reason).toMatch(/invalid character "\+" at position 8/);
  });

  it('rejects empty, truncated and non-deflate data', () => {
    expect(decodeError('   ').details?.reason).toMatch(/empty/);
    expect(decodeError('~0').details?.reason).toMatch(/no encoded data/);
    expect(decodeError('SyfFK').details?.reason).toMatch(/4n\+1/);
    expect(decodeError('SyfFKj2rKt3C').details?.reason).toMatch(/does not inflate/);
    expect(decodeError('zzzz').details?.reason).toMatch(/does not inflate/);
  });

  it('rejects bad hex, invalid UTF-8 and deflate bombs', async () => {
    expect(decodeError('~habc').details?.reason).toMatch(/even number/);
    expect(decodeError('~hzz').details?.reason).toMatch(/invalid hex digit "z"/);
    expect(decodeError('~hff').details?.reason).toMatch(/not valid UTF-8/);
    const bomb = await encodePlantUml('a'.repeat(MAX_DECODED_BYTES + 1));
    expect(bomb.length).toBeLessThan(5000);
    expect(decodeError(bomb).details?.reason).toMatch(/exceed/);
  });
});
