import { defineTool, type ToolDefinition } from '../local/define-tool.js';
import { inputError } from './input-error.js';
import { decodePlantUml, encodePlantUml } from './plantuml-codec.js';

/** Output formats every PlantUML server renders at `/{format}/{encoded}`. */
export const PLANTUML_FORMATS = ['svg', 'png', 'txt'] as const;
export type PlantUmlFormat = (typeof PLANTUML_FORMATS)[number];

export const DEFAULT_PLANTUML_SERVER = 'https://www.plantuml.com/plantuml';

/** Largest diagram source accepted, in UTF-8 bytes; public servers refuse much longer URLs anyway. */
export const MAX_PLANTUML_SOURCE_BYTES = 51200;

const ANNOTATIONS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const METADATA = { category: 'diagrams', sideEffect: false, cost: 0, latencyHintMs: 5 } as const;
const ENCODED_PATTERN = '^(~[0h])?[0-9A-Za-z_-]*$';

interface EncodeArgs {
  source: string;
  format?: PlantUmlFormat;
  server?: string;
}

interface DecodeArgs {
  encoded: string;
}

/** `plantuml:encode`: diagram source to a shareable render URL, entirely offline. */
export const plantumlEncodeTool: ToolDefinition = defineTool<EncodeArgs>({
  namespace: 'plantuml',
  name: 'encode',
  title: 'Encode PlantUML diagram to URL',
  description:
    'Encodes PlantUML diagram source into the compressed text PlantUML servers use in URLs, and ' +
    'builds the render URL (`{server}/{format}/{encoded}`). Use it to turn a diagram you wrote ' +
    '(sequence, class, activity, state, component, mind map, …) into a link a user can open or an ' +
    'image URL to embed in Markdown. Runs offline: nothing is sent to the server and the diagram ' +
    'is not syntax-checked; the server reports syntax errors when the URL is opened. Returns ' +
    '{ url, encoded, format }.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['source'],
    properties: {
      source: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_PLANTUML_SOURCE_BYTES,
        pattern: '\\S',
        description:
          'PlantUML source, usually wrapped in @startuml … @enduml (other @start… blocks such as ' +
          '@startmindmap work too). At most 51200 bytes of UTF-8.',
      },
      format: {
        type: 'string',
        enum: [...PLANTUML_FORMATS],
        default: 'svg',
        description: 'Image format of the URL: svg (vector, default), png (bitmap) or txt (ASCII art).',
      },
      server: {
        type: 'string',
        format: 'uri',
        pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
        maxLength: 2048,
        default: DEFAULT_PLANTUML_SERVER,
        description:
          'Base URL of the PlantUML server (http or https, no query string). Default: the public ' +
          'server https://www.plantuml.com/plantuml. A trailing slash is removed.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'encoded', 'format'],
    properties: {
      url: { type: 'string', description: 'Render URL: {server}/{format}/{encoded}.' },
      encoded: {
        type: 'string',
        pattern: ENCODED_PATTERN,
        description: 'The encoded diagram (deflate + PlantUML base64), usable with any PlantUML server.',
      },
      format: { type: 'string', enum: [...PLANTUML_FORMATS], description: 'The format in the URL.' },
    },
  },
  annotations: ANNOTATIONS,
  tags: ['plantuml', 'diagram', 'uml', 'url', 'encode'],
  metadata: METADATA,
  examples: [
    {
      title: 'Sequence diagram as an SVG link',
      args: { source: '@startuml\nAlice -> Bob : hello\nBob --> Alice : hi\n@enduml' },
      resultHint: '{ url: "https://www.plantuml.com/plantuml/svg/SoWk…", encoded: "SoWk…", format: "svg" }',
    },
    {
      title: 'PNG from a self-hosted server',
      args: {
        source: '@startuml\nclass User {\n  +name: string\n}\nUser --> Order\n@enduml',
        format: 'png',
        server: 'http://localhost:8080/',
      },
      resultHint: 'url starts with "http://localhost:8080/png/"',
    },
  ],
  handler(args) {
    const source = args.source;
    if (typeof source !== 'string' || source.trim() === '') {
      throw inputError('/source', 'the diagram source is empty');
    }
    const bytes = Buffer.byteLength(source, 'utf8');
    if (bytes > MAX_PLANTUML_SOURCE_BYTES) {
      throw inputError(
        '/source',
        `the source is ${bytes} bytes of UTF-8; the limit is ${MAX_PLANTUML_SOURCE_BYTES}`,
      );
    }
    const format = args.format ?? 'svg';
    if (!(PLANTUML_FORMATS as readonly string[]).includes(format)) {
      throw inputError('/format', `unknown format "${format}"; use one of ${PLANTUML_FORMATS.join(', ')}`);
    }
    const server = normalizeServer(args.server ?? DEFAULT_PLANTUML_SERVER);
    // Argument errors are thrown at once; only the encoding waits (for pako's first load).
    return encodePlantUml(source).then((encoded) => ({
      url: `${server}/${format}/${encoded}`,
      encoded,
      format,
    }));
  },
});

/** `plantuml:decode`: encoded text or a render URL back to diagram source. */
export const plantumlDecodeTool: ToolDefinition = defineTool<DecodeArgs>({
  namespace: 'plantuml',
  name: 'decode',
  title: 'Decode PlantUML URL to source',
  description:
    'Recovers the PlantUML source from an encoded diagram text or from a full PlantUML URL ' +
    '(e.g. https://www.plantuml.com/plantuml/svg/SoWk…, where the last path segment is the ' +
    'encoded text). Use it to read, explain or edit a diagram someone shared as a link. Supports ' +
    'the standard deflate encoding (optionally prefixed "~0") and the hex form "~h"; the legacy ' +
    '"~1" Huffman form is rejected. Runs offline. Returns { source }.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['encoded'],
    properties: {
      encoded: {
        type: 'string',
        minLength: 1,
        maxLength: 200000,
        description:
          'The encoded diagram text (characters 0-9 A-Z a-z - _), or a full http(s) PlantUML URL ' +
          'whose last path segment is that text.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['source'],
    properties: { source: { type: 'string', description: 'The decoded PlantUML source.' } },
  },
  annotations: ANNOTATIONS,
  tags: ['plantuml', 'diagram', 'uml', 'url', 'decode'],
  metadata: METADATA,
  examples: [
    {
      title: 'Decode an encoded text',
      args: { encoded: 'SyfFKj2rKt3CoKnELR1Io4ZDoSa70000' },
      resultHint: '{ source: "Bob -> Alice : hello" }',
    },
    {
      title: 'Decode a shared PlantUML link',
      args: {
        encoded: 'https://www.plantuml.com/plantuml/png/SoWkIImgAStDuNBAJrBGjLDmpCbCJbMmKiX8pSd9vt98pKi1IW80',
      },
      resultHint: '{ source: "@startuml\\nBob -> Alice : hello\\n@enduml" }',
    },
  ],
  handler(args) {
    if (typeof args.encoded !== 'string') throw inputError('/encoded', 'must be a string');
    return { source: decodePlantUml(encodedPart(args.encoded.trim())) };
  },
});

/** Both PlantUML tools. */
export function plantumlTools(): ToolDefinition[] {
  return [plantumlEncodeTool, plantumlDecodeTool];
}

function normalizeServer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw inputError('/server', `"${raw}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw inputError('/server', `the server URL must use http or https, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw inputError('/server', 'the server URL must not have a query string or fragment');
  }
  if (url.username !== '' || url.password !== '') {
    throw inputError('/server', 'the server URL must not contain credentials');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The encoded text itself, or the last path segment when given a URL. */
function encodedPart(value: string): string {
  if (!/^https?:\/\//i.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw inputError('/encoded', 'looks like a URL but cannot be parsed');
  }
  const segment = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .pop();
  if (segment === undefined)
    throw inputError('/encoded', 'the URL has no path segment holding the encoded diagram');
  try {
    return decodeURIComponent(segment);
  } catch {
    throw inputError('/encoded', 'the URL path has a malformed percent-escape');
  }
}
